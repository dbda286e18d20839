// The container's termination message (Kubernetes: the file at terminationMessagePath, shown in
// the pod status as `state.terminated.message`). The sidecar's one-shot commands leave their
// report or their error there, so the controllers learn the outcome from the pod they watch.
import { access, writeFile } from 'node:fs/promises';

/** The kubelet reads at most this many bytes of it. */
const MAX_BYTES = 4096;

/** Writes `text` when `path` exists (the kubelet creates it; elsewhere nothing is written). Never throws. */
export async function writeTerminationMessage(path: string, text: string): Promise<void> {
  try {
    await access(path);
    await writeFile(path, Buffer.from(text).subarray(0, MAX_BYTES));
  } catch {
    // Outside a pod there is no such file, and the report is on stdout or in the log anyway.
  }
}
