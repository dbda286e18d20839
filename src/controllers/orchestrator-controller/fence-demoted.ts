// The fence on demotion (docs/fencing.md): once a server is no longer the master (Orchestrator
// made it read-only for this controller, or role=master moved off its pod) its client sessions
// are killed, so a session opened before the demotion cannot go on writing or commit an open
// transaction. read_only (MariaDB 10.11 with no client holding READ_ONLY ADMIN, MySQL with
// super_read_only) refuses every new write; a server still writable is left alone and reported.
import { LABEL_ROLE, ORCHESTRATOR_REASONS, ROLE } from '../../api/constants.ts';
import type { ControllerContext } from '../../runtime/controller.ts';
import type { KubeObject } from '../../runtime/kube/types.ts';
import type { PassServers, PodView } from '../../topology/index.ts';
import type { LabelPatch } from './decide-labels.ts';

/** The pods a round of label patches takes role=master from. Pure. */
export function demotedByLabels(roleBefore: (pod: string) => string | undefined, patches: readonly LabelPatch[]): string[] {
  return patches.filter((p) => roleBefore(p.pod) === ROLE.master && p.labels[LABEL_ROLE] !== ROLE.master).map((p) => p.pod);
}

/**
 * Kills the client sessions of each pod's server. Never throws: a server that does not answer
 * takes no writes either, and the next demotion or pass tries again; what was done or not done is
 * an Event.
 */
export async function fenceDemoted(
  ctx: ControllerContext,
  cluster: KubeObject,
  servers: PassServers,
  pods: readonly PodView[],
): Promise<void> {
  await Promise.all(
    pods
      .filter((p) => p.mysqlRunning)
      .map(async (pod) => {
        try {
          const done = await servers.killClientSessions(pod.endpoint);
          if (!done.readOnly) {
            ctx.events.warning(
              cluster,
              ORCHESTRATOR_REASONS.fenceIncomplete,
              `${pod.name} is no longer the master but its server is writable: its client sessions were not killed`,
            );
          } else if (done.killed.length > 0) {
            const users = [...new Set(done.killed)].sort().join(', ');
            ctx.events.normal(
              cluster,
              ORCHESTRATOR_REASONS.clientSessionsKilled,
              `${done.killed.length} client session(s) of the demoted ${pod.name} killed (accounts ${users})`,
            );
          }
        } catch (e) {
          ctx.events.warning(
            cluster,
            ORCHESTRATOR_REASONS.fenceIncomplete,
            `the client sessions of the demoted ${pod.name} were not killed: ${(e as Error).message}`,
          );
        }
      }),
  );
}
