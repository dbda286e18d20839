// The real helm (.tools/bin/helm) on this checkout's chart/, and what the chart renders, for the
// chart's tests.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';

export const REPO = fileURLToPath(new URL('../../../', import.meta.url));
export const CHART = `${REPO}chart`;
export const ALL_ON = `${CHART}/ci/all-on-values.yaml`;
export const HELM = `${REPO}.tools/bin/helm`;
export const KUBECTL = `${REPO}.tools/bin/kubectl`;

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function run(bin: string, args: readonly string[], input?: string): Run {
  // The chart's crds/ is a link to the generated CRDs; helm says so on every run (INFO).
  const r = spawnSync(bin, args, { encoding: 'utf8', input, env: { ...process.env, HELM_CACHE_HOME: '/tmp/helm-cache' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export interface RenderOptions {
  namespace?: string;
  /** Values files (`-f`). */
  values?: readonly string[];
  /** `--set` expressions. */
  set?: readonly string[];
  includeCrds?: boolean;
  release?: string;
}

function templateArgs(o: RenderOptions): string[] {
  return [
    'template', o.release ?? 'mysql-operator', CHART,
    '--namespace', o.namespace ?? 'mysql-operator',
    ...(o.values ?? []).flatMap((f) => ['-f', f]),
    ...(o.set ?? []).flatMap((s) => ['--set', s]),
    ...(o.includeCrds ? ['--include-crds'] : []),
  ];
}

/** `helm template`'s output; throws with helm's message when it fails. */
export function renderText(o: RenderOptions = {}): string {
  const r = run(HELM, templateArgs(o));
  if (r.status !== 0) throw new Error(`helm template failed: ${r.stderr}`);
  return r.stdout;
}

/** helm's error when it refuses to render `o`, or null when it renders. */
export function renderError(o: RenderOptions): string | null {
  const r = run(HELM, templateArgs(o));
  return r.status === 0 ? null : r.stderr;
}

export function render(o: RenderOptions = {}): KubeObject[] {
  return parseAllDocuments(renderText(o))
    .map((d) => d.toJS() as KubeObject | null)
    .filter((d): d is KubeObject => d !== null);
}

export function only<T = KubeObject>(docs: readonly KubeObject[], kind: string, pick: (o: KubeObject) => boolean = () => true): T {
  const found = docs.filter((d) => d.kind === kind && pick(d));
  if (found.length !== 1) throw new Error(`expected one ${kind}, found ${found.length}`);
  return found[0] as T;
}
