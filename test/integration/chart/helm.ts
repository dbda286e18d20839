// The real helm (.tools/bin/helm) on this checkout's chart/, and what the chart renders, for the
// chart's tests.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, stringify } from 'yaml';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { runCommand, type CommandRun } from '../../support/kubectl.ts';

export const REPO = fileURLToPath(new URL('../../../', import.meta.url));
export const CHART = `${REPO}chart`;
export const ALL_ON = `${CHART}/ci/all-on-values.yaml`;
export const HELM = `${REPO}.tools/bin/helm`;

/** A run of `bin`; helm's stderr also carries an INFO line on every run about chart/crds being a link. */
export function run(bin: string, args: readonly string[]): CommandRun {
  const r = spawnSync(bin, args, { encoding: 'utf8' });
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

/** `helm <verb> <release> chart/` with the options: template, install or upgrade. */
export function chartArgs(verb: 'template' | 'install' | 'upgrade', o: RenderOptions): string[] {
  return [
    verb,
    o.release ?? 'mysql-operator',
    CHART,
    '--namespace',
    o.namespace ?? 'mysql-operator',
    ...(o.values ?? []).flatMap((f) => ['-f', f]),
    ...(o.set ?? []).flatMap((s) => ['--set', s]),
    ...(o.includeCrds ? ['--include-crds'] : []),
  ];
}

/**
 * The real helm against the cluster of `kubeconfig`, asynchronously (the test API server may
 * answer from this process), with its cache, config and data homes under `dir`.
 */
export function helm(kubeconfig: string, dir: string, args: readonly string[]): Promise<CommandRun> {
  const homes = { HELM_CACHE_HOME: `${dir}/helm-cache`, HELM_CONFIG_HOME: `${dir}/helm-config`, HELM_DATA_HOME: `${dir}/helm-data` };
  return runCommand(HELM, ['--kubeconfig', kubeconfig, ...args], undefined, { ...process.env, ...homes });
}

/** `helm template`'s output; throws with helm's message when it fails. */
export function renderText(o: RenderOptions = {}): string {
  const r = run(HELM, chartArgs('template', o));
  if (r.status !== 0) throw new Error(`helm template failed: ${r.stderr}`);
  return r.stdout;
}

/** helm's error when it refuses to render `o`, or null when it renders. */
export function renderError(o: RenderOptions): string | null {
  const r = run(HELM, chartArgs('template', o));
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

export function toYaml(docs: readonly KubeObject[]): string {
  return docs.map((d) => stringify(d)).join('---\n');
}
