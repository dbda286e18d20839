// Keeps the clone's memory flat while it downloads gigabytes. Every piece a Node stream reads is
// a fresh 64 KiB buffer whose memory lives outside the V8 heap; V8 only collects the small
// objects owning them when its young generation fills or external memory has grown by about
// 64 MiB, so the RSS climbs by that much before anything is freed. A cheap minor GC (scavenge)
// every few MiB streamed frees them in step instead (measured: +80 MiB → +15 MiB).
import v8 from 'node:v8';
import vm from 'node:vm';

type Gc = (options?: { type: 'minor' | 'major' }) => void;

let gc: Gc | undefined;

function collector(): Gc {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as Gc;
  }
  return gc;
}

/** Returns a function to call with each chunk's size; it runs a minor GC every `everyBytes`. */
export function reclaimEvery(everyBytes: number): (bytes: number) => void {
  const run = collector();
  let since = 0;
  return (bytes) => {
    since += bytes;
    if (since >= everyBytes) {
      since = 0;
      run({ type: 'minor' });
    }
  };
}
