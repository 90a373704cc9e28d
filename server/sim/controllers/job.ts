/**
 * Job controller (batch/v1): pods from the template with the Job labels (`batch.kubernetes.io/controller-uid`,
 * `batch.kubernetes.io/job-name`, legacy `controller-uid`, `job-name`) and the tracking finalizer;
 * Indexed completion mode (index annotation + label, hostname `<job>-<i>`, name `<job>-<i>-<rand5>`,
 * `JOB_COMPLETION_INDEX`); parallelism/completions, backoffLimit (restarts count for OnFailure),
 * activeDeadlineSeconds, suspend/resume, ttlSecondsAfterFinished; status active/ready/succeeded/failed/
 * terminating, completedIndexes and the conditions SuccessCriteriaMet → Complete, FailureTarget → Failed,
 * Suspended.
 *
 * Like the real controller, terminal pods are counted once (then their finalizer is removed), so
 * status.succeeded/failed stay right after pods are deleted.
 */

import { bounded } from './limits.ts';
import { ctrlRef, formatIndexes, isPodActive, isPodReady, isPodTerminal, mergeMaps, parseIndexes, podRestarts, setCondition } from './meta.ts';
import { buildPod } from './pods.ts';
import type { Controller, Runtime } from './runtime.ts';
import type { Condition, KubeObject, LabelSelector, Pod, PodTemplateSpec } from './types.ts';

export const JOB_TRACKING = 'batch.kubernetes.io/job-tracking';
export const COMPLETION_INDEX = 'batch.kubernetes.io/job-completion-index';

export interface JobSpec {
  parallelism?: number;
  completions?: number | null;
  completionMode?: 'NonIndexed' | 'Indexed';
  backoffLimit?: number;
  activeDeadlineSeconds?: number;
  ttlSecondsAfterFinished?: number;
  suspend?: boolean;
  selector?: LabelSelector;
  manualSelector?: boolean;
  podReplacementPolicy?: 'Failed' | 'TerminatingOrFailed';
  template: PodTemplateSpec;
}

export interface JobStatus {
  active?: number;
  ready?: number;
  succeeded?: number;
  failed?: number;
  terminating?: number;
  startTime?: string;
  completionTime?: string;
  completedIndexes?: string;
  failedIndexes?: string;
  uncountedTerminatedPods?: Record<string, unknown>;
  conditions?: Condition[];
}

export function jobLabels(job: KubeObject): Record<string, string> {
  return {
    'batch.kubernetes.io/controller-uid': job.metadata.uid!,
    'batch.kubernetes.io/job-name': job.metadata.name!,
    'controller-uid': job.metadata.uid!,
    'job-name': job.metadata.name!,
  };
}

export function isJobFinished(job: KubeObject): 'Complete' | 'Failed' | undefined {
  for (const c of (job.status as JobStatus | undefined)?.conditions ?? []) {
    if (c.status === 'True' && (c.type === 'Complete' || c.type === 'Failed')) return c.type;
  }
  return undefined;
}

export function indexOf(pod: Pod): number | undefined {
  const v = pod.metadata.annotations?.[COMPLETION_INDEX] ?? pod.metadata.labels?.[COMPLETION_INDEX];
  return v === undefined ? undefined : Number(v);
}

export interface JobPlan {
  /** Pods to create: an index for Indexed jobs, null otherwise. */
  create: Array<number | null>;
  /** Active pods to delete (suspend, finish, scale-down). */
  remove: Pod[];
  /** Pods whose tracking finalizer can go (counted, or being deleted). */
  release: Pod[];
  status: JobStatus;
  /** Delete the Job itself (TTL after finished). */
  deleteJob?: boolean;
  recheckMs?: number;
}

function podFinishedAt(p: Pod): number {
  const t = p.status?.containerStatuses?.[0]?.state.terminated?.finishedAt;
  return t ? Date.parse(t) : 0;
}

/** Pure reconcile of a Job against its pods. */
export function planJob(job: KubeObject, pods: Pod[], nowIso: string): JobPlan {
  const spec = job.spec as JobSpec;
  const prev = (job.status ?? {}) as JobStatus;
  const nowMs = Date.parse(nowIso);
  const indexed = spec.completionMode === 'Indexed';
  const parallelism = spec.parallelism ?? 1;
  const completions = spec.completions ?? (indexed ? parallelism : null);
  const backoffLimit = spec.backoffLimit ?? 6;
  const plan: JobPlan = { create: [], remove: [], release: [], status: {} };
  let conditions = prev.conditions ? [...prev.conditions] : [];

  // Count newly finished pods once (those still holding the tracking finalizer).
  let succeeded = prev.succeeded ?? 0;
  let failed = prev.failed ?? 0;
  const done = parseIndexes(prev.completedIndexes);
  for (const p of pods) {
    const tracked = (p.metadata.finalizers ?? []).includes(JOB_TRACKING);
    if (!tracked) continue;
    if (isPodTerminal(p)) {
      if (p.status?.phase === 'Succeeded') {
        const i = indexOf(p);
        if (indexed && i !== undefined) {
          if (!done.has(i)) succeeded++;
          done.add(i);
        } else succeeded++;
      } else failed++;
      plan.release.push(p);
    } else if (p.metadata.deletionTimestamp) {
      // Deleted while running (evicted, kubectl delete): the real controller counts it as failed.
      failed++;
      plan.release.push(p);
    }
  }
  const active = pods.filter(isPodActive);
  const terminating = pods.filter((p) => !!p.metadata.deletionTimestamp && !isPodTerminal(p)).length;
  const restarts = spec.template.spec.restartPolicy === 'OnFailure' ? active.reduce((n, p) => n + podRestarts(p), 0) : 0;
  const finished = isJobFinished(job);

  const status: JobStatus = {};
  let startTime = prev.startTime;
  let completionTime = prev.completionTime;
  let toRemove: Pod[] = [];

  if (finished) {
    toRemove = active;
  } else if (spec.suspend) {
    toRemove = active;
    if (conditions.find((c) => c.type === 'Suspended')?.status !== 'True') {
      conditions = setCondition(conditions, { type: 'Suspended', status: 'True', reason: 'JobSuspended', message: 'Job suspended', lastProbeTime: nowIso }, nowIso);
    }
    startTime = undefined;
  } else {
    if (conditions.find((c) => c.type === 'Suspended')?.status === 'True') {
      conditions = setCondition(conditions, { type: 'Suspended', status: 'False', reason: 'JobResumed', message: 'Job resumed', lastProbeTime: nowIso }, nowIso);
      startTime = nowIso;
    }
    startTime ??= nowIso;
    const failTarget = (reason: string, message: string): void => {
      conditions = setCondition(conditions, { type: 'FailureTarget', status: 'True', reason, message, lastProbeTime: nowIso }, nowIso);
      conditions = setCondition(conditions, { type: 'Failed', status: 'True', reason, message, lastProbeTime: nowIso }, nowIso);
      toRemove = active;
    };
    const deadline = spec.activeDeadlineSeconds;
    const complete = indexed
      ? completions !== null && done.size >= completions
      : completions !== null
        ? succeeded >= completions
        : succeeded > 0 && active.length === 0;
    if (complete) {
      conditions = setCondition(conditions, { type: 'SuccessCriteriaMet', status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods', lastProbeTime: nowIso }, nowIso);
      conditions = setCondition(conditions, { type: 'Complete', status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods', lastProbeTime: nowIso }, nowIso);
      completionTime = nowIso;
      toRemove = active;
    } else if (failed + restarts > backoffLimit) {
      failTarget('BackoffLimitExceeded', 'Job has reached the specified backoff limit');
    } else if (deadline !== undefined && nowMs - Date.parse(startTime) >= deadline * 1000) {
      failTarget('DeadlineExceeded', 'Job was active longer than specified deadline');
    } else {
      if (deadline !== undefined) plan.recheckMs = Date.parse(startTime) + deadline * 1000 - nowMs + 1;
      // Replacement pods wait out the failure back-off (10 s doubling, capped at 6 min).
      let backoffLeft = 0;
      if (failed > 0) {
        const last = Math.max(0, ...pods.filter((p) => p.status?.phase === 'Failed').map(podFinishedAt));
        if (last > 0) backoffLeft = last + Math.min(10_000 * 2 ** (failed - 1), 360_000) - nowMs;
      }
      if (backoffLeft > 0) plan.recheckMs = Math.min(plan.recheckMs ?? Infinity, backoffLeft);
      else if (indexed) {
        const running = new Set(active.map(indexOf));
        const missing: number[] = [];
        const room = Math.max(0, bounded(parallelism) - active.length);
        // Only as many missing indexes as may start now are looked for (completions can be huge).
        for (let i = 0; i < (completions ?? 0) && missing.length < room; i++) if (!done.has(i) && !running.has(i)) missing.push(i);
        plan.create.push(...missing.slice(0, room));
        if (active.length > parallelism) toRemove = [...active].sort((a, b) => (indexOf(b) ?? 0) - (indexOf(a) ?? 0)).slice(0, active.length - parallelism);
      } else {
        const remaining = completions === null ? (succeeded > 0 ? 0 : parallelism) : completions - succeeded;
        const want = bounded(Math.min(parallelism, Math.max(0, remaining)));
        for (let i = active.length; i < want; i++) plan.create.push(null);
        if (active.length > want) toRemove = active.slice(want);
      }
    }
  }
  if (spec.ttlSecondsAfterFinished !== undefined && (finished || conditions.some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True'))) {
    const fin = conditions.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
    const at = Date.parse(fin?.lastTransitionTime ?? nowIso) + spec.ttlSecondsAfterFinished * 1000;
    if (at <= nowMs) plan.deleteJob = true;
    else plan.recheckMs = at - nowMs;
  }
  if (!completionTime && conditions.some((c) => c.type === 'Complete' && c.status === 'True')) completionTime = nowIso;

  plan.remove = toRemove;
  const removing = new Set(toRemove);
  const stillActive = active.filter((p) => !removing.has(p));
  if (conditions.length > 0) status.conditions = conditions;
  if (startTime) status.startTime = startTime;
  if (completionTime) status.completionTime = completionTime;
  if (stillActive.length > 0) status.active = stillActive.length;
  if (succeeded > 0) status.succeeded = succeeded;
  if (failed > 0) status.failed = failed;
  if (indexed && done.size > 0) status.completedIndexes = formatIndexes(done);
  status.terminating = terminating;
  status.uncountedTerminatedPods = {};
  status.ready = stillActive.filter(isPodReady).length;
  plan.status = status;
  return plan;
}

/** The pod a Job creates for a (possibly absent) completion index. */
export function jobPod(job: KubeObject, index: number | null): Pod {
  const spec = job.spec as JobSpec;
  const name = job.metadata.name!;
  const idx = index === null ? undefined : String(index);
  return buildPod({
    namespace: job.metadata.namespace!,
    generateName: idx === undefined ? `${name}-` : `${name}-${idx}-`,
    template: spec.template,
    labels: mergeMaps(jobLabels(job), idx === undefined ? undefined : { [COMPLETION_INDEX]: idx }),
    annotations: idx === undefined ? undefined : { [COMPLETION_INDEX]: idx },
    ownerRef: ctrlRef(job),
    finalizers: [JOB_TRACKING],
    ...(idx === undefined ? {} : { hostname: `${name}-${idx}` }),
    ...(idx === undefined ? {} : { env: [{ name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { fieldPath: `metadata.labels['${COMPLETION_INDEX}']` } } }] }),
  });
}

export class JobController implements Controller {
  readonly name = 'job';
  readonly primary = 'batch/Job';
  readonly priority = 1;
  readonly owns = ['/Pod'];
  reconcile(rt: Runtime, ns: string, name: string): void {
    let job = rt.get('batch/v1', 'Job', ns, name);
    if (!job || job.metadata.deletionTimestamp) return;
    job = this.defaultSelector(rt, job);
    const pods = rt.children<Pod>(job, '/Pod');
    const plan = planJob(job, pods, rt.now());
    // Status first (counts include the pods about to be released), then side effects.
    job = rt.setStatus(job, plan.status);
    for (const p of plan.release) releaseFinalizer(rt, p);
    for (const p of plan.remove) {
      releaseFinalizer(rt, p);
      rt.delete(p);
    }
    for (const idx of plan.create) rt.createPod(jobPod(job, idx));
    if (plan.deleteJob) {
      rt.delete(job);
      return;
    }
    if (plan.recheckMs) rt.after(this, ns, name, plan.recheckMs);
  }

  /** What the API server's Job strategy does on create: selector on the controller uid, labels on the template. */
  private defaultSelector(rt: Runtime, job: KubeObject): KubeObject {
    const spec = job.spec as JobSpec;
    if (spec.manualSelector || spec.selector?.matchLabels?.['batch.kubernetes.io/controller-uid']) return job;
    const labels = mergeMaps(spec.template.metadata?.labels, jobLabels(job));
    return rt.update({
      ...job,
      spec: {
        ...spec,
        selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': job.metadata.uid! } },
        template: { ...spec.template, metadata: { ...(spec.template.metadata ?? {}), labels } },
      },
    });
  }
}

function releaseFinalizer(rt: Runtime, pod: Pod): void {
  const cur = rt.get<Pod>('v1', 'Pod', pod.metadata.namespace, pod.metadata.name!);
  if (!cur || cur.metadata.uid !== pod.metadata.uid) return;
  const fins = cur.metadata.finalizers ?? [];
  if (!fins.includes(JOB_TRACKING)) return;
  const rest = fins.filter((f) => f !== JOB_TRACKING);
  const meta = { ...cur.metadata };
  if (rest.length > 0) meta.finalizers = rest;
  else delete meta.finalizers;
  rt.update({ ...cur, metadata: meta });
}

/**
 * Pods whose Job is gone (garbage collection marks them for deletion) still hold the tracking finalizer;
 * the real Job controller removes it so the deletion can complete. Not a reconciler of any stored kind:
 * it is fed by a watch on pods.
 */
export class JobPodFinalizerController implements Controller {
  readonly name = 'job-pod-finalizer';
  readonly primary = 'sim.workload-map.io/JobPodFinalizer';
  readonly priority = 1;
  readonly watches = [
    {
      gk: '/Pod',
      map: (obj: KubeObject, rt: Runtime): Array<[string, string]> => {
        const pod = obj as Pod;
        if (!pod.metadata.finalizers?.includes(JOB_TRACKING)) return [];
        const owner = pod.metadata.ownerReferences?.find((r) => r.kind === 'Job');
        if (owner && !pod.metadata.deletionTimestamp && rt.get('batch/v1', 'Job', pod.metadata.namespace, owner.name)?.metadata.uid === owner.uid) return [];
        return [[pod.metadata.namespace ?? '', pod.metadata.name!]];
      },
    },
  ];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const pod = rt.get<Pod>('v1', 'Pod', ns, name);
    if (!pod) return;
    const owner = pod.metadata.ownerReferences?.find((r) => r.kind === 'Job');
    const job = owner ? rt.get('batch/v1', 'Job', ns, owner.name) : undefined;
    if (job && job.metadata.uid === owner!.uid) {
      // The Job is alive: it counts the pod itself (a deleted running pod counts as failed).
      rt.enqueue('job', ns, job.metadata.name!);
      return;
    }
    releaseFinalizer(rt, pod);
  }
}
