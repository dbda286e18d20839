// Every request the server answered, so tests can assert on traffic (e.g. "no writes in steady
// state"). Entries are appended when the response is finished (watches: when the watch starts).
export interface RequestLogEntry {
  time: number;
  method: string;
  path: string;
  query: Record<string, string>;
  verb: string;
  group: string | undefined;
  resource: string | undefined;
  subresource: string | undefined;
  namespace: string | undefined;
  name: string | undefined;
  status: number;
  userAgent: string | undefined;
  /** The request body's media type (protobuf from client-go's typed clients). */
  contentType: string | undefined;
}

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** Entries kept: a long-running sandbox must not grow without bound. */
const MAX_ENTRIES = 200_000;

export class RequestLog {
  /** The retained entries, oldest first (the oldest are dropped beyond 200,000). */
  readonly entries: RequestLogEntry[] = [];
  private dropped = 0;

  add(e: RequestLogEntry): void {
    this.entries.push(e);
    if (this.entries.length > MAX_ENTRIES * 1.5) {
      const n = this.entries.length - MAX_ENTRIES;
      this.entries.splice(0, n);
      this.dropped += n;
    }
  }

  clear(): void {
    this.dropped += this.entries.length;
    this.entries.length = 0;
  }

  /** A position to pass to since(), filter() and writes(). */
  mark(): number {
    return this.dropped + this.entries.length;
  }

  since(mark: number): RequestLogEntry[] {
    return this.entries.slice(Math.max(0, mark - this.dropped));
  }

  filter(
    match: Partial<Pick<RequestLogEntry, 'verb' | 'resource' | 'namespace' | 'name' | 'subresource' | 'method' | 'contentType'>>,
    from = 0,
  ): RequestLogEntry[] {
    return this.since(from).filter((e) => Object.entries(match).every(([k, v]) => e[k as keyof RequestLogEntry] === v));
  }

  writes(from = 0): RequestLogEntry[] {
    return this.since(from).filter((e) => WRITE_VERBS.has(e.verb));
  }
}
