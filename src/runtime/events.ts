// Kubernetes Events (core/v1) about objects, as `kubectl describe` shows them. A repeat of the
// same (object, type, reason, message) bumps `count` and `lastTimestamp` of the existing Event
// instead of creating a new one. Messages are redacted: Events are readable by many.
import { randomBytes } from 'node:crypto';
import type { KubeClient } from './kube/client.ts';
import { isNotFound } from './kube/errors.ts';
import type { KubeObject } from './kube/types.ts';
import { errorMessage, redactString, type Logger } from './logger.ts';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  normal(obj: KubeObject, reason: string, message: string): void;
  warning(obj: KubeObject, reason: string, message: string): void;
}

interface Recorded {
  name: string;
  namespace: string;
  count: number;
}

const MAX_MESSAGE = 1024;
const MAX_REMEMBERED = 4096;

export class KubeEventRecorder implements EventRecorder {
  readonly #client: KubeClient;
  readonly #component: string;
  readonly #log: Logger | undefined;
  readonly #seen = new Map<string, Recorded>();
  #pending: Promise<void> = Promise.resolve();

  constructor(client: KubeClient, opts: { component?: string; log?: Logger } = {}) {
    this.#client = client;
    this.#component = opts.component ?? 'mysql-operator';
    this.#log = opts.log;
  }

  normal(obj: KubeObject, reason: string, message: string): void {
    this.record(obj, 'Normal', reason, message);
  }

  warning(obj: KubeObject, reason: string, message: string): void {
    this.record(obj, 'Warning', reason, message);
  }

  /** Fire-and-forget (an Event is never worth failing a reconcile); `flush()` awaits them. */
  record(obj: KubeObject, type: EventType, reason: string, message: string): void {
    const msg = redactString(message).slice(0, MAX_MESSAGE);
    this.#pending = this.#pending.then(() =>
      this.#write(obj, type, reason, msg).catch((err: unknown) => {
        this.#log?.warn('could not record event', { reason, error: errorMessage(err) });
      }),
    );
  }

  async flush(): Promise<void> {
    await this.#pending;
  }

  async #write(obj: KubeObject, type: EventType, reason: string, message: string): Promise<void> {
    const meta = obj.metadata ?? {};
    const namespace = meta.namespace || 'default';
    const id = `${meta.uid ?? `${namespace}/${meta.name}`}|${type}|${reason}|${message}`;
    const now = new Date().toISOString();
    const prev = this.#seen.get(id);
    if (prev) {
      try {
        await this.#client.patch(
          { apiVersion: 'v1', kind: 'Event', namespace: prev.namespace, name: prev.name },
          { count: prev.count + 1, lastTimestamp: now },
        );
        prev.count++;
        return;
      } catch (err) {
        if (!isNotFound(err)) throw err;
        this.#seen.delete(id); // expired by the server's TTL: start over
      }
    }
    const name = `${meta.name ?? 'object'}.${Date.now().toString(16)}${randomBytes(2).toString('hex')}`;
    await this.#client.create({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: {
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        name: meta.name,
        namespace: meta.namespace,
        uid: meta.uid,
        resourceVersion: meta.resourceVersion,
      },
      reason,
      message,
      type,
      count: 1,
      firstTimestamp: now,
      lastTimestamp: now,
      source: { component: this.#component },
      reportingComponent: this.#component,
    } as KubeObject);
    if (this.#seen.size >= MAX_REMEMBERED) {
      const oldest = this.#seen.keys().next().value;
      if (oldest !== undefined) this.#seen.delete(oldest);
    }
    this.#seen.set(id, { name, namespace, count: 1 });
  }
}
