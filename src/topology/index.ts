// Topology: what the servers of a cluster say about themselves, which one is the master, and a
// connection to it. Shared by every controller that talks to servers (docs/topology.md). Imports
// src/api, src/mysql and the kube object types of src/runtime; never a controller.
export * from './server-view.ts';
export * from './pod-view.ts';
export * from './cluster-view.ts';
export * from './operated-credentials.ts';
export * from './observe-server.ts';
export * from './pass-servers.ts';
export * from './choose-master.ts';
export * from './connect-to-master.ts';
