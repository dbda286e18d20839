// Where a pod's data comes from (docs/compatibility.md "Clone order"). Pure: the caller gathers whether data
// exists and which peer sidecars answer /health, this decides, the caller acts.

export interface CloneFacts {
  dataExists: boolean;
  ordinal: number;
  replicasHealthy: boolean;
  masterHealthy: boolean;
  initBucketUri: string | undefined;
  sources: { replicas: string; master: string };
}

export type CloneDecision =
  | { action: 'keep' }
  | { action: 'clone'; from: 'replicas' | 'master'; url: string }
  | { action: 'restore'; url: string }
  | { action: 'empty' }
  | { action: 'fail'; reason: string };

export function decideCloneSource(f: CloneFacts): CloneDecision {
  if (f.dataExists) return { action: 'keep' };
  if (f.replicasHealthy) return { action: 'clone', from: 'replicas', url: f.sources.replicas };
  if (f.masterHealthy) return { action: 'clone', from: 'master', url: f.sources.master };
  if (f.ordinal === 0 && f.initBucketUri !== undefined) return { action: 'restore', url: f.initBucketUri };
  if (f.ordinal === 0) return { action: 'empty' };
  return {
    action: 'fail',
    reason:
      `nothing to clone from: no data in the data directory, neither ${f.sources.replicas} nor ` +
      `${f.sources.master} answers /health, and only pod 0 may start empty or from INIT_BUCKET_URI`,
  };
}
