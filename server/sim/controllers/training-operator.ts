/**
 * The Kubeflow training operator v1 (kubeflow.org/v1, training-operator release-1.9): one reconcile loop
 * serves PyTorchJob, TFJob, XGBoostJob, JAXJob and PaddleJob, as upstream's common JobController does.
 * What differs per kind (replica types, default container and port, the master role, injected env, when
 * the job counts as running or succeeded) is a `TrainingFramework` (training-frameworks.ts); the rest is
 * shared: pods `<job>-<type>-<i>` and a headless Service of the same name per replica, the
 * `training.kubeflow.org/*` labels, replicaStatuses, the Created / Running / Restarting / Succeeded /
 * Failed / Suspended conditions, restart of failed pods (OnFailure / Always, ExitCode with a retryable
 * code ≥ 128), runPolicy suspend, cleanPodPolicy, backoffLimit, activeDeadlineSeconds and the TTL.
 */

import { bounded } from './limits.ts';
import { hasCondition, setJobCondition } from './kubeflow.ts';
import type { KubeflowJobStatus, ReplicaStatus } from './kubeflow.ts';
import { ctrlRef, isPodActive, isPodRunning, podRestarts } from './meta.ts';
import { addEnv, buildPod } from './pods.ts';
import { deepEqual } from './runtime.ts';
import type { Controller, Runtime } from './runtime.ts';
import { service } from './services.ts';
import type { Container, ContainerPort, EnvVar, KubeObject, Pod, PodTemplateSpec } from './types.ts';

export const TK = 'training.kubeflow.org';

export type ReplicaRestartPolicy = 'Always' | 'OnFailure' | 'Never' | 'ExitCode';

export interface ReplicaSpec {
  replicas?: number;
  restartPolicy?: ReplicaRestartPolicy;
  template: PodTemplateSpec;
}

export interface RunPolicy {
  cleanPodPolicy?: 'None' | 'Running' | 'All';
  ttlSecondsAfterFinished?: number;
  activeDeadlineSeconds?: number;
  backoffLimit?: number;
  suspend?: boolean;
  schedulingPolicy?: Record<string, unknown>;
}

export type ReplicaSpecs = Record<string, ReplicaSpec>;

/** What a framework's hooks see of one job: its specs with the operator's defaults applied. */
export class TrainingJobView {
  readonly name: string;
  readonly namespace: string;
  readonly specs: ReplicaSpecs;
  constructor(
    readonly fw: TrainingFramework,
    readonly job: KubeObject,
  ) {
    this.name = job.metadata.name!;
    this.namespace = job.metadata.namespace!;
    this.specs = ((job.spec as Record<string, unknown> | undefined)?.[fw.specsField] ?? {}) as ReplicaSpecs;
  }
  get spec(): Record<string, unknown> {
    return (this.job.spec ?? {}) as Record<string, unknown>;
  }
  has(rtype: string): boolean {
    return !!this.specs[rtype];
  }
  /** Replicas of a type (defaulted to 1 as the operator's defaulting does; 0 for an absent type). */
  replicas(rtype: string): number {
    const rs = this.specs[rtype];
    return rs ? bounded(rs.replicas ?? 1) : 0;
  }
  total(): number {
    return this.types().reduce((n, t) => n + this.replicas(t), 0);
  }
  restartPolicy(rtype: string): ReplicaRestartPolicy {
    return this.specs[rtype]?.restartPolicy ?? this.fw.defaultRestartPolicy;
  }
  /** Replica types present, in the order the operator walks them, unknown ones last. */
  types(): string[] {
    const keys = Object.keys(this.specs);
    return [...this.fw.replicaTypes.filter((t) => keys.includes(t)), ...keys.filter((t) => !this.fw.replicaTypes.includes(t)).sort()];
  }
  /** Pod / Service name of a replica. */
  replicaName(rtype: string, index: number): string {
    return `${this.name}-${rtype.toLowerCase()}-${index}`;
  }
  /** The port named after the framework on the default container of a type, else the framework's default. */
  port(rtype: string): number {
    const c = this.specs[rtype]?.template.spec.containers.find((x) => x.name === this.fw.containerName);
    return c?.ports?.find((p) => p.name === this.fw.portName)?.containerPort ?? this.fw.defaultPort;
  }
}

/** Counts of one replica type, with the pods the judge may inspect. */
export interface ReplicaCounts {
  want: number;
  active: number;
  succeeded: number;
  failed: number;
  pods: Map<number, Pod>;
}

export interface TrainingFramework {
  kind: string;
  /** The spec field holding the replica specs (`pytorchReplicaSpecs`, `tfReplicaSpecs` …). */
  specsField: string;
  /** The `training.kubeflow.org/operator-name` label value (the reconciler's controllerName). */
  operatorName: string;
  /** Replica types in the order the operator's status update walks them. */
  replicaTypes: readonly string[];
  containerName: string;
  portName: string;
  defaultPort: number;
  defaultRestartPolicy: ReplicaRestartPolicy;
  /** Which replica carries `training.kubeflow.org/job-role: master`. */
  isMaster(job: TrainingJobView, rtype: string, index: number): boolean;
  /** Environment the operator injects into a replica's pod. */
  env(job: TrainingJobView, rtype: string, index: number): EnvVar[];
  /** Whether the env goes to the default container only (PyTorch, TF) or to every container. */
  envOnDefaultContainerOnly: boolean;
  initContainers?(job: TrainingJobView, rtype: string, index: number): Container[];
  /** The job's progress from its replica counts: Succeeded, Running, or nothing to say yet. */
  judge(job: TrainingJobView, counts: Record<string, ReplicaCounts>): 'Succeeded' | 'Running' | undefined;
  /** TFJob says "TFJob <ns>/<name> has failed because …"; the others "<Kind> <name> is failed because …". */
  namespacedFailureMessage?: boolean;
  /** Failed pods of this type that do not fail the job (TFJob enableDynamicWorker workers). */
  toleratesFailures?(job: TrainingJobView, rtype: string): boolean;
}

/** Succeeded once every replica of `rtype` succeeded; Running while one is active (the usual "lead" rule). */
export function judgeByLead(counts: Record<string, ReplicaCounts>, rtype: string): 'Succeeded' | 'Running' | undefined {
  const c = counts[rtype];
  if (!c) return undefined;
  if (c.succeeded >= c.want) return 'Succeeded';
  return c.active > 0 ? 'Running' : undefined;
}

export function trainingLabels(fw: TrainingFramework, job: string, rtype: string, index: number, master: boolean): Record<string, string> {
  return {
    [`${TK}/operator-name`]: fw.operatorName,
    [`${TK}/job-name`]: job,
    [`${TK}/replica-type`]: rtype.toLowerCase(),
    [`${TK}/replica-index`]: String(index),
    ...(master ? { [`${TK}/job-role`]: 'master' } : {}),
  };
}

/** The operator's defaulting adds the framework's port to the default container when it has none. */
function withDefaultPort(fw: TrainingFramework, c: Container): Container {
  if (c.name !== fw.containerName || c.ports?.some((p) => p.name === fw.portName)) return c;
  const port: ContainerPort = { name: fw.portName, containerPort: fw.defaultPort, protocol: 'TCP' };
  return { ...c, ports: [...(c.ports ?? []), port] };
}

/** The pod of replica `index` of type `rtype`, with the labels, env and init containers the operator adds. */
export function trainingPod(view: TrainingJobView, rtype: string, index: number): Pod {
  const fw = view.fw;
  const rs = view.specs[rtype];
  const env = fw.env(view, rtype, index);
  const containers = rs.template.spec.containers.map((c) => {
    const ported = withDefaultPort(fw, c);
    return fw.envOnDefaultContainerOnly && c.name !== fw.containerName ? ported : addEnv(ported, env);
  });
  const initContainers = [...(rs.template.spec.initContainers ?? []), ...(fw.initContainers?.(view, rtype, index) ?? [])];
  const policy = view.restartPolicy(rtype);
  return buildPod({
    namespace: view.namespace,
    name: view.replicaName(rtype, index),
    template: { ...rs.template, spec: { ...rs.template.spec, containers, ...(initContainers.length ? { initContainers } : {}) } },
    labels: trainingLabels(fw, view.name, rtype, index, fw.isMaster(view, rtype, index)),
    ownerRef: ctrlRef(view.job),
    restartPolicy: policy === 'ExitCode' ? 'Never' : policy,
  });
}

/** The headless Service of one replica: the pod's labels without job-role, the default container's ports. */
function replicaService(view: TrainingJobView, rtype: string, index: number): KubeObject {
  const fw = view.fw;
  const labels = trainingLabels(fw, view.name, rtype, index, false);
  const main = view.specs[rtype].template.spec.containers.find((c) => c.name === fw.containerName);
  const ports = (main ? withDefaultPort(fw, main).ports ?? [] : [{ name: fw.portName, containerPort: fw.defaultPort }])
    .filter((p) => p.name)
    .map((p) => ({ name: p.name, port: p.containerPort }));
  return service({ name: view.replicaName(rtype, index), namespace: view.namespace, owner: view.job, headless: true, selector: labels, labels, ports });
}

/** The exit code of the default container of a terminated pod (0xbeef when it has none, as upstream). */
function exitCodeOf(fw: TrainingFramework, pod: Pod): number {
  const s = pod.status?.containerStatuses?.find((c) => c.name === fw.containerName);
  return (s?.state as { terminated?: { exitCode?: number } } | undefined)?.terminated?.exitCode ?? 0xbeef;
}

export interface TrainingPlan {
  create: Pod[];
  remove: Pod[];
  services: KubeObject[];
  removeServices: boolean;
  status: KubeflowJobStatus;
  deleteSelf?: boolean;
  recheckMs?: number;
}

/** Pure reconcile of a v1 training job against its pods. */
export function planTrainingJob(fw: TrainingFramework, job: KubeObject, pods: Pod[], nowIso: string): TrainingPlan {
  const view = new TrainingJobView(fw, job);
  const { kind } = fw;
  const { name, namespace: ns } = view;
  const run = (view.spec.runPolicy ?? {}) as RunPolicy;
  const prev = (job.status ?? {}) as KubeflowJobStatus;
  const nowMs = Date.parse(nowIso);
  const plan: TrainingPlan = { create: [], remove: [], services: [], removeServices: false, status: {} };
  let conds = prev.conditions ? [...prev.conditions] : [];
  let startTime = prev.startTime;
  let completionTime = prev.completionTime;
  if (conds.length === 0) conds = setJobCondition(conds, 'Created', 'True', `${kind}Created`, `${kind} ${name} is created.`, nowIso);
  const finish = (type: 'Succeeded' | 'Failed', message: string): void => {
    conds = setJobCondition(conds, type, 'True', `${kind}${type}`, message, nowIso);
    completionTime ??= nowIso;
  };

  const byName = new Map(pods.map((p) => [p.metadata.name!, p]));
  const counts: Record<string, ReplicaCounts> = {};
  const replicaStatuses: Record<string, ReplicaStatus> = {};
  let restarts = 0;
  for (const t of view.types()) {
    const c: ReplicaCounts = { want: view.replicas(t), active: 0, succeeded: 0, failed: 0, pods: new Map() };
    for (let i = 0; i < c.want; i++) {
      const p = byName.get(view.replicaName(t, i));
      if (!p) continue;
      c.pods.set(i, p);
      const ph = p.status?.phase;
      if (ph === 'Succeeded') c.succeeded++;
      else if (ph === 'Failed') c.failed++;
      else if (isPodRunning(p)) c.active++;
      // The kubelet restarts OnFailure / Always containers in place: those restarts count towards backoffLimit.
      const policy = view.restartPolicy(t);
      if (policy === 'OnFailure' || policy === 'Always') restarts += podRestarts(p);
    }
    counts[t] = c;
    replicaStatuses[t] = {
      active: c.active,
      succeeded: c.succeeded,
      failed: c.failed,
      selector: `${TK}/job-name=${name},${TK}/operator-name=${fw.operatorName},${TK}/replica-type=${t.toLowerCase()}`,
    };
  }
  const finished = hasCondition(conds, 'Succeeded') || hasCondition(conds, 'Failed');

  if (!finished && run.suspend) {
    plan.remove = pods.filter((p) => !p.metadata.deletionTimestamp);
    plan.removeServices = true;
    if (!hasCondition(conds, 'Suspended')) conds = setJobCondition(conds, 'Suspended', 'True', `${kind}Suspended`, `${kind} ${name} is suspended.`, nowIso);
    startTime = undefined;
    for (const s of Object.values(replicaStatuses)) s.active = 0;
  } else if (!finished) {
    if (hasCondition(conds, 'Suspended')) conds = setJobCondition(conds, 'Suspended', 'False', `${kind}Resumed`, `${kind} ${name} is resumed.`, nowIso);
    startTime ??= nowIso;
    // Failed pods: restarted (deleted, then recreated) when their policy retries, else they fail the job.
    const restarting: string[] = [];
    let failedType: string | undefined;
    for (const t of view.types()) {
      const policy = view.restartPolicy(t);
      for (const p of counts[t].pods.values()) {
        if (p.status?.phase !== 'Failed') continue;
        const retry = policy === 'OnFailure' || policy === 'Always' || (policy === 'ExitCode' && exitCodeOf(fw, p) >= 128);
        if (retry) {
          plan.remove.push(p);
          if (!restarting.includes(t)) restarting.push(t);
        } else if (!fw.toleratesFailures?.(view, t)) failedType ??= t;
      }
    }
    const verdict = fw.judge(view, counts);
    const deadline = run.activeDeadlineSeconds;
    if (verdict === 'Succeeded') {
      finish('Succeeded', `${kind} ${ns}/${name} successfully completed.`);
    } else if (failedType) {
      const who = fw.namespacedFailureMessage ? `${ns}/${name} has` : `${name} is`;
      finish('Failed', `${kind} ${who} failed because ${counts[failedType].failed} ${failedType} replica(s) failed.`);
    } else if (run.backoffLimit !== undefined && restarts > run.backoffLimit) {
      finish('Failed', `${kind} ${name} has failed because it has reached the specified backoff limit`);
    } else if (deadline !== undefined && nowMs - Date.parse(startTime) >= deadline * 1000) {
      finish('Failed', `${kind} ${name} has failed because it was active longer than specified deadline`);
    } else {
      if (deadline !== undefined) plan.recheckMs = Date.parse(startTime) + deadline * 1000 - nowMs + 1;
      if (restarting.length > 0) {
        const t = restarting[0];
        conds = setJobCondition(conds, 'Restarting', 'True', `${kind}Restarting`, `${kind} ${name} is restarting because ${counts[t].failed} ${t} replica(s) failed.`, nowIso);
      }
      for (const t of view.types()) {
        for (let i = 0; i < counts[t].want; i++) {
          const pn = view.replicaName(t, i);
          // A pod deleted for a restart is recreated on the next pass, once it is gone.
          if (!byName.has(pn)) plan.create.push(trainingPod(view, t, i));
          plan.services.push(replicaService(view, t, i));
        }
      }
      if (verdict === 'Running' && restarting.length === 0) conds = setJobCondition(conds, 'Running', 'True', `${kind}Running`, `${kind} ${ns}/${name} is running.`, nowIso);
    }
  }
  if (hasCondition(conds, 'Succeeded') || hasCondition(conds, 'Failed')) {
    const policy = run.cleanPodPolicy ?? 'None';
    if (policy === 'All') plan.remove = pods.filter((p) => !p.metadata.deletionTimestamp);
    else if (policy === 'Running') plan.remove = pods.filter((p) => isPodActive(p));
    if (policy !== 'None') plan.removeServices = true;
    for (const s of Object.values(replicaStatuses)) s.active = 0;
    if (run.ttlSecondsAfterFinished !== undefined && completionTime) {
      const at = Date.parse(completionTime) + run.ttlSecondsAfterFinished * 1000;
      if (at <= nowMs) plan.deleteSelf = true;
      else plan.recheckMs = at - nowMs;
    }
  }
  const status: KubeflowJobStatus = { conditions: conds, replicaStatuses };
  if (startTime) status.startTime = startTime;
  if (completionTime) status.completionTime = completionTime;
  // lastReconcileTime moves only with real changes, so a steady job causes no writes.
  const changed = !deepEqual({ ...status }, { conditions: prev.conditions, replicaStatuses: prev.replicaStatuses, startTime: prev.startTime, completionTime: prev.completionTime });
  status.lastReconcileTime = changed || !prev.lastReconcileTime ? nowIso : prev.lastReconcileTime;
  plan.status = status;
  return plan;
}

/** One controller per kind of the v1 training operator, all running the same loop. */
export class TrainingJobController implements Controller {
  readonly name: string;
  readonly primary: string;
  readonly priority = 2;
  readonly owns = ['/Pod', '/Service'];

  constructor(private readonly fw: TrainingFramework) {
    this.name = fw.kind.toLowerCase();
    this.primary = `kubeflow.org/${fw.kind}`;
  }

  reconcile(rt: Runtime, ns: string, name: string): void {
    const job = rt.get('kubeflow.org/v1', this.fw.kind, ns, name);
    if (!job || job.metadata.deletionTimestamp) return;
    const plan = planTrainingJob(this.fw, job, rt.children<Pod>(job, '/Pod'), rt.now());
    rt.setStatus(job, plan.status);
    applyTrainingPlan(rt, job, plan);
    if (plan.deleteSelf) rt.delete(job);
    else if (plan.recheckMs) rt.after(this, ns, name, plan.recheckMs);
  }
}

/** Side effects of a training-job plan (shared with MPIJob). */
export function applyTrainingPlan(rt: Runtime, job: KubeObject, plan: { create: Pod[]; remove: Pod[]; services: KubeObject[]; removeServices: boolean }): void {
  for (const p of plan.remove) rt.delete(p);
  for (const p of plan.create) {
    if (!rt.get('v1', 'Pod', p.metadata.namespace, p.metadata.name!)) rt.createPod(p);
  }
  for (const s of plan.services) rt.ensure(s);
  if (plan.removeServices) for (const s of rt.children(job, '/Service')) rt.delete(s);
}
