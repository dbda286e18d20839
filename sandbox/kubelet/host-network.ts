// What the kubelet needs from the pod network (sandbox/network/ implements it with a bridge and a
// network namespace per pod), and the host network: what Kubernetes gives `hostNetwork: true`
// pods (the node's address, no namespace of their own, the node's /etc/hosts).

export interface PodNetworkAttachment {
  ip: string;
  /** For `ip netns exec`; `''`: the host's network namespace. */
  netns: string;
  /** Bind-mounted over the container's /etc/hosts; `/etc/hosts` itself: nothing to mount. */
  hostsFile: string;
}

export interface PodNetwork {
  attach(pod: { uid: string; namespace: string; name: string; hostname: string; subdomain?: string }): Promise<PodNetworkAttachment>;
  detach(uid: string): Promise<void>;
}

export const HOST_HOSTS_FILE = '/etc/hosts';

export function hostNetwork(nodeIP = '127.0.0.1'): PodNetwork {
  return {
    attach: () => Promise.resolve({ ip: nodeIP, netns: '', hostsFile: HOST_HOSTS_FILE }),
    detach: () => Promise.resolve(),
  };
}
