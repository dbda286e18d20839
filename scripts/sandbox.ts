// `npm run sandbox`: the control plane of the sandbox (DESIGN.md §6), without containers.
// Starts the project's test API server with the CRDs, the operator against it, applies
// examples/ with the real kubectl, and shows the objects the operator rendered. Pods do not run
// yet: the kubelet, StatefulSet controller and Service proxy of the sandbox are a later issue,
// so the clusters stop at "rendered" (their StatefulSets have no ready replicas).
//   npm run sandbox              keep running; Ctrl-C stops everything and removes .sandbox/
//   npm run sandbox -- --check   stop once every example cluster is rendered (exit 0), or fail
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const work = join(root, '.sandbox');
const kubeconfig = join(work, 'kubeconfig');
const kubectlBin = join(root, '.tools/bin/kubectl');
const check = process.argv.includes('--check');
const children: ChildProcess[] = [];

function kubectl(...args: string[]): { ok: boolean; out: string } {
  const r = spawnSync(kubectlBin, ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8' });
  return { ok: r.status === 0, out: `${r.stdout}${r.stderr}` };
}

/** A child on Node 24 whose stderr (and stdout, unless piped for reading) goes to .sandbox/<name>.log. */
function start(name: string, args: string[], readStdout = false, env: Record<string, string> = {}): ChildProcess {
  const log = openSync(join(work, `${name}.log`), 'a');
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', readStdout ? 'pipe' : log, log] });
  children.push(child);
  child.on('exit', (code, signal) => {
    if (!stopping) fail(`${name} exited (${code ?? signal}):\n${tail(join(work, `${name}.log`))}`);
  });
  return child;
}

function tail(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-20).join('\n') : '';
}

let stopping = false;
async function stop(code: number): Promise<never> {
  stopping = true;
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((done) => {
          if (c.exitCode !== null || c.signalCode !== null) return done();
          c.once('exit', () => done());
          c.kill('SIGTERM');
          setTimeout(() => c.kill('SIGKILL'), 10_000).unref();
        }),
    ),
  );
  rmSync(work, { recursive: true, force: true });
  process.exit(code);
}

function fail(message: string): void {
  console.error(`sandbox: ${message}`);
  void stop(1);
}

async function waitFor(what: string, ready: () => boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > deadline) {
      fail(`timed out waiting for ${what}`);
      await new Promise(() => undefined);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

console.log('sandbox: starting the API server (sandbox/apiserver) with the CRDs of crds/');
const apiserver = start('apiserver', ['sandbox/apiserver/main.ts', '--kubeconfig-out', kubeconfig, '--crds', 'crds', '--no-auth'], true);
await new Promise<void>((ready) => {
  createInterface({ input: apiserver.stdout! }).on('line', (line) => {
    if (line.includes('listening')) ready();
  });
});

console.log('sandbox: starting the operator');
start('operator', ['src/main.ts', '--kubeconfig', kubeconfig, '--metrics-addr', '127.0.0.1:0'], false, { LEADER_ELECT: 'false' });

console.log('sandbox: kubectl apply -f examples/');
const applied = kubectl('apply', '-f', join(root, 'examples'));
process.stdout.write(applied.out);
if (!applied.ok) fail('kubectl apply of examples/ failed');

const clusters = (): string[] => kubectl('get', 'mysqlclusters', '-o', 'name').out.split('\n').filter(Boolean);
const rendered = (): boolean => {
  const r = kubectl('get', 'mysqlclusters', '-o', 'jsonpath={range .items[*]}{.status.conditions[?(@.type=="Synced")].status}{"\\n"}{end}');
  const states = r.out.split('\n').filter(Boolean);
  return r.ok && states.length === clusters().length && states.every((s) => s === 'True');
};
await waitFor('the example clusters to be rendered', rendered);

console.log('\nsandbox: the operator rendered every example cluster:\n');
process.stdout.write(kubectl('get', 'mysqlclusters,statefulsets,services,configmaps,secrets,poddisruptionbudgets').out);
console.log('\nPods do not run yet: the sandbox kubelet is a later issue, so StatefulSets stay at 0 ready.');

if (check) await stop(0);
console.log(`\nsandbox: running. Try: ${kubectlBin} --kubeconfig ${kubeconfig} get mysql`);
console.log('sandbox: logs in .sandbox/; Ctrl-C stops everything and removes .sandbox/');
