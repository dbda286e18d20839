// Fault injection for tests: failing or delaying matching requests, dropping or silencing
// watches, delaying watch events, forgetting the watch window (410 for older RVs), pausing the
// whole server.
export interface RequestMatch {
  verb?: string;
  resource?: string;
  namespace?: string;
  name?: string;
  subresource?: string;
}

interface FailRule {
  match: RequestMatch;
  remaining: number;
  status: number;
  message: string | undefined;
}

interface DelayRule {
  match: RequestMatch;
  remaining: number;
  ms: number;
}

export interface FaultHooks {
  dropWatches(graceful: boolean): number;
  expireWindow(): void;
  setWatchesSilenced(silenced: boolean): void;
  /** Resource → delay of its watch events (Faults.delayWatchEvents). */
  watchEventDelays(): Map<string, number>;
  onResume(): void;
  heldRequests(): number;
  lostEvents(): number;
}

export interface RequestFacts {
  verb: string;
  resource: string | undefined;
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
}

function matches(m: RequestMatch, r: RequestFacts): boolean {
  return (
    (m.verb === undefined || m.verb === r.verb) &&
    (m.resource === undefined || m.resource === r.resource) &&
    (m.namespace === undefined || m.namespace === r.namespace) &&
    (m.name === undefined || m.name === r.name) &&
    (m.subresource === undefined || m.subresource === r.subresource)
  );
}

export class Faults {
  private readonly fails: FailRule[] = [];
  private readonly delays: DelayRule[] = [];
  private pausedFlag = false;
  private readonly hooks: FaultHooks;

  constructor(hooks: FaultHooks) {
    this.hooks = hooks;
  }

  /** Answers the next `count` requests matching `match` with `status` (a Status body). */
  failNext(match: RequestMatch, opts: { status: number; count?: number; message?: string }): void {
    this.fails.push({ match, remaining: opts.count ?? 1, status: opts.status, message: opts.message });
  }

  /** Holds the next `count` matching requests for `ms` milliseconds before serving them. */
  delayNext(match: RequestMatch, opts: { ms: number; count?: number }): void {
    this.delays.push({ match, remaining: opts.count ?? 1, ms: opts.ms });
  }

  /** Ends every open watch. `graceful` ends the body normally; otherwise the socket is cut. */
  dropWatches(opts: { graceful?: boolean } = {}): number {
    return this.hooks.dropWatches(opts.graceful ?? false);
  }

  /** Forgets the retained events: a watch from any RV before now gets a 410 ERROR event. */
  expireWatchWindow(): void {
    this.hooks.expireWindow();
  }

  /** Open and new watches stay connected but receive nothing (events are lost for them). */
  silenceWatches(): void {
    this.hooks.setWatchesSilenced(true);
  }

  unsilenceWatches(): void {
    this.hooks.setWatchesSilenced(false);
  }

  /**
   * Watches of `resource` (plural, e.g. "pods") get every event `ms` late, in order, as from a
   * lagging watch cache: a barrier for "a client decides on its cache before its own write shows
   * up". `ms` 0 ends it (lines already held still go out in order).
   */
  delayWatchEvents(resource: string, ms: number): void {
    if (ms > 0) this.hooks.watchEventDelays().set(resource, ms);
    else this.hooks.watchEventDelays().delete(resource);
  }

  /** Accepts connections but answers nothing (watch events are held too) until resume(). */
  pause(): void {
    this.pausedFlag = true;
  }

  resume(): void {
    this.pausedFlag = false;
    this.hooks.onResume();
  }

  get paused(): boolean {
    return this.pausedFlag;
  }

  /** Requests received while paused and not answered yet: a test's barrier for "it got here". */
  get heldRequests(): number {
    return this.hooks.heldRequests();
  }

  /** Watch events lost so far to silenced watches (one per event and watch). */
  get lostEvents(): number {
    return this.hooks.lostEvents();
  }

  /** Removes every pending rule and resumes. */
  clear(): void {
    this.fails.length = 0;
    this.delays.length = 0;
    this.hooks.setWatchesSilenced(false);
    this.hooks.watchEventDelays().clear();
    if (this.pausedFlag) this.resume();
  }

  /** @internal the failure to answer this request with, if a rule matches (consumes one). */
  takeFailure(r: RequestFacts): { status: number; message: string | undefined } | undefined {
    const rule = this.fails.find((f) => f.remaining > 0 && matches(f.match, r));
    if (!rule) return undefined;
    rule.remaining--;
    if (rule.remaining === 0) this.fails.splice(this.fails.indexOf(rule), 1);
    return { status: rule.status, message: rule.message };
  }

  /** @internal the delay for this request, if a rule matches (consumes one). */
  takeDelay(r: RequestFacts): number {
    const rule = this.delays.find((f) => f.remaining > 0 && matches(f.match, r));
    if (!rule) return 0;
    rule.remaining--;
    if (rule.remaining === 0) this.delays.splice(this.delays.indexOf(rule), 1);
    return rule.ms;
  }
}
