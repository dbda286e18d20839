// The sandbox has no storage provisioner, so this stands in for the persistent volume controller
// with a hostPath provisioner, and for the PVC protection controller: a claim gets its own
// PersistentVolume `pvc-<claim uid>` whose `spec.hostPath.path` is `<workDir>/volumes/<namespace>/<claim>`
// (the directory the kubelet mounts), and both are marked Bound. A volume whose claim is gone (or
// was recreated under the same name) is reclaimed: with the Delete policy its directory and the
// PersistentVolume are removed, with Retain it is marked Released. A claim being deleted keeps its
// `kubernetes.io/pvc-protection` finalizer while a pod that has not finished uses it.
import { join } from 'node:path';
import type { V1PersistentVolume, V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { ANNOTATION, FINALIZER_PVC_PROTECTION } from './kinds.ts';

export interface ClaimState {
  namespace: string;
  name: string;
  claim: V1PersistentVolumeClaim | undefined;
  /** Volumes whose claimRef names this namespace/name (any uid). */
  volumes: V1PersistentVolume[];
  /** A pod that has not finished mounts the claim. */
  inUse: boolean;
  workDir: string;
}

export type VolumeAction =
  | { type: 'reclaim'; volume: string; directory: string | undefined }
  | { type: 'release'; volume: string }
  | { type: 'unprotect'; finalizers: string[] }
  | { type: 'createVolume'; volume: V1PersistentVolume; directory: string }
  | { type: 'volumeBound'; volume: string }
  | { type: 'bindClaim'; volume: string }
  | { type: 'claimBound'; status: NonNullable<V1PersistentVolumeClaim['status']> };

export function volumesRoot(workDir: string): string {
  return join(workDir, 'volumes');
}

/** Where the claim's data lives: the convention the kubelet shares (docs/sandbox-workloads.md). */
export function claimDirectory(workDir: string, namespace: string, claim: string): string {
  return join(volumesRoot(workDir), namespace, claim);
}

export function decideVolumes(s: ClaimState): VolumeAction[] {
  const actions: VolumeAction[] = [];
  const uid = s.claim?.metadata?.uid;
  const root = `${volumesRoot(s.workDir)}/`;
  for (const v of s.volumes) {
    if (v.spec?.claimRef?.uid === uid) continue;
    if ((v.spec?.persistentVolumeReclaimPolicy ?? 'Delete') === 'Delete') {
      const path = v.spec?.hostPath?.path;
      // Only directories this binder made are removed.
      actions.push({ type: 'reclaim', volume: v.metadata!.name!, directory: path?.startsWith(root) ? path : undefined });
    } else if (v.status?.phase !== 'Released') {
      actions.push({ type: 'release', volume: v.metadata!.name! });
    }
  }
  const claim = s.claim;
  if (!claim) return actions;
  if (claim.metadata?.deletionTimestamp) {
    const fins = claim.metadata.finalizers ?? [];
    if (fins.includes(FINALIZER_PVC_PROTECTION) && !s.inUse)
      actions.push({ type: 'unprotect', finalizers: fins.filter((f) => f !== FINALIZER_PVC_PROTECTION) });
    return actions;
  }
  const mine = s.volumes.find((v) => v.spec?.claimRef?.uid === uid);
  const name = mine?.metadata?.name ?? `pvc-${uid}`;
  if (!mine) {
    const directory = claimDirectory(s.workDir, s.namespace, s.name);
    actions.push({ type: 'createVolume', volume: volumeFor(claim, name, directory), directory }, { type: 'volumeBound', volume: name });
  } else if (mine.status?.phase !== 'Bound') {
    actions.push({ type: 'volumeBound', volume: name });
  }
  if (!claim.spec?.volumeName) actions.push({ type: 'bindClaim', volume: name });
  if (claim.status?.phase !== 'Bound') {
    actions.push({
      type: 'claimBound',
      status: { phase: 'Bound', accessModes: claim.spec?.accessModes ?? ['ReadWriteOnce'], capacity: { storage: requestOf(claim) } },
    });
  }
  return actions;
}

function requestOf(claim: V1PersistentVolumeClaim): string {
  return String(claim.spec?.resources?.requests?.storage ?? '1Gi');
}

function volumeFor(claim: V1PersistentVolumeClaim, name: string, directory: string): V1PersistentVolume {
  const spec = claim.spec ?? {};
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, annotations: { [ANNOTATION.boundByController]: 'yes' } },
    spec: {
      capacity: { storage: requestOf(claim) },
      accessModes: spec.accessModes ?? ['ReadWriteOnce'],
      hostPath: { path: directory, type: 'DirectoryOrCreate' },
      persistentVolumeReclaimPolicy: 'Delete',
      claimRef: {
        kind: 'PersistentVolumeClaim',
        apiVersion: 'v1',
        namespace: claim.metadata!.namespace!,
        name: claim.metadata!.name!,
        uid: claim.metadata!.uid!,
      },
      ...(spec.storageClassName ? { storageClassName: spec.storageClassName } : {}),
      volumeMode: spec.volumeMode ?? 'Filesystem',
    },
  };
}
