/**
 * Kubeflow Trainer v2 (trainer.kubeflow.org/v1alpha1): the TrainJob controller. It resolves the
 * runtime the TrainJob references (a ClusterTrainingRuntime by default, or a TrainingRuntime of its
 * namespace), keeps a snapshot of it in a ConfigMap `<trainjob>-runtime-snapshot` so later changes to
 * the runtime do not change a running job, and creates the JobSet `<trainjob>` (trainjob-jobset.ts)
 * that the JobSet controller turns into Jobs and pods. The JobSet is re-applied only while the TrainJob
 * or the JobSet is suspended (that is how suspend and resume reach it). Status: the Suspended condition
 * (reasons Suspended / Resumed), Complete and Failed copied from the JobSet's Completed and Failed,
 * jobsStatus mirrored from its replicatedJobsStatus, Failed with TrainingRuntimeNotSupported for a
 * runtimeRef of another kind and DeadlineExceeded (the JobSet deleted) past activeDeadlineSeconds.
 * A missing runtime is an event (TrainJobResourcesCreationFailed) and a retry when it appears.
 */

import { parse, stringify } from 'yaml';
import type { JobSetStatus } from './jobset.ts';
import { ctrlRef, getCondition, isConditionTrue, removeCondition, setCondition } from './meta.ts';
import type { Controller, Runtime } from './runtime.ts';
import { TRAINER_API, TRAINER_GROUP, trainJobJobSet } from './trainjob-jobset.ts';
import type { TrainingRuntimeSpec, TrainJobSpec } from './trainjob-jobset.ts';
import type { Condition, KubeObject } from './types.ts';

export interface TrainJobStatus {
  conditions?: Condition[];
  jobsStatus?: Array<{ name: string; ready: number; succeeded: number; failed: number; active: number; suspended: number }>;
}

/** The runtime a TrainJob names: kind and group default as the CRD defaults them. */
export function runtimeRefOf(tj: KubeObject): { name: string; kind: string; apiGroup: string } {
  const ref = (tj.spec as TrainJobSpec).runtimeRef;
  return { name: ref.name, kind: ref.kind ?? 'ClusterTrainingRuntime', apiGroup: ref.apiGroup ?? TRAINER_GROUP };
}

export function isTrainJobFinished(tj: KubeObject): boolean {
  return isConditionTrue(tj, 'Complete') || isConditionTrue(tj, 'Failed');
}

export interface TrainJobInputs {
  /** The runtime's spec: from the snapshot when there is one, else from the runtime object; undefined when neither exists. */
  runtime?: TrainingRuntimeSpec;
  jobSet?: KubeObject;
}

export interface TrainJobPlan {
  status: TrainJobStatus;
  /** The JobSet to create, or to bring in line (only while suspended). */
  applyJobSet?: KubeObject;
  deleteJobSet?: boolean;
  /** The reconcile could not build the JobSet (an event, not a condition, as upstream). */
  error?: string;
  recheckMs?: number;
}

const DEADLINE_MESSAGE = 'TrainJob exceeded its active deadline';

/** Pure reconcile of a TrainJob against its runtime and its JobSet. */
export function planTrainJob(tj: KubeObject, inputs: TrainJobInputs, nowIso: string): TrainJobPlan {
  const spec = tj.spec as TrainJobSpec;
  const prev = (tj.status ?? {}) as TrainJobStatus;
  let conditions = prev.conditions ? [...prev.conditions] : [];
  const plan: TrainJobPlan = { status: {} };
  // A Failed condition is recomputed on every pass (a spec change may heal it), except a deadline's.
  const deadlineHit = conditions.find((c) => c.type === 'Failed' && c.status === 'True' && c.reason === 'DeadlineExceeded');
  if (!deadlineHit) conditions = removeCondition(conditions, 'Failed');
  const finished = () => conditions.some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');

  const ref = runtimeRefOf(tj);
  const supported = ref.apiGroup === TRAINER_GROUP && (ref.kind === 'ClusterTrainingRuntime' || ref.kind === 'TrainingRuntime');
  if (!supported) {
    conditions = setCondition(conditions, { type: 'Failed', status: 'True', reason: 'TrainingRuntimeNotSupported', message: `unsupported runtime: ${ref.kind}.${ref.apiGroup}` }, nowIso);
  } else if (!finished()) {
    if (!inputs.runtime) {
      plan.error = `${ref.kind} specified in TrainJob is not found: ${ref.name}`;
    } else if (!inputs.jobSet || spec.suspend || (inputs.jobSet.spec as { suspend?: boolean }).suspend) {
      plan.applyJobSet = trainJobJobSet(tj, inputs.runtime);
    }
  }

  // Suspended: True while spec.suspend, False (Resumed) once it is lifted.
  if (spec.suspend) {
    conditions = setCondition(conditions, { type: 'Suspended', status: 'True', reason: 'Suspended', message: 'TrainJob is suspended' }, nowIso);
  } else if (isConditionTrue({ status: { conditions } }, 'Suspended')) {
    conditions = setCondition(conditions, { type: 'Suspended', status: 'False', reason: 'Resumed', message: 'TrainJob is resumed' }, nowIso);
  }

  // Status from the JobSet: its terminal conditions under the TrainJob's names, its per-job counts.
  let jobsStatus = prev.jobsStatus;
  const js = inputs.jobSet;
  if (js) {
    const jst = (js.status ?? {}) as JobSetStatus;
    for (const [from, to] of [['Completed', 'Complete'], ['Failed', 'Failed']] as const) {
      const c = getCondition(js, from);
      if (c?.status === 'True') conditions = setCondition(conditions, { ...c, type: to }, c.lastTransitionTime ?? nowIso);
    }
    jobsStatus = jst.replicatedJobsStatus?.map((s) => ({ name: s.name, ready: s.ready, succeeded: s.succeeded, failed: s.failed, active: s.active, suspended: s.suspended }));
  }
  if (deadlineHit) conditions = setCondition(conditions, deadlineHit, nowIso);

  // activeDeadlineSeconds counts from creation, or from the last resume.
  const deadline = spec.activeDeadlineSeconds;
  if (deadline && !spec.suspend && !finished()) {
    const resumed = conditions.find((c) => c.type === 'Suspended' && c.status === 'False');
    const start = Date.parse(resumed?.lastTransitionTime ?? tj.metadata.creationTimestamp ?? nowIso);
    const left = start + deadline * 1000 - Date.parse(nowIso);
    if (left <= 0) {
      conditions = setCondition(conditions, { type: 'Failed', status: 'True', reason: 'DeadlineExceeded', message: DEADLINE_MESSAGE }, nowIso);
      plan.deleteJobSet = !!js;
      delete plan.applyJobSet;
    } else plan.recheckMs = left;
  }

  if (conditions.length > 0) plan.status.conditions = conditions;
  if (jobsStatus && jobsStatus.length > 0) plan.status.jobsStatus = jobsStatus;
  return plan;
}

/** The ConfigMap holding the runtime as it was when the TrainJob first used it. */
export function runtimeSnapshot(tj: KubeObject, runtime: KubeObject): KubeObject {
  const { status: _s, ...rest } = runtime;
  const { managedFields: _m, ...meta } = runtime.metadata as Record<string, unknown>;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${tj.metadata.name}-runtime-snapshot`, namespace: tj.metadata.namespace, ownerReferences: [ctrlRef(tj)] },
    data: { runtime: stringify({ ...rest, metadata: meta }) },
  };
}

/** The runtime's spec from a snapshot ConfigMap this TrainJob controls and whose runtime matches its ref. */
export function specFromSnapshot(tj: KubeObject, cm: KubeObject | undefined, parse: (s: string) => unknown): TrainingRuntimeSpec | undefined {
  if (!cm || !cm.metadata.ownerReferences?.some((r) => r.controller && r.uid === tj.metadata.uid)) return undefined;
  const text = (cm.data as Record<string, string> | undefined)?.runtime;
  if (!text) return undefined;
  const rt = parse(text) as KubeObject | undefined;
  const ref = runtimeRefOf(tj);
  if (!rt || rt.kind !== ref.kind || rt.metadata?.name !== ref.name) return undefined;
  return (rt.spec ?? {}) as TrainingRuntimeSpec;
}

export class TrainJobController implements Controller {
  readonly name = 'trainjob';
  readonly primary = `${TRAINER_GROUP}/TrainJob`;
  readonly priority = 2;
  readonly owns = ['jobset.x-k8s.io/JobSet'];
  // A runtime created after a TrainJob that names it lets that TrainJob start.
  readonly watches = [
    { gk: `${TRAINER_GROUP}/ClusterTrainingRuntime`, map: (obj: KubeObject, rt: Runtime) => this.referencing(rt, obj, undefined) },
    { gk: `${TRAINER_GROUP}/TrainingRuntime`, map: (obj: KubeObject, rt: Runtime) => this.referencing(rt, obj, obj.metadata.namespace) },
  ];

  private referencing(rt: Runtime, runtime: KubeObject, namespace: string | undefined): Array<[string, string]> {
    return rt
      .list(TRAINER_API, 'TrainJob', namespace ? { namespace } : undefined)
      .filter((tj) => { const r = runtimeRefOf(tj); return r.kind === runtime.kind && r.name === runtime.metadata.name; })
      .map((tj) => [tj.metadata.namespace!, tj.metadata.name!]);
  }

  reconcile(rt: Runtime, ns: string, name: string): void {
    const tj = rt.get(TRAINER_API, 'TrainJob', ns, name);
    if (!tj || tj.metadata.deletionTimestamp) return;
    // Jobs delegated to another controller (Kueue's MultiKueue) are left alone.
    const managedBy = (tj.spec as TrainJobSpec).managedBy;
    if (managedBy && managedBy !== `${TRAINER_GROUP}/trainjob-controller`) return;
    const jobSet = rt.children(tj, 'jobset.x-k8s.io/JobSet').find((j) => j.metadata.name === name);
    const runtime = this.runtime(rt, tj);
    const plan = planTrainJob(tj, { runtime: runtime?.spec, jobSet }, rt.now());
    if (plan.error) rt.recordEvent(tj, 'Warning', 'TrainJobResourcesCreationFailed', `TrainJob resources reconciliation failed: ${plan.error}`);
    if (runtime?.snapshot) rt.ensure(runtime.snapshot);
    if (plan.applyJobSet) rt.apply(plan.applyJobSet);
    if (plan.deleteJobSet && jobSet) rt.delete(jobSet);
    rt.setStatus(tj, plan.status);
    if (plan.recheckMs) rt.after(this, ns, name, plan.recheckMs);
  }

  /** The runtime's spec (snapshot first) and, when there was no snapshot yet, the snapshot to create. */
  private runtime(rt: Runtime, tj: KubeObject): { spec: TrainingRuntimeSpec; snapshot?: KubeObject } | undefined {
    const cm = rt.get('v1', 'ConfigMap', tj.metadata.namespace, `${tj.metadata.name}-runtime-snapshot`);
    const snap = specFromSnapshot(tj, cm, parseYaml);
    if (snap) return { spec: snap };
    const ref = runtimeRefOf(tj);
    const obj = ref.kind === 'TrainingRuntime'
      ? rt.get(TRAINER_API, 'TrainingRuntime', tj.metadata.namespace, ref.name)
      : rt.get(TRAINER_API, 'ClusterTrainingRuntime', undefined, ref.name);
    if (!obj) return undefined;
    return { spec: (obj.spec ?? {}) as TrainingRuntimeSpec, snapshot: runtimeSnapshot(tj, obj) };
  }
}

function parseYaml(s: string): unknown {
  try {
    return parse(s);
  } catch {
    return undefined;
  }
}
