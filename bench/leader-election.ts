// Benchmark of leader election's timing rules (src/runtime/leader-election.ts): candidates on a
// Lease of the test API server. The durations the integration tests used to assert are measured
// here, each against a timer of the duration it should take, measured in the same run on the same
// event loop (so a loaded machine slows both):
// - crash: the leader stops renewing without releasing; the standby may take the Lease once its
//   record has been unchanged for a lease duration. crash→takeover / a lease-duration timer
//   started at the crash: the headline ratio. From 1 to about 1 + 2.4·retry/lease is right (the
//   standby sees the last renewal up to a jittered retry late, and acts at its next retry);
//   below 1 would be unsafe (taken before it could have expired), far above, slow.
// - graceful: the leader releases the Lease; the standby takes it at its next retry.
//   release→takeover / a retry-period timer: about 1, at most 1.2 (retry jitter) plus latency.
// - renewals hang (the server holds Lease requests): the leader must step down before a standby
//   could take over. last renewal→step-down / a lease-duration timer: below 1.
// Rounds: 5, 5, 3 (--quick: 2, 2, 1). Lease 4 s, renew deadline 3 s, retry 250 ms (--quick: 2 s,
// 1.5 s, 200 ms).
import { setTimeout as sleep } from 'node:timers/promises';
import { startApiServer } from '../sandbox/apiserver/index.ts';
import { KubeClient } from '../src/runtime/kube/client.ts';
import { LeaderElector, type Lease } from '../src/runtime/leader-election.ts';

const quick = process.argv.includes('--quick');
const LEASE = quick ? 2000 : 4000;
const RENEW = quick ? 1500 : 3000;
const RETRY = quick ? 200 : 250;
const ROUNDS = { crash: quick ? 2 : 5, graceful: quick ? 2 : 5, hang: quick ? 1 : 3 };
const NS = 'default';

const server = await startApiServer({ token: null });
const kc = server.kubeConfig();
const service = server.internals.service;
const leases = service.resources.find('coordination.k8s.io', 'v1', 'leases')!;

interface Candidate {
  elector: LeaderElector;
  stop: () => Promise<void>;
  startedAt: number;
  stoppedAt: number;
}

/** A candidate campaigning for Lease `name` until stopped (without releasing: a crash). */
function candidate(name: string, identity: string): Candidate {
  const client = new KubeClient(kc);
  const abort = new AbortController();
  const c: Candidate = { elector: undefined as unknown as LeaderElector, stop: async () => {}, startedAt: 0, stoppedAt: 0 };
  c.elector = new LeaderElector({
    client,
    namespace: NS,
    name,
    identity,
    leaseDurationMs: LEASE,
    renewDeadlineMs: RENEW,
    retryPeriodMs: RETRY,
    onStartedLeading: () => {
      c.startedAt = Date.now();
    },
    onStoppedLeading: () => {
      c.stoppedAt = Date.now();
    },
  });
  const loop = c.elector.run(abort.signal);
  c.stop = async () => {
    abort.abort();
    await loop;
    client.close();
  };
  return c;
}

async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await sleep(2);
}

/** How long a timer of `ms` takes on this loop now. */
async function timer(ms: number): Promise<number> {
  const t0 = Date.now();
  await sleep(ms);
  return Date.now() - t0;
}

/** The Lease as stored, read in-process (HTTP requests may be held by a fault). */
function storedRenewTime(name: string): number {
  return Date.parse((service.get(leases, NS, name) as Lease).spec?.renewTime ?? '');
}

async function pair(name: string): Promise<{ leader: Candidate; standby: Candidate }> {
  const a = candidate(name, 'a');
  const b = candidate(name, 'b');
  await until(() => a.elector.isLeader || b.elector.isLeader);
  return a.elector.isLeader ? { leader: a, standby: b } : { leader: b, standby: a };
}

const crash: Array<{ ms: number; fromRenew: number; base: number }> = [];
for (let i = 0; i < ROUNDS.crash; i++) {
  const { leader, standby } = await pair(`crash-${i}`);
  const at = Date.now();
  const base = timer(LEASE);
  await leader.stop();
  const lastRenewal = storedRenewTime(`crash-${i}`);
  await until(() => standby.elector.isLeader);
  crash.push({ ms: standby.startedAt - at, fromRenew: standby.startedAt - lastRenewal, base: await base });
  await standby.stop();
}

const graceful: Array<{ ms: number; base: number }> = [];
for (let i = 0; i < ROUNDS.graceful; i++) {
  const { leader, standby } = await pair(`graceful-${i}`);
  await leader.stop();
  const at = Date.now();
  const base = timer(RETRY);
  await leader.elector.release();
  await until(() => standby.elector.isLeader);
  graceful.push({ ms: standby.startedAt - at, base: await base });
  await standby.stop();
}

const hang: Array<{ ms: number; base: number }> = [];
for (let i = 0; i < ROUNDS.hang; i++) {
  const name = `hang-${i}`;
  const only = candidate(name, 'only');
  await until(() => only.elector.isLeader);
  const first = storedRenewTime(name);
  await until(() => storedRenewTime(name) !== first);
  // Held longer than the renew deadline, so every renewal from now on times out.
  server.faults.delayNext({ resource: 'leases', name }, { ms: LEASE * 2, count: 1_000_000 });
  const base = timer(LEASE);
  await until(() => !only.elector.isLeader);
  hang.push({ ms: only.stoppedAt - storedRenewTime(name), base: await base });
  await only.stop();
  server.faults.clear();
}

await server.stop();

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)] ?? NaN;
};
const r2 = (x: number): number => Math.round(x * 100) / 100;
const ratios = (xs: Array<{ ms: number; base: number }>): number[] => xs.map((x) => x.ms / x.base);

console.log(`lease ${LEASE} ms, renew deadline ${RENEW} ms, retry ${RETRY} ms`);
for (const x of crash)
  console.log(`crash:    takeover ${x.ms} ms after the crash (${x.fromRenew} ms after the last renewal); lease timer ${x.base} ms`);
for (const x of graceful) console.log(`graceful: takeover ${x.ms} ms after the release; retry timer ${x.base} ms`);
for (const x of hang) console.log(`hang:     stepped down ${x.ms} ms after the last renewal; lease timer ${x.base} ms`);
const crashRatio = r2(median(ratios(crash)));
console.log(
  JSON.stringify({
    bench: 'leader-election',
    lease_ms: LEASE,
    renew_deadline_ms: RENEW,
    retry_ms: RETRY,
    crash_takeover_ms: median(crash.map((x) => x.ms)),
    crash_takeover_after_last_renewal_ms: median(crash.map((x) => x.fromRenew)),
    crash_ratio: crashRatio,
    graceful_takeover_ms: median(graceful.map((x) => x.ms)),
    graceful_ratio: r2(median(ratios(graceful))),
    stepdown_after_last_renewal_ms: median(hang.map((x) => x.ms)),
    stepdown_ratio: r2(median(ratios(hang))),
    ratio: crashRatio,
  }),
);
