// The kubelet's Node object and its heartbeat: the Node is registered with a Ready condition, its
// addresses, capacity and the port its logs are served on (daemonEndpoints, where the API server
// finds the kubelet, as the real one does); a Lease in kube-node-lease is renewed every
// `heartbeatMs` and the Ready condition's heartbeat time with it.
import os from 'node:os';
import { statfsSync } from 'node:fs';
import type { KubeClient } from '../../src/runtime/kube/client.ts';
import { AlreadyExistsError } from '../../src/runtime/kube/errors.ts';
import { now } from './status.ts';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

export interface NodeFacts {
  name: string;
  ip: string;
  logPort: number;
  capacity: Record<string, string>;
}

/** This machine's capacity in the units the kubelet reports. */
export function machineCapacity(dir: string): Record<string, string> {
  const fs = statfsSync(dir);
  return {
    cpu: String(os.availableParallelism()),
    memory: `${Math.floor(os.totalmem() / 1024)}Ki`,
    'ephemeral-storage': `${Math.floor((fs.blocks * fs.bsize) / 1024)}Ki`,
    pods: '110',
  };
}

function readyCondition(heartbeat: string, since: string): Record<string, unknown> {
  return {
    type: 'Ready',
    status: 'True',
    reason: 'KubeletReady',
    message: 'kubelet is posting ready status (sandbox kubelet)',
    lastHeartbeatTime: heartbeat,
    lastTransitionTime: since,
  };
}

export function nodeStatus(f: NodeFacts, heartbeat: string, since: string): Record<string, unknown> {
  return {
    capacity: f.capacity,
    allocatable: f.capacity,
    conditions: [readyCondition(heartbeat, since)],
    addresses: [
      { type: 'InternalIP', address: f.ip },
      { type: 'Hostname', address: f.name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: f.logPort } },
    nodeInfo: {
      machineID: '',
      systemUUID: '',
      bootID: '',
      kernelVersion: os.release(),
      osImage: 'sandbox (local processes)',
      containerRuntimeVersion: 'sandbox://0.1',
      kubeletVersion: 'v1.26.1-sandbox',
      kubeProxyVersion: 'v1.26.1-sandbox',
      operatingSystem: 'linux',
      architecture: process.arch === 'x64' ? 'amd64' : process.arch,
    },
  };
}

export class NodeRegistration {
  readonly #client: KubeClient;
  readonly #facts: NodeFacts;
  readonly #since = now();

  constructor(client: KubeClient, facts: NodeFacts) {
    this.#client = client;
    this.#facts = facts;
  }

  async register(): Promise<void> {
    const f = this.#facts;
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: f.name, labels: { 'kubernetes.io/hostname': f.name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64' } },
      spec: {},
    };
    try {
      await this.#client.create(node);
    } catch (e) {
      if (!(e instanceof AlreadyExistsError)) throw e;
    }
    await this.heartbeat();
  }

  async heartbeat(): Promise<void> {
    const f = this.#facts;
    const t = now();
    await this.#client.patchStatus(
      { apiVersion: 'v1', kind: 'Node', name: f.name },
      { status: nodeStatus(f, t, this.#since) },
      'strategic',
    );
    await this.#renewLease(t);
  }

  async #renewLease(t: string): Promise<void> {
    const ref = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: NODE_LEASE_NAMESPACE, name: this.#facts.name };
    const renewTime = t.replace('Z', '.000000Z');
    const spec = { holderIdentity: this.#facts.name, leaseDurationSeconds: 40, renewTime };
    const cur = await this.#client.getIfExists(ref);
    if (cur) {
      await this.#client.patch(ref, { spec });
      return;
    }
    try {
      await this.#client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NODE_LEASE_NAMESPACE } });
    } catch (e) {
      if (!(e instanceof AlreadyExistsError)) throw e;
    }
    await this.#client.create({
      apiVersion: ref.apiVersion,
      kind: ref.kind,
      metadata: { name: ref.name, namespace: ref.namespace },
      spec,
    });
  }

  async unregister(): Promise<void> {
    await this.#client
      .delete({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: NODE_LEASE_NAMESPACE, name: this.#facts.name })
      .catch(() => false);
    await this.#client.delete({ apiVersion: 'v1', kind: 'Node', name: this.#facts.name }).catch(() => false);
  }
}
