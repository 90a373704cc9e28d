/**
 * JobSet operator (jobset.x-k8s.io/v1alpha2): one Job `<js>-<rj>-<i>` per replicatedJob replica, with the
 * `jobset.sigs.k8s.io/*` labels and identical annotations on the Job and its pod template; a headless
 * Service named after the subdomain; webhook defaults (Indexed jobs, restartPolicy OnFailure, DNS
 * hostnames); dependsOn / InOrder startup; success and failure policies with restarts; suspend mirrored
 * onto the Jobs; replicatedJobsStatus counted in Jobs; terminalState and conditions.
 */

import { ctrlRef, isConditionTrue, mergeMaps, setCondition } from './meta.ts';
import { isJobFinished } from './job.ts';
import { bounded } from './limits.ts';
import type { JobSpec, JobStatus } from './job.ts';
import { sha1Hex } from './random.ts';
import type { Controller, Runtime } from './runtime.ts';
import { service } from './services.ts';
import type { Condition, KubeObject, PodTemplateSpec, StringMap } from './types.ts';

export const JS = 'jobset.sigs.k8s.io';

interface ReplicatedJob {
  name: string;
  groupName?: string;
  replicas?: number;
  template: { metadata?: { labels?: StringMap; annotations?: StringMap }; spec: JobSpec };
  dependsOn?: Array<{ name: string; status: 'Ready' | 'Complete' }>;
}

export interface JobSetSpec {
  replicatedJobs: ReplicatedJob[];
  network?: { enableDNSHostnames?: boolean; subdomain?: string; publishNotReadyAddresses?: boolean };
  successPolicy?: { operator?: 'All' | 'Any'; targetReplicatedJobs?: string[] };
  failurePolicy?: { maxRestarts?: number; restartStrategy?: string; rules?: Array<{ name: string; action: string; onJobFailureReasons?: string[]; targetReplicatedJobs?: string[] }> };
  startupPolicy?: { startupPolicyOrder?: 'AnyOrder' | 'InOrder' };
  suspend?: boolean;
  coordinator?: { replicatedJob: string; jobIndex?: number; podIndex?: number };
  ttlSecondsAfterFinished?: number;
}

interface RjStatus {
  name: string;
  ready: number;
  succeeded: number;
  failed: number;
  active: number;
  suspended: number;
}

export interface JobSetStatus {
  conditions?: Condition[];
  restarts?: number;
  restartsCountTowardsMax?: number;
  terminalState?: string;
  replicatedJobsStatus?: RjStatus[];
}

export function jobName(js: string, rj: string, i: number): string {
  return `${js}-${rj}-${i}`;
}

/** Labels (and identical annotations) of one child Job and its pods. */
export function jobSetLabels(js: KubeObject, rj: ReplicatedJob, index: number, restarts: number): StringMap {
  const spec = js.spec as JobSetSpec;
  const rjs = spec.replicatedJobs;
  const global = rjs.reduce((n, r) => n + (r.replicas ?? 1), 0);
  let globalIndex = 0;
  for (const r of rjs) {
    if (r.name === rj.name) break;
    globalIndex += r.replicas ?? 1;
  }
  globalIndex += index;
  const group = rj.groupName ?? 'default';
  const inGroup = rjs.filter((r) => (r.groupName ?? 'default') === group);
  let groupIndex = 0;
  for (const r of inGroup) {
    if (r.name === rj.name) break;
    groupIndex += r.replicas ?? 1;
  }
  groupIndex += index;
  const name = jobName(js.metadata.name!, rj.name, index);
  const labels: StringMap = {
    [`${JS}/jobset-name`]: js.metadata.name!,
    [`${JS}/jobset-uid`]: js.metadata.uid!,
    [`${JS}/replicatedjob-name`]: rj.name,
    [`${JS}/replicatedjob-replicas`]: String(rj.replicas ?? 1),
    [`${JS}/global-replicas`]: String(global),
    [`${JS}/job-index`]: String(index),
    [`${JS}/job-global-index`]: String(globalIndex),
    [`${JS}/job-key`]: sha1Hex(`${js.metadata.namespace}/${name}`),
    [`${JS}/restart-attempt`]: String(restarts),
    [`${JS}/group-name`]: group,
    [`${JS}/group-replicas`]: String(inGroup.reduce((n, r) => n + (r.replicas ?? 1), 0)),
    [`${JS}/job-group-index`]: String(groupIndex),
  };
  if (spec.coordinator) {
    const c = spec.coordinator;
    const sub = spec.network?.subdomain ?? js.metadata.name!;
    labels[`${JS}/coordinator`] = `${js.metadata.name}-${c.replicatedJob}-${c.jobIndex ?? 0}-${c.podIndex ?? 0}.${sub}`;
  }
  return labels;
}

/** The child Job for replica `index` of a replicatedJob, with the webhook's defaults applied. */
export function jobSetJob(js: KubeObject, rj: ReplicatedJob, index: number, restarts: number): KubeObject {
  const spec = js.spec as JobSetSpec;
  const labels = jobSetLabels(js, rj, index, restarts);
  const jobSpec = rj.template.spec;
  const podTemplate: PodTemplateSpec = jobSpec.template;
  const dns = spec.network?.enableDNSHostnames ?? true;
  const subdomain = spec.network?.subdomain ?? js.metadata.name!;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: jobName(js.metadata.name!, rj.name, index),
      namespace: js.metadata.namespace,
      labels: mergeMaps(rj.template.metadata?.labels, labels),
      annotations: mergeMaps(rj.template.metadata?.annotations, labels),
      ownerReferences: [ctrlRef(js)],
    },
    spec: {
      ...jobSpec,
      completionMode: jobSpec.completionMode ?? 'Indexed',
      suspend: !!spec.suspend,
      template: {
        ...podTemplate,
        metadata: {
          ...(podTemplate.metadata ?? {}),
          labels: mergeMaps(podTemplate.metadata?.labels, labels),
          annotations: mergeMaps(podTemplate.metadata?.annotations, labels),
        },
        spec: {
          ...podTemplate.spec,
          restartPolicy: podTemplate.spec.restartPolicy ?? 'OnFailure',
          ...(dns ? { subdomain } : {}),
        },
      },
    },
  };
}

function jobReady(job: KubeObject): boolean {
  const spec = job.spec as JobSpec;
  const st = (job.status ?? {}) as JobStatus;
  const parallelism = spec.parallelism ?? 1;
  const need = Math.min(parallelism, spec.completions ?? parallelism);
  return (st.ready ?? 0) + (st.succeeded ?? 0) >= need;
}

/** Pure: per-replicatedJob counts of Jobs (not pods), as the controller reports them. */
export function replicatedJobsStatus(spec: JobSetSpec, jobs: KubeObject[]): RjStatus[] {
  return spec.replicatedJobs.map((rj) => {
    const s: RjStatus = { name: rj.name, ready: 0, succeeded: 0, failed: 0, active: 0, suspended: 0 };
    for (const j of jobs) {
      if (j.metadata.labels?.[`${JS}/replicatedjob-name`] !== rj.name) continue;
      const fin = isJobFinished(j);
      if (fin === 'Complete') s.succeeded++;
      else if (fin === 'Failed') s.failed++;
      else {
        if ((j.spec as JobSpec).suspend) s.suspended++;
        if (jobReady(j)) s.ready++;
        if (((j.status ?? {}) as JobStatus).active) s.active++;
      }
    }
    return s;
  });
}

export interface JobSetPlan {
  create: KubeObject[];
  remove: KubeObject[];
  suspendJobs: Array<{ job: KubeObject; suspend: boolean }>;
  service?: KubeObject;
  status: JobSetStatus;
  deleteSelf?: boolean;
  recheckMs?: number;
}

/** Pure reconcile of a JobSet against its Jobs. */
export function planJobSet(js: KubeObject, jobs: KubeObject[], nowIso: string): JobSetPlan {
  const spec = js.spec as JobSetSpec;
  const prev = (js.status ?? {}) as JobSetStatus;
  const plan: JobSetPlan = { create: [], remove: [], suspendJobs: [], status: {} };
  let conditions = prev.conditions ? [...prev.conditions] : [];
  let restarts = prev.restarts ?? 0;
  let restartsTowardsMax = prev.restartsCountTowardsMax ?? 0;
  let terminal = prev.terminalState ?? '';
  const nowMs = Date.parse(nowIso);

  // Jobs of an earlier restart attempt are deleted before the new attempt starts.
  const stale = jobs.filter((j) => Number(j.metadata.labels?.[`${JS}/restart-attempt`] ?? 0) < restarts);
  const current = jobs.filter((j) => !stale.includes(j));
  plan.remove.push(...stale);
  const rjStatus = replicatedJobsStatus(spec, current);

  const finished = isConditionTrue(js, 'Completed') || isConditionTrue(js, 'Failed');
  if (!finished) {
    // Failure: a failed Job fails the JobSet unless restarts are left.
    const failedJob = current.find((j) => isJobFinished(j) === 'Failed');
    const maxRestarts = spec.failurePolicy?.maxRestarts ?? 0;
    if (failedJob) {
      if (restarts < maxRestarts) {
        restarts++;
        restartsTowardsMax++;
        plan.remove.push(...current);
      } else {
        const reason = maxRestarts > 0 ? 'ReachedMaxRestarts' : 'FailedJobs';
        const message = maxRestarts > 0 ? 'jobset failed due to reaching max number of restarts' : 'jobset failed due to one or more job failures';
        conditions = setCondition(conditions, { type: 'Failed', status: 'True', reason, message }, nowIso);
        terminal = 'Failed';
      }
    } else {
      // Success policy: All (default) or Any, over the target replicatedJobs (default all).
      const op = spec.successPolicy?.operator ?? 'All';
      const targets = spec.successPolicy?.targetReplicatedJobs?.length ? spec.successPolicy.targetReplicatedJobs : spec.replicatedJobs.map((r) => r.name);
      const targetJobs = spec.replicatedJobs.filter((r) => targets.includes(r.name));
      const done = op === 'Any'
        ? rjStatus.some((s) => targets.includes(s.name) && s.succeeded > 0)
        : targetJobs.every((r) => rjStatus.find((s) => s.name === r.name)!.succeeded >= (r.replicas ?? 1));
      if (done) {
        conditions = setCondition(conditions, { type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'jobset completed successfully' }, nowIso);
        terminal = 'Completed';
      }
    }
  }
  const nowFinished = terminal === 'Completed' || terminal === 'Failed';

  if (nowFinished) {
    // On finish the still-active Jobs are deleted.
    for (const j of current) if (!isJobFinished(j) && !plan.remove.includes(j)) plan.remove.push(j);
    if (spec.ttlSecondsAfterFinished !== undefined) {
      const c = conditions.find((x) => (x.type === 'Completed' || x.type === 'Failed') && x.status === 'True');
      const at = Date.parse(c?.lastTransitionTime ?? nowIso) + spec.ttlSecondsAfterFinished * 1000;
      if (at <= nowMs) plan.deleteSelf = true;
      else plan.recheckMs = at - nowMs;
    }
  } else if (!plan.remove.some((j) => current.includes(j))) {
    // Suspend / resume.
    const suspended = !!spec.suspend;
    const susCond = conditions.find((c) => c.type === 'Suspended');
    if (suspended && susCond?.status !== 'True') {
      conditions = setCondition(conditions, { type: 'Suspended', status: 'True', reason: 'SuspendedJobs', message: 'jobset is suspended' }, nowIso);
    } else if (!suspended && susCond?.status === 'True') {
      conditions = setCondition(conditions, { type: 'Suspended', status: 'False', reason: 'ResumeJobs', message: 'jobset is resumed' }, nowIso);
    }
    for (const j of current) {
      if (!isJobFinished(j) && !!(j.spec as JobSpec).suspend !== suspended) plan.suspendJobs.push({ job: j, suspend: suspended });
    }
    // Create missing Jobs, honouring dependsOn and InOrder startup.
    const inOrder = spec.startupPolicy?.startupPolicyOrder === 'InOrder';
    let previousReady = true;
    const existing = new Set(current.map((j) => j.metadata.name));
    for (const rj of spec.replicatedJobs) {
      const s = rjStatus.find((x) => x.name === rj.name)!;
      const replicas = rj.replicas ?? 1;
      const depsMet = (rj.dependsOn ?? []).every((d) => {
        const ds = rjStatus.find((x) => x.name === d.name);
        const dr = spec.replicatedJobs.find((x) => x.name === d.name)?.replicas ?? 1;
        return !!ds && (d.status === 'Complete' ? ds.succeeded >= dr : ds.ready + ds.succeeded >= dr);
      });
      if ((!inOrder || previousReady) && depsMet) {
        // At most MAX_CHILDREN_PER_OWNER Jobs are ever planned (the runtime refuses more and reports it).
        for (let i = 0, n = bounded(replicas); i < n; i++) {
          const name = jobName(js.metadata.name!, rj.name, i);
          if (!existing.has(name)) plan.create.push(jobSetJob(js, rj, i, restarts));
        }
      }
      previousReady = previousReady && s.ready + s.succeeded >= replicas;
    }
    if (inOrder && !suspended) {
      const allReady = rjStatus.every((s, i) => s.ready + s.succeeded >= (spec.replicatedJobs[i].replicas ?? 1));
      if (allReady) {
        conditions = setCondition(conditions, { type: 'StartupPolicyInProgress', status: 'False', reason: 'InOrderStartupPolicyCompleted', message: 'in order startup policy has completed' }, nowIso);
        conditions = setCondition(conditions, { type: 'StartupPolicyCompleted', status: 'True', reason: 'InOrderStartupPolicyCompleted', message: 'in order startup policy has completed' }, nowIso);
      } else if (!isConditionTrue({ status: { conditions } }, 'StartupPolicyCompleted')) {
        conditions = setCondition(conditions, { type: 'StartupPolicyInProgress', status: 'True', reason: 'InOrderStartupPolicyInProgress', message: 'in order startup policy is in progress' }, nowIso);
      }
    }
  }

  if (spec.network?.enableDNSHostnames ?? true) {
    plan.service = service({
      name: spec.network?.subdomain ?? js.metadata.name!,
      namespace: js.metadata.namespace!,
      owner: js,
      headless: true,
      selector: { [`${JS}/jobset-name`]: js.metadata.name! },
      publishNotReadyAddresses: spec.network?.publishNotReadyAddresses ?? true,
    });
  }
  const status: JobSetStatus = {};
  if (conditions.length > 0) status.conditions = conditions;
  status.restarts = restarts;
  if (restartsTowardsMax) status.restartsCountTowardsMax = restartsTowardsMax;
  if (terminal) status.terminalState = terminal;
  status.replicatedJobsStatus = rjStatus;
  plan.status = status;
  return plan;
}

export class JobSetController implements Controller {
  readonly name = 'jobset';
  readonly primary = 'jobset.x-k8s.io/JobSet';
  readonly priority = 2;
  readonly owns = ['batch/Job'];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const js = rt.get('jobset.x-k8s.io/v1alpha2', 'JobSet', ns, name);
    if (!js || js.metadata.deletionTimestamp) return;
    const jobs = rt.children(js, 'batch/Job');
    const plan = planJobSet(js, jobs, rt.now());
    rt.setStatus(js, plan.status);
    for (const j of plan.remove) rt.delete(j);
    for (const s of plan.suspendJobs) rt.update({ ...s.job, spec: { ...(s.job.spec as object), suspend: s.suspend } });
    // The headless Service first: a create the child limit refuses ends the reconcile.
    if (plan.service) rt.ensure(plan.service);
    for (const j of plan.create) {
      if (!rt.get('batch/v1', 'Job', ns, j.metadata.name!)) rt.create(j);
    }
    if (plan.deleteSelf) rt.delete(js);
    else if (plan.recheckMs) rt.after(this, ns, name, plan.recheckMs);
  }
}
