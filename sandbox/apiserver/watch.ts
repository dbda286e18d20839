// Watch streams: `?watch=1` from a resourceVersion (or from "now" with synthetic ADDED events),
// one `{"type","object"}` JSON line per event over a chunked 200 response, BOOKMARKs on request,
// a 410 ERROR event when the start RV is older than the retained window, timeoutSeconds, and the
// fault hooks (drop, silence, hold while paused, deliver late).
import type { ServerResponse } from 'node:http';
import { encodeJson } from './encode.ts';
import type { FieldSelector, Selector } from './selectors.ts';
import type { Store, StoredEvent } from './store.ts';
import { statusBody } from './status.ts';
import { apiVersionOf, type KObj, type ResourceDef } from './types.ts';

export type WatchFormat = 'json' | 'table';

const CHUNK = 2048;

export interface WatchRequest {
  def: ResourceDef;
  rkey: string;
  namespace: string | undefined;
  labels: Selector;
  fields: FieldSelector;
  resourceVersion: string | undefined;
  timeoutSeconds: number | undefined;
  bookmarks: boolean;
  /** Renders an object for this watch's format (Table rows need the resource's columns). */
  render: (obj: KObj, first: boolean) => KObj;
  format: WatchFormat;
  /** Whether events can be sent as stored (one serialised line shared by all such watchers). */
  asStored: boolean;
  /** The object as this resource shows it (the same object when nothing changes). */
  present: (stored: KObj) => KObj;
  headers: Record<string, string | string[]>;
}

class Watcher {
  readonly req: WatchRequest;
  readonly res: ServerResponse;
  private readonly hub: WatchHub;
  private readonly startRv: number;
  private sawNewer = false;
  private first = true;
  private held: (string | Buffer)[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  /** Lines held back by Faults.delayWatchEvents, with when each is due. */
  private late: { line: string | Buffer; due: number }[] = [];
  private lateTimer: NodeJS.Timeout | undefined;
  closed = false;

  constructor(hub: WatchHub, req: WatchRequest, res: ServerResponse, startRv: number) {
    this.hub = hub;
    this.req = req;
    this.res = res;
    this.startRv = startRv;
  }

  start(bookmarkIntervalMs: number): void {
    const timeoutMs = this.req.timeoutSeconds !== undefined ? this.req.timeoutSeconds * 1000 : (1800 + Math.random() * 1800) * 1000;
    this.timers.push(setTimeout(() => this.close(true), timeoutMs));
    if (this.req.bookmarks) {
      this.timers.push(setInterval(() => this.bookmark(), bookmarkIntervalMs));
      if (timeoutMs > 2000) this.timers.push(setTimeout(() => this.bookmark(), timeoutMs - 2000));
    }
    this.res.on('close', () => this.close(false));
  }

  private bookmark(): void {
    if (!this.sawNewer) return;
    const rv = String(this.hub.store.currentRv());
    const def = this.req.def;
    const object: KObj = def.builtin
      ? { kind: def.kind, apiVersion: apiVersionOf(def), metadata: { resourceVersion: rv, creationTimestamp: null } }
      : { apiVersion: apiVersionOf(def), kind: def.kind, metadata: { resourceVersion: rv } };
    this.write(encodeJson({ type: 'BOOKMARK', object }));
  }

  matches(o: KObj | undefined): boolean {
    return o !== undefined && this.req.labels(o.metadata.labels) && this.req.fields(o);
  }

  /** The event as this watcher sees it (selector transitions turn MODIFIED into ADDED/DELETED). */
  deliver(ev: StoredEvent): void {
    if (ev.rkey !== this.req.rkey) return;
    if (this.req.namespace !== undefined && ev.namespace !== this.req.namespace) return;
    if (ev.rv > this.startRv) this.sawNewer = true;
    const now = this.matches(ev.object);
    let type: string | undefined;
    if (ev.type === 'ADDED') type = now ? 'ADDED' : undefined;
    else if (ev.type === 'DELETED') type = now || this.matches(ev.prev) ? 'DELETED' : undefined;
    else {
      const before = this.matches(ev.prev);
      type = now && before ? 'MODIFIED' : now ? 'ADDED' : before ? 'DELETED' : undefined;
    }
    if (!type) return;
    if (this.hub.silenced) {
      if (!this.closed) this.hub.lostEvents++;
      return;
    }
    // An object that stops matching leaves as its previous state under the event's resourceVersion,
    // as the watch cache sends it (cacheWatcher.convertToWatchEvent).
    if (type === 'DELETED' && ev.type === 'MODIFIED' && ev.prev) {
      this.sendObject(type, { ...ev.prev, metadata: { ...ev.prev.metadata, resourceVersion: ev.object.metadata.resourceVersion } });
      return;
    }
    if (this.req.asStored && type === ev.type && this.req.present(ev.object) === ev.object) {
      let line = ev.lines.get('json');
      if (line === undefined) {
        line = Buffer.from(encodeJson({ type, object: ev.object }));
        ev.lines.set('json', line);
      }
      this.write(line);
      return;
    }
    this.sendObject(type, ev.object);
  }

  sendObject(type: string, obj: KObj): void {
    const object = this.req.render(obj, this.first);
    this.first = false;
    this.write(encodeJson({ type, object }));
  }

  write(line: string | Buffer): void {
    if (this.closed || this.hub.silenced) return;
    const ms = this.hub.eventDelays.get(this.req.def.resource) ?? 0;
    // Bookmarks wait behind events too: a client's resourceVersion must never pass an event it lacks.
    if (ms > 0 || this.late.length > 0) {
      this.late.push({ line, due: Date.now() + ms });
      if (this.late.length === 1) this.sendLate();
      return;
    }
    this.send(line);
  }

  /** Sends the delayed lines in order, each at its due time. */
  private sendLate(): void {
    const next = this.late[0];
    if (!next) return;
    this.lateTimer = setTimeout(
      () => {
        this.late.shift();
        this.send(next.line);
        this.sendLate();
      },
      Math.max(0, next.due - Date.now()),
    );
  }

  private send(line: string | Buffer): void {
    if (this.closed || this.hub.silenced) return;
    if (this.hub.paused()) {
      this.held.push(line);
      return;
    }
    // Go's http server flushes through a 2 KiB buffer: long events arrive split over chunks,
    // so clients must reassemble lines, as with the real server.
    const bytes = typeof line === 'string' ? Buffer.from(line) : line;
    if (bytes.length <= CHUNK) {
      this.res.write(bytes);
      return;
    }
    for (let i = 0; i < bytes.length; i += CHUNK) this.res.write(bytes.subarray(i, i + CHUNK));
  }

  flushHeld(): void {
    const held = this.held;
    this.held = [];
    for (const line of held) this.send(line);
  }

  close(graceful: boolean): void {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    clearTimeout(this.lateTimer);
    this.late = [];
    this.hub.watchers.delete(this);
    if (graceful) this.res.end();
    else this.res.destroy();
  }
}

export class WatchHub {
  readonly store: Store;
  readonly watchers = new Set<Watcher>();
  silenced = false;
  /** Events a watch did not get because watches were silenced (see Faults.lostEvents). */
  lostEvents = 0;
  /** Resource → how late its watches get each event (see Faults.delayWatchEvents). */
  readonly eventDelays = new Map<string, number>();
  readonly paused: () => boolean;
  private readonly bookmarkIntervalMs: number;
  private readonly unsubscribe: () => void;

  constructor(store: Store, paused: () => boolean, bookmarkIntervalMs: number) {
    this.store = store;
    this.paused = paused;
    this.bookmarkIntervalMs = bookmarkIntervalMs;
    this.unsubscribe = store.subscribe((ev) => {
      for (const w of this.watchers) w.deliver(ev);
    });
  }

  serve(req: WatchRequest, res: ServerResponse): void {
    res.writeHead(200, req.headers);
    res.flushHeaders();
    const rvParam = req.resourceVersion;
    const fromNow = rvParam === undefined || rvParam === '' || rvParam === '0';
    const startRv = fromNow ? this.store.currentRv() : Number(rvParam);
    const w = new Watcher(this, req, res, startRv);
    if (fromNow) {
      for (const obj of this.store.list(req.rkey, req.namespace)) {
        if (w.matches(obj)) w.sendObject('ADDED', obj);
      }
    } else {
      const events = Number.isFinite(startRv) ? this.store.eventsSince(startRv) : undefined;
      if (!events) {
        const message = `too old resource version: ${rvParam} (${this.store.oldestWatchableRv() + 1})`;
        res.end(encodeJson({ type: 'ERROR', object: statusBody(410, 'Expired', message) }));
        return;
      }
      for (const ev of events) w.deliver(ev);
    }
    this.watchers.add(w);
    w.start(this.bookmarkIntervalMs);
  }

  dropAll(graceful: boolean): number {
    const all = [...this.watchers];
    for (const w of all) w.close(graceful);
    return all.length;
  }

  flushHeld(): void {
    for (const w of this.watchers) w.flushHeld();
  }

  stop(): void {
    this.unsubscribe();
    this.dropAll(false);
  }
}
