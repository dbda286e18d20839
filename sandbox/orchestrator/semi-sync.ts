// What Orchestrator 3.2.6 does with semi-sync when DetectSemiSyncEnforcedQuery is set
// (docs/semi-sync.md; read from its source: inst/instance_dao.go, instance_topology_dao.go).
// It runs the query on each server it reads and keeps the answer as the server's semi-sync
// priority. For a server with priority above 0:
// - before it makes the server writable (set-writeable, the promotion of a failover), it turns the
//   master side on (SetSemiSyncMaster), and only that;
// - before it starts replication on it (a repointed replica, the old master), it turns the master
//   side off (MaybeDisableSemiSyncMaster) and the replica side on (MaybeEnableSemiSyncReplica; with
//   RecoverLockedSemiSyncMaster on MariaDB, which has no wait count, every promotable replica).
// Without the query, or where it fails (3.2.6 only logs it), nothing happens.
import type { MysqlNode } from '../../src/mysql/index.ts';

async function priority(n: MysqlNode, query: string): Promise<number> {
  if (query === '') return 0;
  try {
    const [v] = await n.firstRowOf(query);
    const p = Number(v ?? 0);
    return Number.isFinite(p) ? p : 0;
  } catch {
    return 0;
  }
}

/** Before a server is made writable. */
export async function semiSyncBeforeWritable(n: MysqlNode, detectQuery: string): Promise<void> {
  if ((await priority(n, detectQuery)) <= 0) return;
  const s = await n.semiSyncState();
  if (s.masterEnabled) return;
  await n.setSemiSync({ master: true, replica: s.replicaEnabled, acks: s.acks ?? 1, timeoutMs: timeoutOf(s.timeoutMs) });
}

/** Before replication is started on a server. */
export async function semiSyncBeforeReplication(n: MysqlNode, detectQuery: string): Promise<void> {
  if ((await priority(n, detectQuery)) <= 0) return;
  const s = await n.semiSyncState();
  if (!s.masterEnabled && s.replicaEnabled) return;
  await n.setSemiSync({ master: false, replica: true, acks: s.acks ?? 1, timeoutMs: timeoutOf(s.timeoutMs) });
}

/** The timeout the server has, kept as it is (undefined: the flavour's longest, which it then has). */
function timeoutOf(ms: bigint | undefined): number | undefined {
  return ms === undefined || ms > BigInt(Number.MAX_SAFE_INTEGER) ? undefined : Number(ms);
}
