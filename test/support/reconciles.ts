// A controller's reconciles as a test sees them: each finished one, with its key and the primary
// object's generation when it began (null: the object was gone). A test that checks that nothing
// happened (no write, nothing deleted) first waits here for a reconcile that could have done it to
// finish, instead of sleeping.
import type { ControllerSpec } from '../../src/runtime/controller.ts';
import { eventually } from './wait.ts';

export interface FinishedReconcile {
  key: string;
  /** metadata.generation of the primary object in the cache when the reconcile began; null: absent. */
  generation: number | null;
  failed: boolean;
}

const LINE = 'test: reconciled';

export class ReconcileLog {
  readonly finished: FinishedReconcile[] = [];
  readonly #onFinished: ((r: FinishedReconcile) => void) | undefined;

  /** `onFinished` also hears of each (an operator process prints `ReconcileLog.line(r)`). */
  constructor(onFinished?: (r: FinishedReconcile) => void) {
    this.#onFinished = onFinished;
  }

  /** Wraps `spec.reconcile` so that each reconcile is recorded once it has finished. */
  record(spec: ControllerSpec): void {
    const reconcile = spec.reconcile.bind(spec);
    spec.reconcile = async (req, ctx) => {
      // The reconcile reads the same cache right after: it sees this generation or a later one.
      const seen = (await ctx.informer(spec.for)).get(req.namespace, req.name);
      const entry: FinishedReconcile = { key: req.key, generation: seen ? (seen.metadata?.generation ?? 0) : null, failed: true };
      try {
        const result = await reconcile(req, ctx);
        entry.failed = false;
        return result;
      } finally {
        this.finished.push(entry);
        this.#onFinished?.(entry);
      }
    };
  }

  /** A JSON log line carrying `r`, for an operator running as a child process. */
  static line(r: FinishedReconcile): string {
    return `${JSON.stringify({ message: LINE, ...r })}\n`;
  }

  /** Records the reconcile a `line()` of a child process's output carries; other lines are ignored. */
  addLine(text: string): void {
    if (!text.includes(`"${LINE}"`)) return;
    const { key, generation, failed } = JSON.parse(text) as FinishedReconcile;
    this.finished.push({ key, generation, failed });
  }

  /** A position in the log, for `of` and `settled`. */
  mark(): number {
    return this.finished.length;
  }

  /** The reconciles of `key` finished after `mark`. */
  of(key: string, mark = 0): FinishedReconcile[] {
    return this.finished.slice(mark).filter((f) => f.key === key);
  }

  /**
   * Waits until every key has `n` reconciles finished after `mark`. One key is never reconciled
   * twice at once, so with `n` >= 2 at least `n - 1` of them began after the mark.
   */
  async settled(keys: readonly string[], mark: number, n = 2, timeoutMs?: number): Promise<void> {
    await eventually(
      `${n} finished reconciles of each of ${keys.join(', ')}`,
      () => keys.every((k) => this.of(k, mark).length >= n),
      timeoutMs,
    );
  }
}
