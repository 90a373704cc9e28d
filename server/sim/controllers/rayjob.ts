/**
 * KubeRay RayJob operator (ray.io/v1): a RayCluster `<rayjob>-<rand5>` with the originated-from labels,
 * then (K8sJobMode) a submitter batch Job `<rayjob>` running `ray job submit` once the cluster is ready.
 * jobDeploymentStatus moves Initializing → Running → Complete / Failed (Suspending / Suspended on
 * suspend, Waiting in InteractiveMode); jobStatus PENDING → RUNNING → SUCCEEDED / FAILED follows the
 * submitter, whose run time stands for the Ray job's. shutdownAfterJobFinishes deletes the cluster.
 */

import { isJobFinished } from './job.ts';
import { ctrlRef, getCondition, isPodRunning, mergeMaps, parseDuration } from './meta.ts';
import { SIM } from './pods.ts';
import type { RayClusterSpec, RayClusterStatus } from './raycluster.ts';
import { RAY } from './raycluster.ts';
import type { Controller, Runtime } from './runtime.ts';
import type { KubeObject, Pod, PodTemplateSpec } from './types.ts';

export interface RayJobSpec {
  entrypoint?: string;
  rayClusterSpec?: RayClusterSpec;
  clusterSelector?: Record<string, string>;
  submissionMode?: 'K8sJobMode' | 'HTTPMode' | 'InteractiveMode' | 'SidecarMode';
  submitterPodTemplate?: PodTemplateSpec;
  submitterConfig?: { backoffLimit?: number };
  shutdownAfterJobFinishes?: boolean;
  ttlSecondsAfterFinished?: number;
  activeDeadlineSeconds?: number;
  suspend?: boolean;
  jobId?: string;
  entrypointNumGpus?: number;
}

export interface RayJobStatus {
  jobId?: string;
  rayClusterName?: string;
  dashboardURL?: string;
  jobStatus?: string;
  jobDeploymentStatus?: string;
  reason?: string;
  message?: string;
  startTime?: string;
  endTime?: string;
  succeeded?: number;
  failed?: number;
  rayClusterStatus?: RayClusterStatus;
  rayJobInfo?: { startTime?: string; endTime?: string };
  observedGeneration?: number;
}

export function rayClusterFor(owner: KubeObject, name: string, spec: RayClusterSpec, crd: 'RayJob' | 'RayService', extraLabels?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'ray.io/v1',
    kind: 'RayCluster',
    metadata: {
      name,
      namespace: owner.metadata.namespace,
      labels: mergeMaps(owner.metadata.labels, { [`${RAY}/originated-from-cr-name`]: owner.metadata.name!, [`${RAY}/originated-from-crd`]: crd }, extraLabels),
      ownerReferences: [ctrlRef(owner)],
    },
    spec,
  };
}

export function submitterJob(rj: KubeObject, clusterName: string, jobId: string): KubeObject {
  const spec = rj.spec as RayJobSpec;
  const ns = rj.metadata.namespace!;
  const address = `http://${clusterName}-head-svc.${ns}.svc.cluster.local:8265`;
  const image = spec.rayClusterSpec?.headGroupSpec.template.spec.containers[0]?.image ?? 'rayproject/ray:2.46.0';
  const sim: Record<string, string> = {};
  for (const k of [SIM.duration, SIM.exitCode, SIM.startup]) {
    const v = rj.metadata.annotations?.[k];
    if (v !== undefined) sim[k] = v;
  }
  const base: PodTemplateSpec = spec.submitterPodTemplate ?? {
    spec: {
      restartPolicy: 'Never',
      containers: [
        {
          name: 'ray-job-submitter',
          image,
          command: ['/bin/sh'],
          args: ['-c', `if ! ray job status --address ${address} ${jobId} >/dev/null 2>&1 ; then ray job submit --address ${address} --no-wait --submission-id ${jobId} -- ${spec.entrypoint ?? 'python main.py'} ; fi ; ray job logs --address ${address} --follow ${jobId}`],
          env: [
            { name: 'RAY_DASHBOARD_ADDRESS', value: address },
            { name: 'RAY_JOB_SUBMISSION_ID', value: jobId },
          ],
          resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m', memory: '200Mi' } },
        },
      ],
    },
  };
  const labels = { [`${RAY}/originated-from-cr-name`]: rj.metadata.name!, [`${RAY}/originated-from-crd`]: 'RayJob', 'app.kubernetes.io/created-by': 'kuberay-operator' };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: rj.metadata.name, namespace: ns, labels, ownerReferences: [ctrlRef(rj)] },
    spec: {
      backoffLimit: spec.submitterConfig?.backoffLimit ?? 2,
      template: {
        ...base,
        metadata: { ...(base.metadata ?? {}), labels: mergeMaps(base.metadata?.labels, labels), annotations: mergeMaps(base.metadata?.annotations, sim) },
        spec: { ...base.spec, restartPolicy: base.spec.restartPolicy ?? 'Never' },
      },
    },
  };
}

export interface RayJobPlan {
  createCluster?: KubeObject;
  deleteCluster?: boolean;
  createSubmitter?: KubeObject;
  deleteSubmitter?: boolean;
  status: RayJobStatus;
  recheckMs?: number;
}

/** Pure reconcile of a RayJob against its cluster, submitter Job and submitter pods. */
export function planRayJob(rj: KubeObject, cluster: KubeObject | undefined, submitter: KubeObject | undefined, submitterPods: Pod[], nowIso: string, names: () => { cluster: string; jobId: string }): RayJobPlan {
  const spec = rj.spec as RayJobSpec;
  const prev = (rj.status ?? {}) as RayJobStatus;
  const st: RayJobStatus = { ...prev };
  const plan: RayJobPlan = { status: st };
  const nowMs = Date.parse(nowIso);
  const ns = rj.metadata.namespace!;
  const mode = spec.submissionMode ?? 'K8sJobMode';
  const selected = spec.clusterSelector?.[`${RAY}/cluster`];
  const terminal = st.jobDeploymentStatus === 'Complete' || st.jobDeploymentStatus === 'Failed';
  st.observedGeneration = rj.metadata.generation ?? 1;

  if (terminal) {
    if (spec.shutdownAfterJobFinishes && cluster && !selected) {
      const at = Date.parse(st.endTime ?? nowIso) + (spec.ttlSecondsAfterFinished ?? 0) * 1000;
      if (at <= nowMs) plan.deleteCluster = true;
      else plan.recheckMs = at - nowMs;
    }
    if (cluster) st.rayClusterStatus = cluster.status as RayClusterStatus;
    return plan;
  }
  if (spec.suspend) {
    if (cluster && !selected) plan.deleteCluster = true;
    if (submitter) plan.deleteSubmitter = true;
    if ((cluster && !selected) || submitter) st.jobDeploymentStatus = 'Suspending';
    else {
      st.jobDeploymentStatus = 'Suspended';
      delete st.rayClusterName;
      delete st.jobId;
      delete st.dashboardURL;
      delete st.rayClusterStatus;
      delete st.startTime;
      st.jobStatus = '';
    }
    return plan;
  }
  if (!st.jobDeploymentStatus || st.jobDeploymentStatus === 'Suspended' || st.jobDeploymentStatus === 'Suspending') {
    if (st.jobDeploymentStatus === 'Suspending') return plan;
    const n = names();
    st.jobId = spec.jobId ?? n.jobId;
    st.rayClusterName = selected ?? n.cluster;
    st.jobDeploymentStatus = 'Initializing';
    st.jobStatus = '';
    st.startTime = nowIso;
    st.dashboardURL = `${st.rayClusterName}-head-svc.${ns}.svc.cluster.local:8265`;
  }
  const deadline = spec.activeDeadlineSeconds;
  if (deadline !== undefined && st.startTime) {
    const end = Date.parse(st.startTime) + deadline * 1000;
    if (end <= nowMs) {
      st.jobDeploymentStatus = 'Failed';
      st.reason = 'DeadlineExceeded';
      st.message = `The RayJob has passed the activeDeadlineSeconds. StartTime: ${st.startTime}. ActiveDeadlineSeconds: ${deadline}`;
      st.endTime = nowIso;
      st.failed = (st.failed ?? 0) + 1;
      if (submitter) plan.deleteSubmitter = true;
      return plan;
    }
    plan.recheckMs = end - nowMs + 1;
  }
  if (!cluster) {
    if (!selected && spec.rayClusterSpec) plan.createCluster = rayClusterFor(rj, st.rayClusterName!, spec.rayClusterSpec, 'RayJob', { [`${RAY}/job-submission-mode`]: mode });
    return plan;
  }
  st.rayClusterStatus = cluster.status as RayClusterStatus;
  const clusterReady = (cluster.status as RayClusterStatus | undefined)?.state === 'ready';
  if (st.jobDeploymentStatus === 'Initializing') {
    if (!clusterReady) return plan;
    if (mode === 'InteractiveMode' && !spec.jobId) {
      st.jobDeploymentStatus = 'Waiting';
      return plan;
    }
    st.jobDeploymentStatus = 'Running';
    st.jobStatus = 'PENDING';
  }
  if (st.jobDeploymentStatus === 'Waiting') return plan;
  if (mode === 'HTTPMode' || mode === 'InteractiveMode') {
    // The operator submits over HTTP: the Ray job runs for the RayJob's simulated duration.
    st.jobStatus = 'RUNNING';
    st.rayJobInfo ??= { startTime: nowIso };
    const dur = parseDuration(rj.metadata.annotations?.[SIM.duration]) ?? 10 * 60_000;
    const end = Date.parse(st.rayJobInfo.startTime!) + dur;
    if (end <= nowMs) {
      const ok = (rj.metadata.annotations?.[SIM.exitCode] ?? '0') === '0';
      finish(st, ok, nowIso, ok ? undefined : 'AppFailed', ok ? undefined : 'Ray job failed');
    } else plan.recheckMs = Math.min(plan.recheckMs ?? Infinity, end - nowMs);
    return plan;
  }
  if (!submitter) {
    plan.createSubmitter = submitterJob(rj, st.rayClusterName!, st.jobId!);
    return plan;
  }
  const running = submitterPods.some(isPodRunning);
  if (running && st.jobStatus === 'PENDING') {
    st.jobStatus = 'RUNNING';
    st.rayJobInfo = { startTime: nowIso };
  }
  const fin = isJobFinished(submitter);
  if (fin === 'Complete') finish(st, true, nowIso);
  else if (fin === 'Failed') {
    const code = submitterPods.map((p) => p.status?.containerStatuses?.[0]?.state.terminated?.exitCode).find((c) => c !== undefined && c !== 0);
    if (code !== undefined) finish(st, false, nowIso, 'AppFailed', `Ray job ${st.jobId} failed: the entrypoint exited with code ${code}`);
    else {
      const c = getCondition(submitter, 'Failed');
      finish(st, false, nowIso, 'SubmissionFailed', `Job submission has failed. Reason: ${c?.reason ?? 'Unknown'}. Message: ${c?.message ?? ''}`);
    }
  }
  return plan;
}

function finish(st: RayJobStatus, ok: boolean, nowIso: string, reason?: string, message?: string): void {
  st.jobStatus = ok ? 'SUCCEEDED' : 'FAILED';
  st.jobDeploymentStatus = ok ? 'Complete' : 'Failed';
  st.endTime = nowIso;
  st.rayJobInfo = { ...(st.rayJobInfo ?? {}), endTime: nowIso };
  if (ok) st.succeeded = (st.succeeded ?? 0) + 1;
  else st.failed = (st.failed ?? 0) + 1;
  if (reason) st.reason = reason;
  if (message) st.message = message;
}

export class RayJobController implements Controller {
  readonly name = 'rayjob';
  readonly primary = 'ray.io/RayJob';
  readonly priority = 2;
  readonly owns = ['ray.io/RayCluster', 'batch/Job'];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const rj = rt.get('ray.io/v1', 'RayJob', ns, name);
    if (!rj || rj.metadata.deletionTimestamp) return;
    const prev = (rj.status ?? {}) as RayJobStatus;
    const selected = (rj.spec as RayJobSpec).clusterSelector?.[`${RAY}/cluster`];
    const cluster = prev.rayClusterName ? rt.get('ray.io/v1', 'RayCluster', ns, prev.rayClusterName) : undefined;
    const ownCluster = cluster && (selected || cluster.metadata.ownerReferences?.some((r) => r.uid === rj.metadata.uid)) ? cluster : undefined;
    const submitter = rt.children(rj, 'batch/Job')[0];
    const pods = submitter ? rt.children<Pod>(submitter, '/Pod') : [];
    const plan = planRayJob(rj, ownCluster, submitter, pods, rt.now(), () => ({ cluster: `${name}-${rt.rng.suffix(5)}`, jobId: `${name}-${rt.rng.suffix(5)}` }));
    if (plan.deleteCluster && ownCluster) rt.delete(ownCluster);
    if (plan.deleteSubmitter && submitter) rt.delete(submitter);
    rt.setStatus(rj, plan.status);
    if (plan.createCluster) rt.create(plan.createCluster);
    if (plan.createSubmitter) rt.create(plan.createSubmitter);
    if (plan.recheckMs) rt.after(this, ns, name, plan.recheckMs);
  }
}
