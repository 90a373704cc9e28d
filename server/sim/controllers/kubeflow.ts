/**
 * The status conventions shared by the Kubeflow training operators (training-operator v1 PyTorchJob and
 * mpi-operator v2beta1 MPIJob): conditions with lastUpdateTime, Running and Restarting replacing each
 * other, Running flipping to False on Succeeded/Failed, and no change once Failed.
 */

import type { Condition } from './types.ts';

export interface ReplicaStatus {
  active?: number;
  succeeded?: number;
  failed?: number;
  selector?: string;
}

export interface KubeflowJobStatus {
  conditions?: Condition[];
  replicaStatuses?: Record<string, ReplicaStatus>;
  startTime?: string;
  completionTime?: string;
  lastReconcileTime?: string;
}

export function hasCondition(conds: Condition[] | undefined, type: string): boolean {
  return !!conds?.some((c) => c.type === type && c.status === 'True');
}

/** Sets a kubeflow job condition, applying the operator's replacement rules; returns a new list. */
export function setJobCondition(list: Condition[] | undefined, type: string, status: 'True' | 'False', reason: string, message: string, now: string): Condition[] {
  let conds = [...(list ?? [])];
  if (hasCondition(conds, 'Failed') && type !== 'Failed') return conds;
  const flip = (t: string, r: string, m: string): void => {
    const i = conds.findIndex((c) => c.type === t);
    if (i >= 0 && conds[i].status === 'True') conds[i] = { ...conds[i], status: 'False', reason: r, message: m, lastUpdateTime: now, lastTransitionTime: now };
  };
  if (status === 'True') {
    if (type === 'Running') conds = conds.filter((c) => c.type !== 'Restarting');
    if (type === 'Restarting') conds = conds.filter((c) => c.type !== 'Running');
    if (type === 'Succeeded' || type === 'Failed' || type === 'Suspended') flip('Running', reason, message);
  }
  const i = conds.findIndex((c) => c.type === type);
  const prev = i >= 0 ? conds[i] : undefined;
  if (prev && prev.status === status && prev.reason === reason && prev.message === message) return conds;
  const next: Condition = {
    type,
    status,
    reason,
    message,
    lastUpdateTime: now,
    lastTransitionTime: prev && prev.status === status ? prev.lastTransitionTime ?? now : now,
  };
  if (i >= 0) conds[i] = next;
  else conds.push(next);
  return conds;
}
