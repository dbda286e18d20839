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
}

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

export class RequestLog {
  readonly entries: RequestLogEntry[] = [];

  add(e: RequestLogEntry): void {
    this.entries.push(e);
  }

  clear(): void {
    this.entries.length = 0;
  }

  /** A position to pass to since(). */
  mark(): number {
    return this.entries.length;
  }

  since(mark: number): RequestLogEntry[] {
    return this.entries.slice(mark);
  }

  filter(match: Partial<Pick<RequestLogEntry, 'verb' | 'resource' | 'namespace' | 'name' | 'subresource' | 'method'>>, from = 0): RequestLogEntry[] {
    return this.entries.slice(from).filter((e) => Object.entries(match).every(([k, v]) => e[k as keyof RequestLogEntry] === v));
  }

  writes(from = 0): RequestLogEntry[] {
    return this.entries.slice(from).filter((e) => WRITE_VERBS.has(e.verb));
  }
}
