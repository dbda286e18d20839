// Child processes of the sidecar (mariabackup, mbstream, gzip, ...): their outcome and the tail
// of their stderr, which is what an operator on call needs when one fails.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

export interface ChildOutcome {
  ok: boolean;
  /** e.g. "exit 1", "signal SIGKILL", "spawn mbstream ENOENT" */
  status: string;
  stderrTail: string;
}

export class ToolError extends Error {
  readonly outcome: ChildOutcome;
  constructor(what: string, outcome: ChildOutcome) {
    const tail = outcome.stderrTail ? `: ${outcome.stderrTail}` : '';
    super(`${what} failed (${outcome.status})${tail}`);
    this.name = 'ToolError';
    this.outcome = outcome;
  }
}

/** Keeps the last `lines` lines of a stream (never the whole of it). */
function tailOf(stream: NodeJS.ReadableStream | null, lines: number): () => string {
  let buf = '';
  stream?.setEncoding?.('utf8');
  stream?.on('data', (chunk: string) => {
    buf = (buf + chunk)
      .split('\n')
      .slice(-lines - 1)
      .join('\n');
  });
  return () => buf.trim().split('\n').slice(-lines).join(' | ');
}

/** Resolves once the child has exited and its stdio closed; never rejects. */
export function outcomeOf(child: ChildProcess, tailLines = 8): Promise<ChildOutcome> {
  const tail = tailOf(child.stderr, tailLines);
  return new Promise((resolve) => {
    let spawnError: Error | undefined;
    child.once('error', (err) => {
      spawnError = err;
      // A child that never started emits no 'close' on some paths.
      if (child.pid === undefined) resolve({ ok: false, status: err.message, stderrTail: '' });
    });
    child.once('close', (code, signal) => {
      if (spawnError && child.pid === undefined) return;
      const status = signal ? `signal ${signal}` : `exit ${code}`;
      resolve({ ok: code === 0 && !spawnError, status, stderrTail: tail() });
    });
  });
}

/** Runs a command to completion; throws ToolError naming `what` when it fails. */
export async function runTool(what: string, cmd: string, args: readonly string[], opts: SpawnOptions = {}): Promise<void> {
  const outcome = await outcomeOf(spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], ...opts }));
  if (!outcome.ok) throw new ToolError(what, outcome);
}

/** SIGTERM, then SIGKILL if it is still there after `graceMs`. */
export function terminate(child: ChildProcess, graceMs = 5000): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  timer.unref();
  child.once('exit', () => clearTimeout(timer));
}
