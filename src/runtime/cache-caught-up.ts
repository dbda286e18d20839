// A pass that wrote an object ends only once its informer shows the write (at most
// CACHE_CATCH_UP_MS). Our own write enqueues the key again, but so may a resync or a related
// object's change while the pass runs; that next pass reads the cache at once, and on the version
// before the write it would decide, write and announce the same thing a second time.
import type { Informer } from './informer.ts';
import type { KubeObject } from './kube/types.ts';

/** How long the end of a pass waits for the caches to show its writes. */
export const CACHE_CATCH_UP_MS = 2_000;

/**
 * Resolves once the cached object is no longer at `before` (watch events come in order, so any
 * later version holds the write), or after CACHE_CATCH_UP_MS, or on abort.
 */
export function cacheMoved(
  cache: Informer<KubeObject>,
  namespace: string,
  name: string,
  before: string | undefined,
  signal: AbortSignal,
): Promise<void> {
  const moved = (): boolean => cache.get(namespace, name)?.metadata?.resourceVersion !== before;
  return new Promise<void>((resolve) => {
    const check = (): void => {
      if (moved()) done();
    };
    const off = cache.addHandlers({ onUpdate: check, onDelete: check });
    const timer = setTimeout(() => done(), CACHE_CATCH_UP_MS);
    function done(): void {
      off();
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
    check();
  });
}
