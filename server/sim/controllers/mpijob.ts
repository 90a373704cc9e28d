/**
 * MPIJob operator (kubeflow.org/v2beta1, mpi-operator v2): ConfigMap `<mj>-config` (hostfile,
 * discover_hosts.sh), Secret `<mj>-ssh`, headless Service `<mj>`, worker pods `<mj>-worker-<i>` created
 * directly, and a launcher batch Job `<mj>-launcher` whose pod runs mpirun. Labels
 * `training.kubeflow.org/job-role=launcher|worker` (no replica-type in v2beta1). Status follows the
 * launcher Job: Created → Running (launcher and all workers running) → Succeeded / Failed; suspend
 * deletes workers and suspends the launcher Job.
 */

import { bounded } from './limits.ts';
import { isJobFinished } from './job.ts';
import type { JobStatus } from './job.ts';
import { hasCondition, setJobCondition } from './kubeflow.ts';
import type { KubeflowJobStatus, ReplicaStatus } from './kubeflow.ts';
import { ctrlRef, getCondition, isPodActive, isPodRunning, mergeMaps } from './meta.ts';
import { buildPod, SIM } from './pods.ts';
import { TK, applyTrainingPlan } from './training-operator.ts';
import type { ReplicaSpec, RunPolicy } from './training-operator.ts';
import { deepEqual } from './runtime.ts';
import type { Controller, Runtime } from './runtime.ts';
import { service } from './services.ts';
import type { EnvVar, KubeObject, Pod } from './types.ts';

export interface MPIJobSpec {
  slotsPerWorker?: number;
  runLauncherAsWorker?: boolean;
  launcherCreationPolicy?: 'AtStartup' | 'WaitForWorkersReady';
  mpiImplementation?: 'OpenMPI' | 'Intel' | 'MPICH';
  sshAuthMountPath?: string;
  runPolicy?: RunPolicy;
  mpiReplicaSpecs: { Launcher: ReplicaSpec; Worker?: ReplicaSpec };
}

export function mpiLabels(mj: string, role: 'launcher' | 'worker', index?: number): Record<string, string> {
  return {
    [`${TK}/operator-name`]: 'mpi-operator',
    [`${TK}/job-name`]: mj,
    [`${TK}/job-role`]: role,
    ...(index !== undefined ? { [`${TK}/replica-index`]: String(index) } : {}),
  };
}

function workerCount(spec: MPIJobSpec): number {
  return bounded(spec.mpiReplicaSpecs.Worker?.replicas ?? 0);
}

export function mpiWorkerPod(mj: KubeObject, i: number): Pod {
  const spec = mj.spec as MPIJobSpec;
  const name = mj.metadata.name!;
  const ws = spec.mpiReplicaSpecs.Worker!;
  const idx = spec.runLauncherAsWorker ? i + 1 : i;
  // Workers run sshd until the launcher is done; the simulation keeps them up unless told otherwise.
  const ann = ws.template.metadata?.annotations?.[SIM.duration] ? undefined : { [SIM.duration]: 'forever' };
  return buildPod({
    namespace: mj.metadata.namespace!,
    name: `${name}-worker-${i}`,
    template: ws.template,
    labels: mpiLabels(name, 'worker', idx),
    annotations: ann,
    ownerRef: ctrlRef(mj),
    hostname: `${name}-worker-${i}`,
    subdomain: name,
    restartPolicy: ws.restartPolicy === 'ExitCode' ? 'Never' : (ws.restartPolicy ?? 'Never'),
  });
}

export function mpiLauncherJob(mj: KubeObject): KubeObject {
  const spec = mj.spec as MPIJobSpec;
  const name = mj.metadata.name!;
  const ls = spec.mpiReplicaSpecs.Launcher;
  const slots = spec.slotsPerWorker ?? 1;
  const run = spec.runPolicy ?? {};
  const labels = mpiLabels(name, 'launcher', spec.runLauncherAsWorker ? 0 : undefined);
  const env: EnvVar[] = [
    { name: 'OMPI_MCA_orte_keep_fqdn_hostnames', value: 'true' },
    { name: 'OMPI_MCA_orte_default_hostfile', value: '/etc/mpi/hostfile' },
    { name: 'OMPI_MCA_plm_rsh_args', value: '-o ConnectionAttempts=10' },
    { name: 'OMPI_MCA_orte_set_default_slots', value: String(slots) },
    ...(spec.runLauncherAsWorker ? [] : [{ name: 'NVIDIA_VISIBLE_DEVICES', value: '' }, { name: 'NVIDIA_DRIVER_CAPABILITIES', value: '' }]),
  ];
  const containers = ls.template.spec.containers.map((c, i) => {
    if (i !== 0) return c;
    const own = new Set((c.env ?? []).map((e) => e.name));
    return { ...c, env: [...(c.env ?? []), ...env.filter((e) => !own.has(e.name))] };
  });
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: `${name}-launcher`, namespace: mj.metadata.namespace, labels: mergeMaps(labels, { app: name }), ownerReferences: [ctrlRef(mj)] },
    spec: {
      backoffLimit: run.backoffLimit ?? 6,
      ...(run.activeDeadlineSeconds !== undefined ? { activeDeadlineSeconds: run.activeDeadlineSeconds } : {}),
      ...(run.ttlSecondsAfterFinished !== undefined ? { ttlSecondsAfterFinished: run.ttlSecondsAfterFinished } : {}),
      podReplacementPolicy: 'Failed',
      suspend: !!run.suspend,
      completions: 1,
      parallelism: 1,
      template: {
        metadata: { ...(ls.template.metadata ?? {}), labels: mergeMaps(ls.template.metadata?.labels, labels) },
        spec: {
          ...ls.template.spec,
          containers,
          hostname: `${name}-launcher`,
          subdomain: name,
          restartPolicy: ls.restartPolicy === 'ExitCode' ? 'Never' : (ls.restartPolicy ?? 'OnFailure'),
        },
      },
    },
  };
}

export function mpiConfigMap(mj: KubeObject, runningWorkers: number[]): KubeObject {
  const spec = mj.spec as MPIJobSpec;
  const name = mj.metadata.name!;
  const ns = mj.metadata.namespace!;
  const slots = spec.slotsPerWorker ?? 1;
  const hosts: string[] = [];
  if (spec.runLauncherAsWorker) hosts.push(`${name}-launcher.${name}.${ns}.svc slots=${slots}`);
  for (let i = 0; i < workerCount(spec); i++) hosts.push(`${name}-worker-${i}.${name}.${ns}.svc slots=${slots}`);
  const discover = ['#!/bin/sh', ...runningWorkers.map((i) => `echo ${name}-worker-${i}.${name}.${ns}.svc:${slots}`)].join('\n');
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${name}-config`, namespace: ns, labels: { app: name }, ownerReferences: [ctrlRef(mj)] },
    data: { hostfile: `${hosts.join('\n')}\n`, 'discover_hosts.sh': `${discover}\n` },
  };
}

function sshSecret(mj: KubeObject): KubeObject {
  // Placeholder key material: the simulation has no sshd to talk to.
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${mj.metadata.name}-ssh`, namespace: mj.metadata.namespace, labels: { app: mj.metadata.name! }, ownerReferences: [ctrlRef(mj)] },
    type: 'kubernetes.io/ssh-auth',
    data: {
      'ssh-privatekey': b64('-----BEGIN EC PRIVATE KEY-----\nsimulated\n-----END EC PRIVATE KEY-----\n'),
      'ssh-publickey': b64(`ecdsa-sha2-nistp521 simulated ${mj.metadata.name}\n`),
    },
  };
}

export interface MPIPlan {
  create: Pod[];
  remove: Pod[];
  services: KubeObject[];
  removeServices: boolean;
  objects: KubeObject[];
  launcher?: KubeObject;
  suspendLauncher?: boolean;
  status: KubeflowJobStatus;
}

/** Pure reconcile of an MPIJob against its worker pods, launcher Job and launcher pods. */
export function planMPIJob(mj: KubeObject, workers: Pod[], launcher: KubeObject | undefined, launcherPods: Pod[], nowIso: string): MPIPlan {
  const spec = mj.spec as MPIJobSpec;
  const name = mj.metadata.name!;
  const ns = mj.metadata.namespace!;
  const run = spec.runPolicy ?? {};
  const prev = (mj.status ?? {}) as KubeflowJobStatus;
  const plan: MPIPlan = { create: [], remove: [], services: [], removeServices: false, objects: [], status: {} };
  let conds = prev.conditions ? [...prev.conditions] : [];
  let startTime = prev.startTime;
  let completionTime = prev.completionTime;
  if (conds.length === 0) conds = setJobCondition(conds, 'Created', 'True', 'MPIJobCreated', `MPIJob ${ns}/${name} is created.`, nowIso);
  const n = workerCount(spec);
  const byName = new Map(workers.map((p) => [p.metadata.name!, p]));
  const running: number[] = [];
  const w: ReplicaStatus = {};
  let wActive = 0;
  let wFailed = 0;
  let wSucceeded = 0;
  for (let i = 0; i < n; i++) {
    const p = byName.get(`${name}-worker-${i}`);
    if (!p) continue;
    if (isPodRunning(p)) {
      running.push(i);
      wActive++;
    } else if (p.status?.phase === 'Failed') wFailed++;
    else if (p.status?.phase === 'Succeeded') wSucceeded++;
  }
  const lst = (launcher?.status ?? {}) as JobStatus;
  const l: ReplicaStatus = {};
  if (lst.active) l.active = lst.active;
  if (lst.succeeded) l.succeeded = lst.succeeded;
  if (lst.failed) l.failed = lst.failed;
  if (wActive) w.active = wActive;
  if (wSucceeded) w.succeeded = wSucceeded;
  if (wFailed) w.failed = wFailed;
  const finished = hasCondition(conds, 'Succeeded') || hasCondition(conds, 'Failed');
  const fin = launcher ? isJobFinished(launcher) : undefined;

  plan.objects.push(mpiConfigMap(mj, running), sshSecret(mj));
  plan.services.push(service({ name, namespace: ns, owner: mj, headless: true, selector: { [`${TK}/operator-name`]: 'mpi-operator', [`${TK}/job-name`]: name }, labels: { app: name } }));

  if (!finished && run.suspend) {
    plan.remove = workers.filter((p) => !p.metadata.deletionTimestamp);
    plan.suspendLauncher = true;
    // The launcher Job exists while suspended too, with spec.suspend set (what queueing systems resume).
    if (!launcher && (spec.launcherCreationPolicy ?? 'AtStartup') === 'AtStartup') plan.launcher = mpiLauncherJob(mj);
    if (!hasCondition(conds, 'Suspended')) conds = setJobCondition(conds, 'Suspended', 'True', 'MPIJobSuspended', 'MPIJob suspended', nowIso);
    startTime = undefined;
    delete w.active;
  } else if (!finished) {
    if (hasCondition(conds, 'Suspended')) {
      conds = setJobCondition(conds, 'Suspended', 'False', 'MPIJobResumed', 'MPIJob resumed', nowIso);
      plan.suspendLauncher = false;
    }
    startTime ??= nowIso;
    if (fin === 'Complete') {
      conds = setJobCondition(conds, 'Succeeded', 'True', 'MPIJobSucceeded', `MPIJob ${ns}/${name} successfully completed.`, nowIso);
      completionTime ??= nowIso;
    } else if (fin === 'Failed') {
      const fc = getCondition(launcher!, 'Failed');
      const podReason = launcherPods.find((p) => p.status?.phase === 'Failed')?.status?.containerStatuses?.[0]?.state.terminated?.reason;
      const reason = fc?.reason ? (podReason ? `${fc.reason}/${podReason}` : fc.reason) : 'MPIJobFailed';
      conds = setJobCondition(conds, 'Failed', 'True', reason, `MPIJob ${ns}/${name} has failed: ${fc?.message ?? 'launcher failed'}`, nowIso);
      completionTime ??= nowIso;
    } else if (wFailed > 0) {
      conds = setJobCondition(conds, 'Failed', 'True', 'MPIJobFailed', `MPIJob ${ns}/${name} has failed because ${wFailed} Worker replica(s) failed.`, nowIso);
      completionTime ??= nowIso;
    } else {
      for (let i = 0; i < n; i++) if (!byName.has(`${name}-worker-${i}`)) plan.create.push(mpiWorkerPod(mj, i));
      const workersReady = running.length === n;
      if (!launcher && ((spec.launcherCreationPolicy ?? 'AtStartup') === 'AtStartup' || workersReady)) plan.launcher = mpiLauncherJob(mj);
      const launcherRunning = launcherPods.some((p) => isPodRunning(p));
      if (launcherRunning && workersReady) conds = setJobCondition(conds, 'Running', 'True', 'MPIJobRunning', `MPIJob ${ns}/${name} is running.`, nowIso);
    }
  }
  if (hasCondition(conds, 'Succeeded') || hasCondition(conds, 'Failed')) {
    const policy = run.cleanPodPolicy ?? 'None';
    if (policy === 'All') plan.remove = workers.filter((p) => !p.metadata.deletionTimestamp);
    else if (policy === 'Running') plan.remove = workers.filter(isPodActive);
    delete w.active;
  }
  const status: KubeflowJobStatus = { conditions: conds, replicaStatuses: { Launcher: l, ...(spec.mpiReplicaSpecs.Worker ? { Worker: w } : {}) } };
  if (startTime) status.startTime = startTime;
  if (completionTime) status.completionTime = completionTime;
  const changed = !deepEqual(status, { conditions: prev.conditions, replicaStatuses: prev.replicaStatuses, startTime: prev.startTime, completionTime: prev.completionTime });
  status.lastReconcileTime = changed || !prev.lastReconcileTime ? nowIso : prev.lastReconcileTime;
  plan.status = status;
  return plan;
}

export class MPIJobController implements Controller {
  readonly name = 'mpijob';
  readonly primary = 'kubeflow.org/MPIJob';
  readonly priority = 2;
  readonly owns = ['/Pod', 'batch/Job'];
  readonly watches = [
    {
      // The launcher pod belongs to the launcher Job; its phase feeds the Running condition.
      gk: '/Pod',
      map: (obj: KubeObject): Array<[string, string]> => {
        const l = obj.metadata.labels;
        return l?.[`${TK}/operator-name`] === 'mpi-operator' && l[`${TK}/job-role`] === 'launcher' ? [[obj.metadata.namespace ?? '', l[`${TK}/job-name`]]] : [];
      },
    },
  ];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const mj = rt.get('kubeflow.org/v2beta1', 'MPIJob', ns, name);
    if (!mj || mj.metadata.deletionTimestamp) return;
    const workers = rt.children<Pod>(mj, '/Pod');
    const launcher = rt.children(mj, 'batch/Job')[0];
    const launcherPods = launcher ? rt.children<Pod>(launcher, '/Pod') : [];
    const plan = planMPIJob(mj, workers, launcher, launcherPods, rt.now());
    rt.setStatus(mj, plan.status);
    for (const o of plan.objects) rt.apply(o);
    applyTrainingPlan(rt, mj, plan);
    if (plan.launcher) rt.create(plan.launcher);
    if (launcher && plan.suspendLauncher !== undefined && !!(launcher.spec as { suspend?: boolean }).suspend !== plan.suspendLauncher) {
      rt.update({ ...launcher, spec: { ...(launcher.spec as object), suspend: plan.suspendLauncher } });
    }
  }
}
