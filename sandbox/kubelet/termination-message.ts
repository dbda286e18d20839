// A finished container's `state.terminated.message`, decided as the real kubelet does
// (kuberuntime_container.go getTerminationMessage, readLastStringFromContainerLogs): the end of
// the file the container had at its terminationMessagePath; with FallbackToLogsOnError, a
// non-zero exit and an empty file, the end of its log. Pure: the worker reads the bytes.

/** kubecontainer.MaxContainerTerminationMessageLength: the file is read from its end, this much. */
export const MAX_MESSAGE_BYTES = 4096;
/** kubecontainer.MaxContainerTerminationMessageLogLines and ...LogLength: the log's fallback tail. */
export const MAX_LOG_LINES = 80;
export const MAX_LOG_BYTES = 2048;

export interface TerminationInput {
  policy: string | undefined;
  exitCode: number;
  /** The last MAX_MESSAGE_BYTES of the message file; undefined when the container had none. */
  file: Buffer | undefined;
  /** The last MAX_LOG_BYTES of the container's own output (read only when needed). */
  logTail: () => Buffer;
}

/** The last `n` lines of `text` (a final newline ends the last line, as `tail -n`). */
export function lastLines(text: string, n: number): string {
  let end = text.endsWith('\n') ? text.length - 1 : text.length;
  for (let i = 0; i < n; i++) {
    const nl = text.lastIndexOf('\n', end - 1);
    if (nl < 0) return text;
    end = nl;
  }
  return text.slice(end + 1);
}

/** The message, or undefined when there is none. */
export function terminationMessage(input: TerminationInput): string | undefined {
  const fromFile = input.file?.toString('utf8') ?? '';
  if (fromFile !== '') return fromFile;
  if (input.policy !== 'FallbackToLogsOnError' || input.exitCode === 0) return undefined;
  const tail = lastLines(input.logTail().subarray(-MAX_LOG_BYTES).toString('utf8'), MAX_LOG_LINES);
  return tail === '' ? undefined : tail;
}
