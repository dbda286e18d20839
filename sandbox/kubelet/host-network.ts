// The host network: what Kubernetes gives `hostNetwork: true` pods (the node's address, no
// namespace of their own, the node's /etc/hosts), behind the pod network's interface
// (sandbox/network/pods.ts), which gives every other pod a namespace and address of its own.
import type { PodNetwork } from '../network/pods.ts';

export type { PodNetwork, PodNetworkAttachment } from '../network/pods.ts';

/** The hosts file a host-network pod keeps: nothing is mounted over it. */
export const HOST_HOSTS_FILE = '/etc/hosts';
/** Where a pod with a network of its own gets the pod network's resolver (RESOLV_CONF). */
export const RESOLV_CONF_PATH = '/etc/resolv.conf';

export function hostNetwork(nodeIP = '127.0.0.1'): PodNetwork {
  return {
    // `''`: no namespace to enter (the launch stays in the host's).
    attach: () => Promise.resolve({ ip: nodeIP, netns: '', hostsFile: HOST_HOSTS_FILE }),
    detach: () => Promise.resolve(),
  };
}
