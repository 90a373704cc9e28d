/**
 * PyTorchJob operator (kubeflow.org/v1, training-operator v1.9): pods `<job>-<type>-<i>` and a headless
 * Service of the same name per replica, `training.kubeflow.org/*` labels (job-role=master on the master,
 * or worker 0 without one), the torch distributed env (MASTER_ADDR, WORLD_SIZE, RANK, PET_*), a worker
 * init container waiting for the master; status replicaStatuses and the Created / Running / Restarting /
 * Succeeded / Failed / Suspended conditions; cleanPodPolicy, backoffLimit, activeDeadlineSeconds, TTL.
 */

import { bounded } from './limits.ts';
import { hasCondition, setJobCondition } from './kubeflow.ts';
import type { KubeflowJobStatus, ReplicaStatus } from './kubeflow.ts';
import { ctrlRef, isPodActive, isPodRunning, podRestarts } from './meta.ts';
import { buildPod } from './pods.ts';
import { deepEqual } from './runtime.ts';
import type { Controller, Runtime } from './runtime.ts';
import { service } from './services.ts';
import type { Container, EnvVar, KubeObject, Pod, PodTemplateSpec } from './types.ts';

export const TK = 'training.kubeflow.org';

export interface ReplicaSpec {
  replicas?: number;
  restartPolicy?: 'Always' | 'OnFailure' | 'Never' | 'ExitCode';
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

export interface PyTorchJobSpec {
  pytorchReplicaSpecs: Record<string, ReplicaSpec>;
  runPolicy?: RunPolicy;
  elasticPolicy?: Record<string, unknown>;
  nprocPerNode?: string;
}

const DEFAULT_PORT = 23456;
/** Replica types in the order the operator processes them. */
const ORDER = ['Master', 'Worker'];

function types(spec: PyTorchJobSpec): string[] {
  const keys = Object.keys(spec.pytorchReplicaSpecs ?? {});
  return [...ORDER.filter((t) => keys.includes(t)), ...keys.filter((t) => !ORDER.includes(t)).sort()];
}

export function pytorchLabels(job: string, rtype: string, index: number, master: boolean): Record<string, string> {
  return {
    [`${TK}/operator-name`]: 'pytorchjob-controller',
    [`${TK}/job-name`]: job,
    [`${TK}/replica-type`]: rtype.toLowerCase(),
    [`${TK}/replica-index`]: String(index),
    ...(master ? { [`${TK}/job-role`]: 'master' } : {}),
  };
}

function masterPort(spec: PyTorchJobSpec): number {
  const t = spec.pytorchReplicaSpecs.Master ?? spec.pytorchReplicaSpecs.Worker;
  const c = t?.template.spec.containers.find((x) => x.name === 'pytorch');
  return c?.ports?.find((p) => p.name === 'pytorchjob-port')?.containerPort ?? DEFAULT_PORT;
}

/** The pod of replica `index` of type `rtype`, with the env and init container the operator adds. */
export function pytorchPod(job: KubeObject, rtype: string, index: number): Pod {
  const spec = job.spec as PyTorchJobSpec;
  const name = job.metadata.name!;
  const rs = spec.pytorchReplicaSpecs[rtype];
  const hasMaster = !!spec.pytorchReplicaSpecs.Master;
  const isMaster = rtype === 'Master' || (!hasMaster && rtype === 'Worker' && index === 0);
  const port = masterPort(spec);
  const masterAddr = hasMaster ? `${name}-master-0` : `${name}-worker-0`;
  const world = types(spec).reduce((n, t) => n + (spec.pytorchReplicaSpecs[t].replicas ?? 1), 0);
  const rank = rtype === 'Master' ? 0 : hasMaster ? index + 1 : index;
  const env: EnvVar[] = [
    { name: 'MASTER_PORT', value: String(port) },
    { name: 'PET_MASTER_PORT', value: String(port) },
    { name: 'MASTER_ADDR', value: masterAddr },
    { name: 'PET_MASTER_ADDR', value: masterAddr },
    { name: 'WORLD_SIZE', value: String(world) },
    { name: 'RANK', value: String(rank) },
    { name: 'PET_NPROC_PER_NODE', value: spec.nprocPerNode ?? 'auto' },
    { name: 'PET_NODE_RANK', value: String(rank) },
    { name: 'PET_NNODES', value: String(world) },
    { name: 'PYTHONUNBUFFERED', value: '1' },
  ];
  const containers = rs.template.spec.containers.map((c: Container) => {
    if (c.name !== 'pytorch') return c;
    const own = new Set((c.env ?? []).map((e) => e.name));
    return { ...c, env: [...(c.env ?? []), ...env.filter((e) => !own.has(e.name))] };
  });
  const initContainers = [...(rs.template.spec.initContainers ?? [])];
  if (rtype !== 'Master' && hasMaster) {
    initContainers.push({
      name: 'init-pytorch',
      image: 'alpine:3.10',
      command: ['sh', '-c', `err=1;for i in $(seq 100); do if nslookup ${name}-master-0; then err=0 && break; fi;echo waiting for master; sleep 2; done; exit $err`],
      resources: { limits: { cpu: '100m', memory: '20Mi' }, requests: { cpu: '50m', memory: '10Mi' } },
    });
  }
  const restartPolicy = rs.restartPolicy === 'ExitCode' ? 'Never' : (rs.restartPolicy ?? 'OnFailure');
  return buildPod({
    namespace: job.metadata.namespace!,
    name: `${name}-${rtype.toLowerCase()}-${index}`,
    template: { ...rs.template, spec: { ...rs.template.spec, containers, ...(initContainers.length ? { initContainers } : {}) } },
    labels: pytorchLabels(name, rtype, index, isMaster),
    ownerRef: ctrlRef(job),
    restartPolicy,
  });
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

/** Pure reconcile of a PyTorchJob against its pods. */
export function planPyTorchJob(job: KubeObject, pods: Pod[], nowIso: string): TrainingPlan {
  const spec = job.spec as PyTorchJobSpec;
  const name = job.metadata.name!;
  const ns = job.metadata.namespace!;
  const kind = 'PyTorchJob';
  const run = spec.runPolicy ?? {};
  const prev = (job.status ?? {}) as KubeflowJobStatus;
  const nowMs = Date.parse(nowIso);
  const plan: TrainingPlan = { create: [], remove: [], services: [], removeServices: false, status: {} };
  let conds = prev.conditions ? [...prev.conditions] : [];
  let startTime = prev.startTime;
  let completionTime = prev.completionTime;
  if (conds.length === 0) conds = setJobCondition(conds, 'Created', 'True', `${kind}Created`, `${kind} ${name} is created.`, nowIso);

  const byName = new Map(pods.map((p) => [p.metadata.name!, p]));
  const replicaStatuses: Record<string, ReplicaStatus> = {};
  const failedBy: Record<string, number> = {};
  let restarts = 0;
  for (const t of types(spec)) {
    const rs = spec.pytorchReplicaSpecs[t];
    const s: ReplicaStatus = { active: 0, succeeded: 0, failed: 0 };
    for (let i = 0, n = bounded(rs.replicas ?? 1); i < n; i++) {
      const p = byName.get(`${name}-${t.toLowerCase()}-${i}`);
      if (!p) continue;
      const ph = p.status?.phase;
      if (ph === 'Succeeded') s.succeeded!++;
      else if (ph === 'Failed') s.failed!++;
      else if (isPodRunning(p)) s.active!++;
      if (rs.restartPolicy === 'OnFailure' || rs.restartPolicy === 'Always' || rs.restartPolicy === undefined) restarts += podRestarts(p);
    }
    s.selector = `${TK}/job-name=${name},${TK}/operator-name=pytorchjob-controller,${TK}/replica-type=${t.toLowerCase()}`;
    failedBy[t] = s.failed!;
    replicaStatuses[t] = s;
  }
  const finished = hasCondition(conds, 'Succeeded') || hasCondition(conds, 'Failed');
  const suspended = !!run.suspend;

  if (!finished && suspended) {
    plan.remove = pods.filter((p) => !p.metadata.deletionTimestamp);
    plan.removeServices = true;
    if (!hasCondition(conds, 'Suspended')) {
      conds = setJobCondition(conds, 'Suspended', 'True', `${kind}Suspended`, `${kind} ${name} is suspended.`, nowIso);
    }
    startTime = undefined;
    for (const s of Object.values(replicaStatuses)) s.active = 0;
  } else if (!finished) {
    if (hasCondition(conds, 'Suspended')) {
      conds = setJobCondition(conds, 'Suspended', 'False', `${kind}Resumed`, `${kind} ${name} is resumed.`, nowIso);
    }
    startTime ??= nowIso;
    const master = spec.pytorchReplicaSpecs.Master ? 'Master' : 'Worker';
    const mrs = replicaStatuses[master];
    const mWant = spec.pytorchReplicaSpecs[master].replicas ?? 1;
    const elastic = !!spec.elasticPolicy;
    const workers = replicaStatuses.Worker;
    const wWant = spec.pytorchReplicaSpecs.Worker?.replicas ?? 0;
    const succeeded = master === 'Master'
      ? (mrs.succeeded ?? 0) >= mWant
      : elastic ? (workers?.succeeded ?? 0) > 0 : (workers?.succeeded ?? 0) >= wWant;
    const failedType = types(spec).find((t) => failedBy[t] > 0 && spec.pytorchReplicaSpecs[t].restartPolicy !== 'ExitCode');
    const exitCodeFailed = types(spec).filter((t) => spec.pytorchReplicaSpecs[t].restartPolicy === 'ExitCode' && failedBy[t] > 0);
    const deadline = run.activeDeadlineSeconds;
    if (succeeded) {
      conds = setJobCondition(conds, 'Succeeded', 'True', `${kind}Succeeded`, `${kind} ${ns}/${name} successfully completed.`, nowIso);
      completionTime ??= nowIso;
    } else if (failedType) {
      conds = setJobCondition(conds, 'Failed', 'True', `${kind}Failed`, `${kind} ${ns}/${name} is failed because ${failedBy[failedType]} ${failedType} replica(s) failed.`, nowIso);
      completionTime ??= nowIso;
    } else if (run.backoffLimit !== undefined && restarts > run.backoffLimit) {
      conds = setJobCondition(conds, 'Failed', 'True', `${kind}Failed`, `${kind} ${name} has failed because it has reached the specified backoff limit`, nowIso);
      completionTime ??= nowIso;
    } else if (deadline !== undefined && nowMs - Date.parse(startTime) >= deadline * 1000) {
      conds = setJobCondition(conds, 'Failed', 'True', `${kind}Failed`, `${kind} ${name} has failed because it was active longer than specified deadline`, nowIso);
      completionTime ??= nowIso;
    } else {
      if (deadline !== undefined) plan.recheckMs = Date.parse(startTime) + deadline * 1000 - nowMs + 1;
      // ExitCode policy: a failed pod is recreated (the operator treats exit codes as retryable here).
      const retry = new Set<string>();
      for (const t of exitCodeFailed) {
        for (const p of pods) {
          if (p.metadata.labels?.[`${TK}/replica-type`] === t.toLowerCase() && p.status?.phase === 'Failed') {
            plan.remove.push(p);
            retry.add(p.metadata.name!);
          }
        }
      }
      if (retry.size > 0) {
        const t = exitCodeFailed[0];
        conds = setJobCondition(conds, 'Restarting', 'True', `${kind}Restarting`, `${kind} ${name} is restarting because ${failedBy[t]} ${t} replica(s) failed.`, nowIso);
      }
      for (const t of types(spec)) {
        for (let i = 0, n = bounded(spec.pytorchReplicaSpecs[t].replicas ?? 1); i < n; i++) {
          const pn = `${name}-${t.toLowerCase()}-${i}`;
          if (!byName.has(pn)) plan.create.push(pytorchPod(job, t, i));
          plan.services.push(
            service({
              name: pn,
              namespace: ns,
              owner: job,
              headless: true,
              selector: { [`${TK}/job-name`]: name, [`${TK}/operator-name`]: 'pytorchjob-controller', [`${TK}/replica-index`]: String(i), [`${TK}/replica-type`]: t.toLowerCase() },
              labels: pytorchLabels(name, t, i, false),
              ports: [{ name: 'pytorchjob-port', port: masterPort(spec) }],
            }),
          );
        }
      }
      if ((mrs.active ?? 0) > 0 && retry.size === 0) {
        conds = setJobCondition(conds, 'Running', 'True', `${kind}Running`, `${kind} ${ns}/${name} is running.`, nowIso);
      }
    }
  }
  const nowDone = hasCondition(conds, 'Succeeded') || hasCondition(conds, 'Failed');
  if (nowDone) {
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

export class PyTorchJobController implements Controller {
  readonly name = 'pytorchjob';
  readonly primary = 'kubeflow.org/PyTorchJob';
  readonly priority = 2;
  readonly owns = ['/Pod', '/Service'];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const job = rt.get('kubeflow.org/v1', 'PyTorchJob', ns, name);
    if (!job || job.metadata.deletionTimestamp) return;
    const pods = rt.children<Pod>(job, '/Pod');
    const plan = planPyTorchJob(job, pods, rt.now());
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
