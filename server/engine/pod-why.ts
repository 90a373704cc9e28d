/**
 * Why a pod is not running and ready, in the cluster's own words: the scheduler's PodScheduled
 * condition, a container's waiting or termination state, the pod's status reason. Pure; reads only
 * what the API server reports (kubectl describe reads the same fields).
 */
import type { PodWhy } from '../../contract/tree.ts';
import { isRecord, meta, podNode, podPhase, type KubeObject } from './k8s.ts';

type Rec = Record<string, unknown>;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const records = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter(isRecord) : []);

function condition(status: Rec, type: string): Rec | undefined {
  return records(status.conditions).find((c) => c.type === type);
}

/** A container's termination as people read it: `OOMKilled (exit 137)`. */
function terminationText(t: Rec): string {
  const reason = str(t.reason) || 'Terminated';
  return typeof t.exitCode === 'number' ? `${reason} (exit ${t.exitCode})` : reason;
}

function failedWhy(pod: KubeObject, status: Rec): PodWhy {
  // A failed container says more than the pod's phase: the first one that exited non-zero.
  for (const cs of [...records(status.initContainerStatuses), ...records(status.containerStatuses)]) {
    const t = isRecord(cs.state) && isRecord(cs.state.terminated) ? cs.state.terminated : null;
    if (!t || t.exitCode === 0) continue;
    const name = str(cs.name);
    const msg = str(t.message).trim();
    return {
      kind: 'failed',
      reason: str(t.reason) || 'Error',
      message: `container ${name} ended: ${terminationText(t)}${msg ? `: ${msg}` : ''}`,
      container: name,
      ...(typeof t.exitCode === 'number' ? { exitCode: t.exitCode } : {}),
    };
  }
  return { kind: 'failed', reason: str(status.reason) || 'Failed', message: str(status.message).trim() || `pod ${str(meta(pod).name)} failed` };
}

function unboundWhy(pod: KubeObject, status: Rec): PodWhy {
  const scheduled = condition(status, 'PodScheduled');
  const gates = isRecord(pod.spec) ? records(pod.spec.schedulingGates).map((g) => str(g.name)).filter(Boolean) : [];
  if (scheduled && scheduled.status === 'False') {
    const reason = str(scheduled.reason) || 'Unschedulable';
    const gated = reason === 'SchedulingGated';
    const message = str(scheduled.message).trim() || (gated && gates.length ? `waiting for scheduling gates: ${gates.join(', ')}` : reason);
    return { kind: gated ? 'gated' : 'unschedulable', reason, message };
  }
  if (gates.length) return { kind: 'gated', reason: 'SchedulingGated', message: `waiting for scheduling gates: ${gates.join(', ')}` };
  const scheduler = isRecord(pod.spec) ? str(pod.spec.schedulerName) : '';
  return { kind: 'unscheduled', reason: 'Unscheduled', message: `waiting for ${scheduler && scheduler !== 'default-scheduler' ? scheduler : 'the scheduler'} to place it` };
}

/** The first container (init containers first, as they run first) that is waiting, with its last termination. */
function waitingWhy(status: Rec): PodWhy | null {
  for (const cs of [...records(status.initContainerStatuses), ...records(status.containerStatuses)]) {
    const w = isRecord(cs.state) && isRecord(cs.state.waiting) ? cs.state.waiting : null;
    if (!w) continue;
    const name = str(cs.name);
    const reason = str(w.reason) || 'Waiting';
    const last = isRecord(cs.lastState) && isRecord(cs.lastState.terminated) ? cs.lastState.terminated : null;
    const msg = str(w.message).trim();
    const lastText = last ? ` (last: ${terminationText(last)})` : '';
    return {
      kind: 'waiting',
      reason,
      message: `container ${name}: ${reason}${msg ? `: ${msg}` : ''}${lastText}`,
      container: name,
      ...(last && typeof last.exitCode === 'number' ? { exitCode: last.exitCode } : {}),
    };
  }
  return null;
}

/** Null when the pod runs and is ready, or finished successfully: nothing to explain. */
export function podWhy(pod: KubeObject): PodWhy | null {
  const phase = podPhase(pod);
  if (phase === 'Succeeded') return null;
  const status: Rec = isRecord(pod.status) ? pod.status : {};
  if (phase === 'Failed') return failedWhy(pod, status);
  if (!podNode(pod)) return unboundWhy(pod, status);
  const waiting = waitingWhy(status);
  if (waiting) return waiting;
  const ready = condition(status, 'Ready');
  if (ready?.status === 'True') return null;
  if (phase === 'Pending') return { kind: 'waiting', reason: 'ContainerCreating', message: 'containers are being created' };
  if (typeof meta(pod).deletionTimestamp === 'string') return { kind: 'unready', reason: 'Terminating', message: 'being deleted' };
  return {
    kind: 'unready',
    reason: str(ready?.reason) || 'NotReady',
    message: str(ready?.message).trim() || 'readiness has not passed yet',
  };
}

/** The pod's controller: the ownerReference with `controller: true`. */
export function podController(pod: KubeObject): { kind: string; name: string } | null {
  for (const r of records(meta(pod).ownerReferences)) {
    if (r.controller === true && typeof r.kind === 'string' && typeof r.name === 'string') return { kind: r.kind, name: r.name };
  }
  return null;
}
