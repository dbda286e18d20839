// The real kubectl (.tools/bin/kubectl) against a test's API: the test API server of kube-env.ts,
// or the real cluster of TEST_KUBECONFIG.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const KUBECTL = fileURLToPath(new URL('../../.tools/bin/kubectl', import.meta.url));

/** What a command printed and how it ended. */
export interface CommandRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** A kubeconfig file for kubectl: TEST_KUBECONFIG's, or the test API server's written to `dir`. */
export function kubeconfigFile(kubeConfig: { exportConfig(): string }, dir: string): string {
  if (process.env.TEST_KUBECONFIG) return process.env.TEST_KUBECONFIG;
  const path = `${dir}/kubeconfig`;
  writeFileSync(path, kubeConfig.exportConfig(), { mode: 0o600 });
  return path;
}

/**
 * `bin` with `args`, `input` on stdin when given. Asynchronous: the test API server answers from
 * this very process.
 */
export function runCommand(bin: string, args: readonly string[], input?: string, env?: NodeJS.ProcessEnv): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['pipe', 'pipe', 'pipe'], env: env ?? process.env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/** The real kubectl with `kubeconfig`, `yaml` on stdin when given. */
export function kubectl(kubeconfig: string, args: readonly string[], yaml?: string): Promise<CommandRun> {
  return runCommand(KUBECTL, ['--kubeconfig', kubeconfig, ...args], yaml);
}

/** Whether the API server serves `apiVersion` `kind` (discovery). */
export async function served(kubeconfig: string, apiVersion: string, kind: string): Promise<boolean> {
  const path = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const r = await kubectl(kubeconfig, ['get', '--raw', path]);
  if (r.status !== 0) return false;
  return (JSON.parse(r.stdout) as { resources: { kind: string }[] }).resources.some((res) => res.kind === kind);
}
