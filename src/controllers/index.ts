// The controllers the operator runs. Add a controller by importing its definition (settings,
// permissions, build) and listing it here (see docs/runtime.md); the manager shares informers
// between all of them, and `--help`, docs/flags.md and chart/rbac/rules.yaml come from this list.
import type { ControllerDefinition } from '../runtime/controller.ts';
import { backupControllerDefinition } from './backup/controller.ts';
import { backupCronControllerDefinition } from './backupcron/controller.ts';
import { clusterControllerDefinition } from './cluster/controller.ts';
import { databaseControllerDefinition } from './database/controller.ts';
import { nodeControllerDefinition } from './mysql-node/controller.ts';
import { orchestratorControllerDefinition } from './orchestrator-controller/controller.ts';
import { pitrControllerDefinition } from './pitr/controller.ts';
import { restoreControllerDefinition } from './restore/controller.ts';
import { userControllerDefinition } from './user/controller.ts';

export const controllers: readonly ControllerDefinition[] = [
  clusterControllerDefinition,
  nodeControllerDefinition,
  backupControllerDefinition,
  backupCronControllerDefinition,
  restoreControllerDefinition,
  pitrControllerDefinition,
  orchestratorControllerDefinition,
  databaseControllerDefinition,
  userControllerDefinition,
];
