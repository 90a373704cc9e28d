/**
 * Volcano job controller (batch.volcano.sh/v1alpha1 Job, Volcano v1.15/v1.16) and the PodGroup
 * bookkeeping of the Volcano scheduler. The job controller creates a PodGroup `<job>-<job uid>`
 * (scheduling.volcano.sh/v1beta1: minMember = spec.minAvailable, minTaskMember per task, queue), the
 * svc plugin's headless Service `<job>` and ConfigMap `<job>-svc`, and — once the scheduler has moved
 * the PodGroup out of Pending (Inqueue) — the pods `<job>-<task>-<index>` directly, labelled and
 * annotated volcano.sh/job-name, task-spec, task-index, job-namespace, queue-name (annotations also
 * scheduling.k8s.io/group-name, job-version, job-retry-count, template-uid), hostname = pod name,
 * subdomain = job, VK_TASK_INDEX / VC_TASK_INDEX (env plugin), schedulerName from the job.
 *
 * States (pkg/controllers/job/state): Pending → Running when minAvailable pods run or finished;
 * Running → Completed / Failed when every pod finished (succeeded ≥ minAvailable); policies: a pod
 * failing of this job version fires PodFailed, a task whose pods all succeeded fires TaskCompleted;
 * the task's policies, then the job's, choose RestartJob (kill every pod, retryCount+1, PodGroup
 * deleted → Restarting → Pending, or Failed at maxRetry), CompleteJob (kill the rest → Completing →
 * Completed), AbortJob (→ Aborting → Aborted), TerminateJob (→ Terminating → Terminated); none (the
 * default) only syncs.
 *
 * Scheduling: the simulated kube-scheduler binds every pod whatever its schedulerName, which stands in
 * for the Volcano scheduler's allocate action here; the enqueue action (Pending → Inqueue, quota not
 * modelled) and PodGroup status (Running once minMember pods run, Scheduled condition) are in
 * VolcanoPodGroupController.
 */

import { bounded } from './limits.ts';
import { ctrlRef, isPodDeleting, isPodRunning } from './meta.ts';
import { buildPod } from './pods.ts';
import { deepEqual } from './runtime.ts';
import type { Controller, Runtime } from './runtime.ts';
import type { KubeObject, Pod, PodTemplateSpec } from './types.ts';

export const VC = {
  jobName: 'volcano.sh/job-name',
  taskSpec: 'volcano.sh/task-spec',
  taskIndex: 'volcano.sh/task-index',
  jobNamespace: 'volcano.sh/job-namespace',
  queueName: 'volcano.sh/queue-name',
  jobVersion: 'volcano.sh/job-version',
  retryCount: 'volcano.sh/job-retry-count',
  templateUid: 'volcano.sh/template-uid',
  groupName: 'scheduling.k8s.io/group-name',
} as const;
const JOB_API = 'batch.volcano.sh/v1alpha1';
const PG_API = 'scheduling.volcano.sh/v1beta1';

interface Policy { event?: string; events?: string[]; action?: string; exitCode?: number }
interface Task { name: string; replicas?: number; minAvailable?: number; template: PodTemplateSpec; policies?: Policy[] }
interface VolcanoJobSpec { schedulerName?: string; minAvailable?: number; queue?: string; maxRetry?: number; tasks: Task[]; policies?: Policy[]; plugins?: Record<string, string[]>; priorityClassName?: string }
interface JobCondition { status: string; lastTransitionTime: string }
export interface VolcanoJobStatus {
  state: { phase: string; lastTransitionTime?: string; reason?: string; message?: string };
  minAvailable?: number;
  pending?: number; running?: number; succeeded?: number; failed?: number; terminating?: number; unknown?: number;
  version?: number; retryCount?: number;
  taskStatusCount?: Record<string, { phase: Record<string, number> }>;
  conditions?: JobCondition[];
  controlledResources?: Record<string, string>;
}

export const podGroupName = (job: KubeObject): string => `${job.metadata.name}-${job.metadata.uid}`;
const replicasOf = (t: Task): number => bounded(t.replicas ?? 0);
const ALIVE = (p: Pod): boolean => !isPodDeleting(p) && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed';

export function volcanoPod(job: KubeObject, task: Task, index: number): Pod {
  const spec = job.spec as VolcanoJobSpec;
  const st = (job.status ?? {}) as Partial<VolcanoJobStatus>;
  const name = job.metadata.name!;
  const ns = job.metadata.namespace!;
  const queue = spec.queue ?? 'default';
  const plugins = spec.plugins ?? {};
  const t = task.template;
  const pod = buildPod({
    namespace: ns,
    name: `${name}-${task.name}-${index}`,
    template: { ...t, spec: { ...t.spec, schedulerName: t.spec?.schedulerName || spec.schedulerName || 'volcano', ...(!t.spec?.priorityClassName && spec.priorityClassName ? { priorityClassName: spec.priorityClassName } : {}) } },
    labels: { [VC.taskIndex]: String(index), [VC.jobName]: name, [VC.taskSpec]: task.name, [VC.jobNamespace]: ns, [VC.queueName]: queue },
    annotations: {
      [VC.taskIndex]: String(index), [VC.taskSpec]: task.name, [VC.groupName]: podGroupName(job), [VC.jobName]: name, [VC.queueName]: queue,
      [VC.jobVersion]: String(st.version ?? 0), [VC.templateUid]: `${name}-${task.name}`, [VC.retryCount]: String(st.retryCount ?? 0),
    },
    ownerRef: ctrlRef(job),
    ...('svc' in plugins ? { hostname: `${name}-${task.name}-${index}`, subdomain: name } : {}),
    ...('env' in plugins ? { env: [{ name: 'VK_TASK_INDEX', value: String(index) }, { name: 'VC_TASK_INDEX', value: String(index) }] } : {}),
  });
  return pod;
}

export function volcanoPodGroup(job: KubeObject): KubeObject {
  const spec = job.spec as VolcanoJobSpec;
  return {
    apiVersion: PG_API, kind: 'PodGroup',
    metadata: { name: podGroupName(job), namespace: job.metadata.namespace, ...(job.metadata.labels ? { labels: job.metadata.labels } : {}), ...(job.metadata.annotations ? { annotations: job.metadata.annotations } : {}), ownerReferences: [ctrlRef(job)] },
    spec: {
      minMember: spec.minAvailable ?? 0,
      minTaskMember: Object.fromEntries(spec.tasks.map((t) => [t.name, t.minAvailable ?? replicasOf(t)])),
      queue: spec.queue ?? 'default',
      ...(spec.priorityClassName ? { priorityClassName: spec.priorityClassName } : {}),
    },
    status: { phase: 'Pending' },
  };
}

function svcObjects(job: KubeObject): KubeObject[] {
  const name = job.metadata.name!;
  const ns = job.metadata.namespace!;
  const spec = job.spec as VolcanoJobSpec;
  if (!spec.plugins || !('svc' in spec.plugins)) return [];
  const hosts = Object.fromEntries(spec.tasks.flatMap((t) => [
    [`${t.name}.host`, Array.from({ length: replicasOf(t) }, (_, i) => `${name}-${t.name}-${i}.${name}`).join('\n')],
    [`${t.name}.num`, String(replicasOf(t))],
  ]));
  return [
    { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns, ownerReferences: [ctrlRef(job)] }, spec: { clusterIP: 'None', selector: { [VC.jobName]: name, [VC.jobNamespace]: ns }, ports: [{ name: 'placeholder-volcano', port: 1, protocol: 'TCP', targetPort: 1 }], publishNotReadyAddresses: true } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-svc`, namespace: ns, ownerReferences: [ctrlRef(job)] }, data: hosts },
  ];
}

/** The action the policies choose for an event of a task (task policies first, then the job's); SyncJob by default. */
export function policyAction(spec: VolcanoJobSpec, taskName: string, event: string): string {
  const matches = (p: Policy): boolean => [...(p.events ?? []), ...(p.event ? [p.event] : [])].some((e) => e === event || e === '*');
  const task = spec.tasks.find((t) => t.name === taskName);
  for (const p of task?.policies ?? []) if (matches(p) && p.action) return p.action;
  for (const p of spec.policies ?? []) if (matches(p) && p.action) return p.action;
  return 'SyncJob';
}

export interface VolcanoPlan {
  status: VolcanoJobStatus;
  create: Pod[];
  remove: Pod[];
  objects: KubeObject[];
  podGroup?: KubeObject;
  deletePodGroup?: boolean;
}

function counts(pods: Pod[]): Pick<VolcanoJobStatus, 'pending' | 'running' | 'succeeded' | 'failed' | 'terminating' | 'taskStatusCount'> {
  const c = { pending: 0, running: 0, succeeded: 0, failed: 0, terminating: 0 };
  const tasks: Record<string, { phase: Record<string, number> }> = {};
  for (const p of pods) {
    if (isPodDeleting(p)) {
      c.terminating++;
      continue;
    }
    const ph = p.status?.phase ?? 'Pending';
    if (ph === 'Pending') c.pending++;
    else if (ph === 'Running') c.running++;
    else if (ph === 'Succeeded') c.succeeded++;
    else if (ph === 'Failed') c.failed++;
    const t = p.metadata.annotations?.[VC.taskSpec];
    if (t) (tasks[t] ??= { phase: {} }).phase[ph] = (tasks[t].phase[ph] ?? 0) + 1;
  }
  const out: ReturnType<typeof counts> = {};
  for (const [k, v] of Object.entries(c)) if (v) (out as Record<string, number>)[k] = v;
  if (Object.keys(tasks).length) out.taskStatusCount = tasks;
  return out;
}

/** Pure reconcile of a Volcano Job against its pods and PodGroup. */
export function planVolcanoJob(job: KubeObject, pods: Pod[], pg: KubeObject | undefined, nowIso: string): VolcanoPlan {
  const spec = job.spec as VolcanoJobSpec;
  const prev = (job.status ?? { state: { phase: '' } }) as VolcanoJobStatus;
  const plan: VolcanoPlan = { status: prev, create: [], remove: [], objects: [] };
  let phase = prev.state?.phase || 'Pending';
  let version = prev.version ?? 0;
  let retryCount = prev.retryCount ?? 0;
  const total = spec.tasks.reduce((n, t) => n + replicasOf(t), 0);
  const minAvailable = spec.minAvailable ?? total;
  const maxRetry = spec.maxRetry ?? 3;
  const kill = (keepFinished: boolean): void => {
    // At the last retry failed and succeeded pods are kept whatever the action says.
    const soft = keepFinished || retryCount >= maxRetry - 1;
    for (const p of pods) if (!isPodDeleting(p) && (!soft || ALIVE(p))) plan.remove.push(p);
  };
  const killJob = (keepFinished: boolean): void => {
    version++;
    kill(keepFinished);
    plan.deletePodGroup = true;
  };

  const current = pods.filter((p) => !isPodDeleting(p) && p.metadata.annotations?.[VC.jobVersion] === String(version));
  // Events of this job version: a pod that failed, a task whose pods all succeeded.
  let action = 'SyncJob';
  if (phase === 'Pending' || phase === 'Running') {
    const failed = current.find((p) => p.status?.phase === 'Failed');
    if (failed) action = policyAction(spec, failed.metadata.annotations![VC.taskSpec], 'PodFailed');
    for (const t of spec.tasks) {
      if (action !== 'SyncJob') break;
      const mine = current.filter((p) => p.metadata.annotations?.[VC.taskSpec] === t.name);
      if (replicasOf(t) > 0 && mine.length === replicasOf(t) && mine.every((p) => p.status?.phase === 'Succeeded')) action = policyAction(spec, t.name, 'TaskCompleted');
    }
  }

  switch (phase) {
    case 'Pending':
    case 'Running':
      if (action === 'RestartJob') {
        killJob(false);
        retryCount++;
        phase = 'Restarting';
      } else if (action === 'CompleteJob') {
        killJob(true);
        phase = 'Completing';
      } else if (action === 'AbortJob') {
        killJob(true);
        phase = 'Aborting';
      } else if (action === 'TerminateJob') {
        killJob(true);
        phase = 'Terminating';
      } else {
        plan.podGroup = volcanoPodGroup(job);
        plan.objects.push(...svcObjects(job));
        // Pods only once the scheduler has let the PodGroup out of Pending.
        const pgPhase = (pg?.status as { phase?: string } | undefined)?.phase ?? '';
        if (pg && pgPhase !== '' && pgPhase !== 'Pending') {
          const have = new Set(pods.map((p) => p.metadata.name));
          for (const t of spec.tasks) for (let i = 0; i < replicasOf(t); i++) if (!have.has(`${job.metadata.name}-${t.name}-${i}`)) plan.create.push(volcanoPod({ ...job, status: { ...prev, version, retryCount } }, t, i));
        }
        const c = counts(pods);
        const done = (c.succeeded ?? 0) + (c.failed ?? 0);
        if (phase === 'Pending' && minAvailable <= (c.running ?? 0) + done) phase = 'Running';
        else if (phase === 'Running' && total > 0 && done === total) phase = (c.succeeded ?? 0) >= minAvailable ? 'Completed' : 'Failed';
        else if (phase === 'Running' && (c.pending ?? 0) > total - minAvailable) phase = 'Pending';
      }
      break;
    case 'Restarting':
      if (retryCount >= maxRetry) phase = 'Failed';
      else if (total - pods.filter(isPodDeleting).length >= minAvailable && pods.every((p) => !ALIVE(p) || isPodDeleting(p))) phase = 'Pending';
      kill(false);
      break;
    case 'Completing':
    case 'Aborting':
    case 'Terminating':
      kill(true);
      if (pods.every((p) => !ALIVE(p))) phase = { Completing: 'Completed', Aborting: 'Aborted', Terminating: 'Terminated' }[phase]!;
      break;
    default:
      // Completed, Failed, Terminated, Aborted: whatever still runs is killed; finished pods are kept.
      kill(true);
  }

  const status: VolcanoJobStatus = {
    ...prev,
    ...{ pending: undefined, running: undefined, succeeded: undefined, failed: undefined, terminating: undefined, taskStatusCount: undefined },
    ...counts(pods.filter((p) => !plan.remove.includes(p))),
    minAvailable,
    state: prev.state ?? { phase: '' },
  };
  const removed = plan.remove.length;
  if (removed) status.terminating = (status.terminating ?? 0) + removed;
  if (version) status.version = version;
  if (retryCount) status.retryCount = retryCount;
  if (phase !== prev.state?.phase) {
    status.state = { phase, lastTransitionTime: nowIso };
    status.conditions = [...(prev.conditions ?? []).filter((c) => c.status !== phase), { status: phase, lastTransitionTime: nowIso }];
  }
  for (const k of Object.keys(status) as Array<keyof VolcanoJobStatus>) if (status[k] === undefined) delete status[k];
  plan.status = deepEqual(status, prev) ? prev : status;
  return plan;
}

export class VolcanoJobController implements Controller {
  readonly name = 'volcano-job';
  readonly primary = 'batch.volcano.sh/Job';
  readonly priority = 2;
  readonly owns = ['/Pod', 'scheduling.volcano.sh/PodGroup'];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const job = rt.get(JOB_API, 'Job', ns, name);
    if (!job || job.metadata.deletionTimestamp) return;
    const pods = rt.children<Pod>(job, '/Pod');
    const pg = rt.get(PG_API, 'PodGroup', ns, podGroupName(job));
    const plan = planVolcanoJob(job, pods, pg, rt.now());
    rt.setStatus(job, plan.status);
    for (const o of plan.objects) rt.apply(o);
    if (plan.podGroup && !pg) rt.create(plan.podGroup);
    if (plan.deletePodGroup && pg) rt.delete(pg);
    for (const p of plan.remove) rt.delete(p);
    for (const p of plan.create) rt.createPod(p);
  }
}

/**
 * The Volcano scheduler's PodGroup bookkeeping: enqueue (Pending → Inqueue; queue capacity is not
 * simulated), then Running with a Scheduled condition once minMember of its pods run, and the
 * running / succeeded / failed counts.
 */
export class VolcanoPodGroupController implements Controller {
  readonly name = 'volcano-podgroup';
  readonly primary = 'scheduling.volcano.sh/PodGroup';
  readonly priority = 1;
  readonly watches = [
    {
      gk: '/Pod',
      map: (obj: KubeObject): Array<[string, string]> => {
        const g = obj.metadata.annotations?.[VC.groupName];
        return g && obj.metadata.labels?.[VC.jobName] ? [[obj.metadata.namespace ?? '', g]] : [];
      },
    },
  ];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const pg = rt.get(PG_API, 'PodGroup', ns, name);
    if (!pg || pg.metadata.deletionTimestamp) return;
    const pods = rt.list<Pod>('v1', 'Pod', { namespace: ns }).filter((p) => p.metadata.annotations?.[VC.groupName] === name && !isPodDeleting(p));
    const prev = (pg.status ?? {}) as { phase?: string; conditions?: Array<Record<string, string>> };
    const running = pods.filter(isPodRunning).length;
    const succeeded = pods.filter((p) => p.status?.phase === 'Succeeded').length;
    const failed = pods.filter((p) => p.status?.phase === 'Failed').length;
    const minMember = (pg.spec as { minMember?: number }).minMember ?? 0;
    let phase = prev.phase && prev.phase !== 'Pending' ? prev.phase : 'Inqueue';
    let conditions = prev.conditions;
    if (running + succeeded + failed >= minMember && running > 0) {
      phase = 'Running';
      if (!conditions?.some((c) => c.type === 'Scheduled')) conditions = [{ type: 'Scheduled', status: 'True', reason: 'tasks in gang are ready to be scheduled', message: '', transitionID: pg.metadata.uid!, lastTransitionTime: rt.now() }];
    }
    if (phase === 'Running' && running === 0 && succeeded + failed >= minMember) phase = 'Completed';
    rt.setStatus(pg, { phase, ...(conditions ? { conditions } : {}), ...(running ? { running } : {}), ...(succeeded ? { succeeded } : {}), ...(failed ? { failed } : {}) });
  }
}
