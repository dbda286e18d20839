// The controllers the operator runs. Add a controller by importing its factory and listing it
// here (see docs/runtime.md); the manager shares informers between all of them.
import type { ControllerFactory } from '../runtime/controller.ts';
import { clusterController } from './cluster/controller.ts';
import { nodeControllerFactory } from './node/node-controller.ts';

export const controllers: ControllerFactory[] = [clusterController, nodeControllerFactory];
