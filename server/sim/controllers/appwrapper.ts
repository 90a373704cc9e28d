/**
 * AppWrapper controller (workload.codeflare.dev/v1beta2, project-codeflare/appwrapper v1.2), with the
 * part of Kueue that admits it. The AppWrapper creates one object per `spec.components[]` (its
 * `template`, controller-owned by the AppWrapper, labelled `workload.codeflare.dev/appwrapper`), after
 * copying into every pod template its pod set points at Kueue's pod-set info (labels
 * `kueue.x-k8s.io/podset: <aw>-<n>`, node selector) and its own label; the wrapped kinds' operators
 * then make the pods. Phases: "" → Suspended (pod sets recorded in status.componentStatus) → Resuming
 * (admitted: components created) → Running (PodsReady from the pods carrying its label) → Succeeded,
 * or Unhealthy → Resetting (components deleted, a pause, Resuming again) until the retry limit → Failed;
 * suspend → Suspending → Suspended deletes the components.
 *
 * Kueue: an AppWrapper labelled `kueue.x-k8s.io/queue-name` and created suspended is admitted after
 * KUEUE_ADMIT_MS (quota is not modelled): Kueue writes `podSetInfos` and sets `spec.suspend: false`.
 */

import { ctrlRef, getCondition, isPodDeleting, mergeMaps, setCondition, timePlus } from './meta.ts';
import { deepEqual } from './runtime.ts';
import type { Controller, Runtime } from './runtime.ts';
import type { Condition, KubeObject, Pod } from './types.ts';

export const AW_LABEL = 'workload.codeflare.dev/appwrapper';
export const PODSET_LABEL = 'kueue.x-k8s.io/podset';
export const QUEUE_LABEL = 'kueue.x-k8s.io/queue-name';
const AW_API = 'workload.codeflare.dev/v1beta2';

/** The controller's default fault tolerance (pkg/config): grace periods, retry pause and limit. */
export const AW_DEFAULTS = { failureGraceMs: 60_000, retryPauseMs: 90_000, retryLimit: 3 } as const;
export const KUEUE_ADMIT_MS = 3000;

export interface PodSet { replicas?: number; path: string; annotations?: Record<string, string> }
interface PodSetInfo { labels?: Record<string, string>; annotations?: Record<string, string>; nodeSelector?: Record<string, string> }
interface Component { template: KubeObject; podSets?: PodSet[]; podSetInfos?: PodSetInfo[]; annotations?: Record<string, string> }
interface ComponentStatus { name: string; kind: string; apiVersion: string; podSets: PodSet[]; conditions?: Condition[] }
export interface AppWrapperStatus { phase?: string; resettingCount?: number; conditions?: Condition[]; componentStatus?: ComponentStatus[] }
interface AppWrapperSpec { components: Component[]; suspend?: boolean }

// ------------------------------------------------------------------ pod-set paths

/** `template.spec.replicatedJobs[0].template` → ['spec', 'replicatedJobs', 0, 'template'] (below the component's template). */
export function parsePodSetPath(path: string): Array<string | number> | undefined {
  if (!path.startsWith('template')) return undefined;
  const out: Array<string | number> = [];
  const re = /\.([^.[\]]+)|\[(\d+)\]/g;
  let at = 'template'.length;
  for (let m = re.exec(path); m; m = re.exec(path)) {
    if (m.index !== at) return undefined;
    out.push(m[1] !== undefined ? m[1] : Number(m[2]));
    at = re.lastIndex;
  }
  return at === path.length ? out : undefined;
}

function at(obj: unknown, path: Array<string | number>): unknown {
  let cur = obj;
  for (const k of path) cur = cur && typeof cur === 'object' ? (cur as Record<string | number, unknown>)[k] : undefined;
  return cur;
}

const num = (v: unknown, d: number): number => (typeof v === 'number' ? v : d);

/** The controller's pod-set inference for the kinds it knows (utils.InferPodSets), when none are declared. */
export function inferPodSets(template: KubeObject): PodSet[] {
  const spec = (template.spec ?? {}) as Record<string, unknown>;
  const job = (s: Record<string, unknown> | undefined): number => Math.min(num(s?.parallelism, 1), num(s?.completions, Infinity));
  switch (`${template.apiVersion}:${template.kind}`) {
    case 'batch/v1:Job':
      return [{ replicas: job(spec), path: 'template.spec.template' }];
    case 'kubeflow.org/v1:PyTorchJob': {
      const rs = (spec.pytorchReplicaSpecs ?? {}) as Record<string, { replicas?: number; template?: unknown } | undefined>;
      return ['Master', 'Worker'].filter((t) => rs[t]?.template).map((t) => ({ replicas: num(rs[t]!.replicas, 1), path: `template.spec.pytorchReplicaSpecs.${t}.template` }));
    }
    case 'jobset.x-k8s.io/v1alpha2:JobSet':
      return ((spec.replicatedJobs ?? []) as Array<{ replicas?: number; template?: { spec?: Record<string, unknown> } }>).map((rj, i) => ({
        replicas: num(rj.replicas, 1) * job(rj.template?.spec), path: `template.spec.replicatedJobs[${i}].template.spec.template`,
      }));
    case 'apps/v1:Deployment':
    case 'apps/v1:StatefulSet':
      return [{ replicas: num(spec.replicas, 1), path: 'template.spec.template' }];
    case 'v1:Pod':
      return [{ replicas: 1, path: 'template' }];
    default:
      return [];
  }
}

/** The object a component deploys: its template with the AppWrapper's and Kueue's labels in every pod template. */
export function componentObject(aw: KubeObject, c: Component, podSets: PodSet[]): KubeObject {
  const obj = structuredClone(c.template);
  const name = aw.metadata.name!;
  obj.metadata = { ...obj.metadata, namespace: aw.metadata.namespace, labels: mergeMaps({ [AW_LABEL]: name }, obj.metadata?.labels), ownerReferences: [ctrlRef(aw)] };
  podSets.forEach((ps, i) => {
    const path = parsePodSetPath(ps.path);
    const pt = path && (at({ template: obj }, ['template', ...path]) as { metadata?: KubeObject['metadata']; spec?: Record<string, unknown> } | undefined);
    if (!pt?.spec) return;
    const info = c.podSetInfos?.[i] ?? {};
    pt.metadata = { ...(pt.metadata ?? {}), labels: mergeMaps(pt.metadata?.labels, info.labels, { [AW_LABEL]: name }) };
    if (info.annotations) pt.metadata.annotations = mergeMaps(pt.metadata.annotations, info.annotations);
    if (info.nodeSelector) pt.spec.nodeSelector = mergeMaps(pt.spec.nodeSelector as Record<string, string> | undefined, info.nodeSelector);
  });
  return obj;
}

/** Is a deployed component failed, as the controller reads its kind (Job and PyTorchJob: a Failed condition)? */
function componentFailed(obj: KubeObject): boolean {
  if ((obj.apiVersion === 'batch/v1' && obj.kind === 'Job') || (obj.apiVersion === 'kubeflow.org/v1' && obj.kind === 'PyTorchJob')) return getCondition(obj, 'Failed')?.status === 'True';
  return false;
}

// ------------------------------------------------------------------ the plan

export interface AppWrapperPlan {
  status: AppWrapperStatus;
  create: KubeObject[];
  remove: KubeObject[];
  /** Kueue's admission: spec with podSetInfos and suspend false. */
  admit?: AppWrapperSpec;
  requeueMs?: number;
}

interface PodCounts { pending: number; running: number; succeeded: number; failed: number }

function countPods(pods: Pod[]): PodCounts {
  const c = { pending: 0, running: 0, succeeded: 0, failed: 0 };
  for (const p of pods) {
    const ph = p.status?.phase;
    if (ph === 'Pending') c.pending++;
    else if (ph === 'Running' && !isPodDeleting(p)) c.running++;
    else if (ph === 'Succeeded') c.succeeded++;
    else if (ph === 'Failed') c.failed++;
  }
  return c;
}

/**
 * Pure reconcile of an AppWrapper against its deployed components (by index; undefined = absent) and
 * the pods carrying its label.
 */
export function planAppWrapper(aw: KubeObject, deployed: Array<KubeObject | undefined>, pods: Pod[], nowMs: number, nowIso: string): AppWrapperPlan {
  const spec = aw.spec as AppWrapperSpec;
  const prev = (aw.status ?? {}) as AppWrapperStatus;
  const st: AppWrapperStatus = structuredClone(prev);
  const plan: AppWrapperPlan = { status: st, create: [], remove: [] };
  const set = (type: string, status: 'True' | 'False', reason: string, message = ''): void => {
    st.conditions = setCondition(st.conditions, { type, status, reason, message }, nowIso);
  };
  const clear = (type: string, reason: string, message = ''): void => {
    if (getCondition({ status: st }, type)?.status === 'True') set(type, 'False', reason, message);
  };
  const since = (type: string): number => timePlus(getCondition({ status: st }, type)?.lastTransitionTime ?? nowIso, 0);
  const expected = (st.componentStatus ?? []).reduce((n, cs) => n + cs.podSets.reduce((m, ps) => m + (ps.replicas ?? 1), 0), 0);
  const deleteAll = (): boolean => {
    for (const o of deployed) if (o && !o.metadata.deletionTimestamp) plan.remove.push(o);
    return deployed.every((o) => !o) && pods.length === 0;
  };
  const resetOrFail = (reason: string, message: string): void => {
    set('Unhealthy', 'True', reason, message);
    if ((st.resettingCount ?? 0) < AW_DEFAULTS.retryLimit) {
      st.resettingCount = (st.resettingCount ?? 0) + 1;
      st.phase = 'Resetting';
    } else st.phase = 'Failed';
  };

  switch (st.phase ?? '') {
    case '':
      st.componentStatus = spec.components.map((c) => ({ name: '', kind: '', apiVersion: '', podSets: c.podSets?.length ? c.podSets : inferPodSets(c.template) }));
      st.phase = 'Suspended';
      break;
    case 'Suspended':
      if (spec.suspend) {
        // Kueue's part: a queued AppWrapper is admitted (quota is not simulated), its pod sets named <aw>-<n>.
        if (aw.metadata.labels?.[QUEUE_LABEL] && !spec.components.some((c) => c.podSetInfos)) {
          const created = timePlus(aw.metadata.creationTimestamp ?? nowIso, 0);
          if (nowMs - created >= KUEUE_ADMIT_MS) {
            let n = 0;
            const components = spec.components.map((c, i) => ({ ...c, podSetInfos: (st.componentStatus?.[i]?.podSets ?? []).map(() => ({ labels: { [PODSET_LABEL]: `${aw.metadata.name}-${n++}` } })) }));
            plan.admit = { ...spec, components, suspend: false };
          } else plan.requeueMs = KUEUE_ADMIT_MS - (nowMs - created);
        }
        break;
      }
      for (const [type, status] of [['QuotaReserved', 'True'], ['ResourcesDeployed', 'True'], ['PodsReady', 'False'], ['Unhealthy', 'False']] as const) set(type, status, 'Resuming', 'Suspend is false');
      st.phase = 'Resuming';
      break;
    case 'Resuming':
      if (spec.suspend) {
        st.phase = 'Suspending';
        break;
      }
      spec.components.forEach((c, i) => {
        const cs = st.componentStatus![i];
        if (!deployed[i]) plan.create.push(componentObject(aw, c, cs.podSets));
        cs.name = c.template.metadata?.name ?? '';
        cs.kind = c.template.kind;
        cs.apiVersion = c.template.apiVersion;
        cs.conditions = setCondition(cs.conditions, { type: 'ResourcesDeployed', status: 'True', reason: 'ComponentCreatedSuccessfully', message: '' }, nowIso);
      });
      st.phase = 'Running';
      break;
    case 'Running': {
      if (spec.suspend) {
        st.phase = 'Suspending';
        break;
      }
      const present = deployed.filter((o) => o && !o.metadata.deletionTimestamp);
      if (present.length !== spec.components.length) {
        set('Unhealthy', 'True', 'MissingComponent', `Only found ${present.length} deployed components, but was expecting ${spec.components.length}`);
        st.phase = 'Failed';
        break;
      }
      const failedComponents = present.filter((o) => componentFailed(o!)).length;
      if (failedComponents > 0) {
        resetOrFail('FailedComponent', `Found ${failedComponents} failed components`);
        break;
      }
      const c = countPods(pods);
      if (c.succeeded >= expected && c.pending + c.running + c.failed === 0) {
        const msg = `${c.succeeded} pods succeeded and no running, pending, or failed pods`;
        set('QuotaReserved', 'False', 'Succeeded', msg);
        set('ResourcesDeployed', 'True', 'Succeeded', msg);
        st.phase = 'Succeeded';
        break;
      }
      if (c.failed > 0) {
        set('Unhealthy', 'True', 'FoundFailedPods');
        const deadline = since('Unhealthy') + AW_DEFAULTS.failureGraceMs;
        if (nowMs < deadline) plan.requeueMs = deadline - nowMs;
        else resetOrFail('FoundFailedPods', `${c.failed} failed pods`);
        break;
      }
      clear('Unhealthy', 'FoundNoFailedPods');
      if (c.running + c.succeeded >= expected) set('PodsReady', 'True', 'SufficientPodsReady', `${c.running} pods running; ${c.succeeded} pods succeeded`);
      else set('PodsReady', 'False', 'InsufficientPodsReady', `${c.pending} pods pending; ${c.running} pods running; ${c.succeeded} pods succeeded`);
      break;
    }
    case 'Suspending':
      if (getCondition({ status: st }, 'ResourcesDeployed')?.status === 'True') {
        if (!deleteAll()) break;
        set('ResourcesDeployed', 'False', 'Suspended', 'Suspend is true');
      }
      set('QuotaReserved', 'False', 'Suspended', 'Suspend is true');
      clear('PodsReady', 'Suspended');
      clear('Unhealthy', 'Suspended');
      st.phase = 'Suspended';
      break;
    case 'Resetting': {
      if (spec.suspend) {
        st.phase = 'Suspending';
        break;
      }
      clear('PodsReady', 'Resetting');
      if (getCondition({ status: st }, 'ResourcesDeployed')?.status === 'True') {
        if (!deleteAll()) break;
        set('ResourcesDeployed', 'False', 'Resetting', 'Resources deleted for resetting AppWrapper');
      }
      const deadline = since('Unhealthy') + AW_DEFAULTS.retryPauseMs;
      if (nowMs < deadline) {
        plan.requeueMs = deadline - nowMs;
        break;
      }
      set('ResourcesDeployed', 'True', 'Resuming', 'Reset complete; resuming');
      st.phase = 'Resuming';
      break;
    }
    case 'Failed':
      if (getCondition({ status: st }, 'ResourcesDeployed')?.status === 'True') {
        if (!deleteAll()) break;
        set('ResourcesDeployed', 'False', 'Failed', 'Resources deleted for failed AppWrapper');
      }
      set('QuotaReserved', 'False', 'Failed', 'No resources deployed');
      break;
    default:
      // Succeeded: the components stay until the success TTL (7 days by default).
      break;
  }
  if (deepEqual(st, prev)) plan.status = prev;
  return plan;
}

export class AppWrapperController implements Controller {
  readonly name = 'appwrapper';
  readonly primary = 'workload.codeflare.dev/AppWrapper';
  readonly priority = 3;
  readonly owns = ['kubeflow.org/PyTorchJob', 'batch/Job', 'jobset.x-k8s.io/JobSet', 'ray.io/RayCluster', 'ray.io/RayJob', 'apps/Deployment', 'apps/StatefulSet', '/Pod'];
  readonly watches = [
    {
      // The pods two levels down carry the AppWrapper's label: their phases drive PodsReady and Succeeded.
      gk: '/Pod',
      map: (obj: KubeObject): Array<[string, string]> => {
        const n = obj.metadata.labels?.[AW_LABEL];
        return n ? [[obj.metadata.namespace ?? '', n]] : [];
      },
    },
  ];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const aw = rt.get(AW_API, 'AppWrapper', ns, name);
    if (!aw || aw.metadata.deletionTimestamp) return;
    const spec = aw.spec as AppWrapperSpec;
    const owned = rt.children(aw);
    const deployed = spec.components.map((c) => owned.find((o) => o.kind === c.template.kind && o.apiVersion === c.template.apiVersion && o.metadata.name === c.template.metadata?.name));
    const pods = rt.list<Pod>('v1', 'Pod', { namespace: ns, labels: { [AW_LABEL]: name } });
    const plan = planAppWrapper(aw, deployed, pods, rt.nowMs(), rt.now());
    if (plan.admit) {
      rt.update({ ...aw, spec: plan.admit });
      return;
    }
    for (const o of plan.remove) rt.delete(o);
    for (const o of plan.create) rt.create(o);
    rt.setStatus(aw, plan.status);
    if (plan.requeueMs) rt.after(this, ns, name, plan.requeueMs);
  }
}
