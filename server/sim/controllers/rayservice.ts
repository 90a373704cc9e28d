/**
 * KubeRay RayService operator (ray.io/v1): a serving RayCluster `<rs>-<rand5>` (pending until its Serve
 * applications run, then active; a spec change brings up a new pending cluster and the old one is deleted
 * after rayClusterDeletionDelaySeconds), Services `<rs>-head-svc` and `<rs>-serve-svc` pointing at the
 * active cluster, the `ray.io/serve` pod label, application statuses parsed from serveConfigV2, and the
 * Ready / UpgradeInProgress / Suspending / Suspended conditions.
 */

import { parse as parseYaml } from 'yaml';
import { isPodReady, setCondition } from './meta.ts';
import { SIM } from './pods.ts';
import { templateHash } from './random.ts';
import type { RayClusterSpec, RayClusterStatus } from './raycluster.ts';
import { RAY } from './raycluster.ts';
import { rayClusterFor } from './rayjob.ts';
import { deepEqual } from './runtime.ts';
import type { Controller, Runtime } from './runtime.ts';
import { service } from './services.ts';
import type { Condition, KubeObject, Pod } from './types.ts';

export const HASH_ANNOTATION = `${RAY}/hash-without-replicas-and-workers-to-delete`;
/** Time Ray Serve takes to deploy the applications once the cluster is up. */
const DEPLOY_MS = 15_000;

export interface RayServiceSpec {
  serveConfigV2?: string;
  rayClusterConfig: RayClusterSpec;
  upgradeStrategy?: { type?: 'NewCluster' | 'NewClusterWithIncrementalUpgrade' | 'None' };
  excludeHeadPodFromServeSvc?: boolean;
  suspend?: boolean;
  rayClusterDeletionDelaySeconds?: number;
}

interface AppStatus {
  status: string;
  message?: string;
  serveDeploymentStatuses?: Record<string, { status: string; message?: string }>;
}

interface ServiceStatus {
  rayClusterName?: string;
  rayClusterStatus?: RayClusterStatus;
  applicationStatuses?: Record<string, AppStatus>;
}

export interface RayServiceStatus {
  serviceStatus?: string;
  numServeEndpoints?: number;
  conditions?: Condition[];
  activeServiceStatus?: ServiceStatus;
  pendingServiceStatus?: ServiceStatus;
  lastUpdateTime?: string;
  observedGeneration?: number;
}

/** Application → deployment names from serveConfigV2 (names from `deployments`, else from the import path). */
export function serveApps(config: string | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  let doc: { applications?: Array<{ name?: string; import_path?: string; deployments?: Array<{ name?: string }> }> } | undefined;
  try {
    doc = config ? parseYaml(config) : undefined;
  } catch {
    doc = undefined;
  }
  for (const [i, app] of (doc?.applications ?? []).entries()) {
    const name = app.name ?? (i === 0 ? 'default' : `app${i}`);
    const deps = (app.deployments ?? []).map((d) => d.name).filter((n): n is string => !!n);
    out[name] = deps.length > 0 ? deps : [String(app.import_path ?? name).split(/[:.]/).pop() || name];
  }
  if (Object.keys(out).length === 0) out.default = ['default'];
  return out;
}

export function clusterHash(spec: RayClusterSpec): string {
  // Replicas and workersToDelete change with autoscaling and do not make a new cluster.
  const workerGroupSpecs = (spec.workerGroupSpecs ?? []).map(({ replicas: _r, scaleStrategy: _s, ...g }) => g);
  return templateHash({ ...spec, workerGroupSpecs });
}

export interface RayServicePlan {
  createCluster?: KubeObject;
  deleteClusters: string[];
  services: KubeObject[];
  /** Pods whose `ray.io/serve` label should change. */
  serveLabels: Array<{ pod: Pod; value: 'true' | 'false' }>;
  status: RayServiceStatus;
  recheckMs?: number;
}

function appStatuses(apps: Record<string, string[]>, state: 'DEPLOYING' | 'RUNNING' | 'DEPLOY_FAILED'): Record<string, AppStatus> {
  const out: Record<string, AppStatus> = {};
  for (const [app, deps] of Object.entries(apps)) {
    const depStatus = state === 'RUNNING' ? 'HEALTHY' : state === 'DEPLOYING' ? 'UPDATING' : 'UNHEALTHY';
    out[app] = {
      status: state,
      ...(state === 'DEPLOY_FAILED' ? { message: `Deploying application ${app} failed: the replica constructor raised an exception.` } : {}),
      serveDeploymentStatuses: Object.fromEntries(deps.map((d) => [d, { status: depStatus }])),
    };
  }
  return out;
}

/** Pure reconcile of a RayService against its clusters and their pods. */
export function planRayService(rs: KubeObject, clusters: KubeObject[], podsOf: (cluster: string) => Pod[], nowIso: string, newName: () => string): RayServicePlan {
  const spec = rs.spec as RayServiceSpec;
  const name = rs.metadata.name!;
  const ns = rs.metadata.namespace!;
  const prev = (rs.status ?? {}) as RayServiceStatus;
  const nowMs = Date.parse(nowIso);
  const plan: RayServicePlan = { deleteClusters: [], services: [], serveLabels: [], status: {} };
  let conds = prev.conditions ? [...prev.conditions] : [];
  const byName = new Map(clusters.map((c) => [c.metadata.name!, c]));
  let active = prev.activeServiceStatus?.rayClusterName ? byName.get(prev.activeServiceStatus.rayClusterName) : undefined;
  let pending = prev.pendingServiceStatus?.rayClusterName ? byName.get(prev.pendingServiceStatus.rayClusterName) : undefined;
  const status: RayServiceStatus = { observedGeneration: rs.metadata.generation ?? 1 };

  if (spec.suspend) {
    plan.deleteClusters = clusters.map((c) => c.metadata.name!);
    const done = clusters.length === 0;
    conds = setCondition(conds, { type: 'Suspending', status: done ? 'False' : 'True', reason: done ? 'SuspendComplete' : 'SuspendInProgress', message: '' }, nowIso);
    if (done) conds = setCondition(conds, { type: 'Suspended', status: 'True', reason: 'SuspendComplete', message: '' }, nowIso);
    conds = setCondition(conds, { type: 'Ready', status: 'False', reason: done ? 'SuspendComplete' : 'SuspendInProgress', message: '' }, nowIso);
    status.serviceStatus = '';
    status.numServeEndpoints = 0;
    status.conditions = conds;
    status.activeServiceStatus = {};
    status.pendingServiceStatus = {};
    status.lastUpdateTime = prev.lastUpdateTime ?? nowIso;
    plan.status = status;
    return plan;
  }
  if (conds.some((c) => c.type === 'Suspended' && c.status === 'True')) {
    conds = setCondition(conds, { type: 'Suspended', status: 'False', reason: 'Resumed', message: '' }, nowIso);
  }
  const hash = clusterHash(spec.rayClusterConfig);
  const apps = serveApps(spec.serveConfigV2);
  const failing = (rs.metadata.annotations?.[SIM.exitCode] ?? '0') !== '0';
  const clusterOf = (c: KubeObject): RayClusterStatus => (c.status ?? {}) as RayClusterStatus;
  const deployState = (c: KubeObject): 'DEPLOYING' | 'RUNNING' | 'DEPLOY_FAILED' | undefined => {
    const st = clusterOf(c);
    if (st.state !== 'ready') return undefined;
    const since = Date.parse(st.stateTransitionTimes?.ready ?? nowIso);
    if (nowMs - since < DEPLOY_MS) {
      plan.recheckMs = Math.min(plan.recheckMs ?? Infinity, since + DEPLOY_MS - nowMs + 1);
      return 'DEPLOYING';
    }
    return failing ? 'DEPLOY_FAILED' : 'RUNNING';
  };

  // A new pending cluster: at first, or when the cluster spec changed (unless upgrades are off).
  const upgrade = spec.upgradeStrategy?.type ?? 'NewCluster';
  if (!pending && (!active || (active.metadata.annotations?.[HASH_ANNOTATION] !== hash && upgrade !== 'None'))) {
    const cname = newName();
    const rc = rayClusterFor(rs, cname, spec.rayClusterConfig, 'RayService');
    rc.metadata.annotations = { [HASH_ANNOTATION]: hash, [`${RAY}/kuberay-version`]: 'v1.4.2' };
    plan.createCluster = rc;
    pending = undefined;
    status.pendingServiceStatus = { rayClusterName: cname };
  }
  // Promote the pending cluster once its applications run.
  if (pending && deployState(pending) === 'RUNNING') {
    if (active) plan.deleteClusters.push(active.metadata.name!);
    active = pending;
    pending = undefined;
  }
  const keep = new Set([active?.metadata.name, pending?.metadata.name, plan.createCluster?.metadata.name]);
  const delay = (spec.rayClusterDeletionDelaySeconds ?? 60) * 1000;
  for (const c of clusters) {
    if (keep.has(c.metadata.name!) || plan.deleteClusters.includes(c.metadata.name!)) continue;
    // Clusters that are neither active nor pending go after the deletion delay (counted from their last change).
    const since = Date.parse(clusterOf(c).lastUpdateTime ?? c.metadata.creationTimestamp ?? nowIso);
    if (nowMs - since >= delay) plan.deleteClusters.push(c.metadata.name!);
    else plan.recheckMs = Math.min(plan.recheckMs ?? Infinity, since + delay - nowMs + 1);
  }

  let endpoints = 0;
  const label = (c: KubeObject, serving: boolean): void => {
    for (const p of podsOf(c.metadata.name!)) {
      const head = p.metadata.labels?.[`${RAY}/node-type`] === 'head';
      const want: 'true' | 'false' = serving && isPodReady(p) && !(head && spec.excludeHeadPodFromServeSvc) ? 'true' : 'false';
      if (p.metadata.labels?.[`${RAY}/serve`] !== want) plan.serveLabels.push({ pod: p, value: want });
      if (want === 'true') endpoints++;
    }
  };
  if (active) {
    const ds = deployState(active) ?? 'DEPLOYING';
    status.activeServiceStatus = { rayClusterName: active.metadata.name, rayClusterStatus: clusterOf(active), applicationStatuses: appStatuses(apps, ds) };
    label(active, ds === 'RUNNING');
    const svcBase = { namespace: ns, owner: rs, labels: { [`${RAY}/originated-from-cr-name`]: name, [`${RAY}/originated-from-crd`]: 'RayService' } };
    plan.services.push(
      service({ ...svcBase, name: `${name}-head-svc`, headless: true, labels: { ...svcBase.labels, [`${RAY}/node-type`]: 'head' }, selector: { [`${RAY}/cluster`]: active.metadata.name!, [`${RAY}/node-type`]: 'head' }, ports: [{ name: 'gcs-server', port: 6379 }, { name: 'dashboard', port: 8265 }, { name: 'client', port: 10001 }, { name: 'metrics', port: 8080 }, { name: 'serve', port: 8000 }] }),
      service({ ...svcBase, name: `${name}-serve-svc`, labels: { ...svcBase.labels, [`${RAY}/serve`]: `${name}-serve` }, selector: { [`${RAY}/cluster`]: active.metadata.name!, [`${RAY}/serve`]: 'true' }, ports: [{ name: 'serve', port: 8000 }] }),
    );
  } else status.activeServiceStatus = {};
  if (pending) {
    const ds = deployState(pending);
    status.pendingServiceStatus = { rayClusterName: pending.metadata.name, rayClusterStatus: clusterOf(pending), ...(ds ? { applicationStatuses: appStatuses(apps, ds) } : {}) };
    label(pending, false);
  } else if (!status.pendingServiceStatus) status.pendingServiceStatus = {};

  const timeout = rs.metadata.annotations?.[`${RAY}/initializing-timeout`];
  const wasReady = conds.some((c) => c.type === 'Ready' && c.status === 'True');
  let ready: Condition;
  if (endpoints > 0) ready = { type: 'Ready', status: 'True', reason: 'NonZeroServeEndpoints', message: 'Number of serve endpoints is greater than 0' };
  else if (wasReady || (active && conds.some((c) => c.type === 'Ready' && c.reason === 'ZeroServeEndpoints'))) ready = { type: 'Ready', status: 'False', reason: 'ZeroServeEndpoints', message: 'Number of serve endpoints dropped to 0' };
  else ready = { type: 'Ready', status: 'False', reason: 'Initializing', message: 'RayService is initializing' };
  if (ready.status !== 'True' && timeout && !wasReady) {
    const ms = Number.isFinite(Number(timeout)) ? Number(timeout) * 1000 : (parseFloat(timeout) || 0) * (timeout.endsWith('m') ? 60_000 : timeout.endsWith('h') ? 3_600_000 : 1000);
    const since = Date.parse(rs.metadata.creationTimestamp ?? nowIso);
    if (nowMs - since >= ms) ready = { type: 'Ready', status: 'False', reason: 'InitializingTimeout', message: `RayService failed to become ready within ${timeout}` };
    else plan.recheckMs = Math.min(plan.recheckMs ?? Infinity, since + ms - nowMs + 1);
  }
  conds = setCondition(conds, ready, nowIso);
  conds = setCondition(
    conds,
    active && pending
      ? { type: 'UpgradeInProgress', status: 'True', reason: 'BothActivePendingClustersExist', message: 'Both active and pending Ray clusters exist' }
      : active
        ? { type: 'UpgradeInProgress', status: 'False', reason: 'NoPendingCluster', message: 'Active Ray cluster exists and no pending Ray cluster' }
        : { type: 'UpgradeInProgress', status: 'False', reason: 'NoActiveCluster', message: 'No active Ray cluster exists, and the RayService is initializing' },
    nowIso,
  );
  status.serviceStatus = ready.status === 'True' ? 'Running' : '';
  status.numServeEndpoints = endpoints;
  status.conditions = conds;
  status.lastUpdateTime = prev.lastUpdateTime ?? nowIso;
  plan.status = status;
  return plan;
}

export class RayServiceController implements Controller {
  readonly name = 'rayservice';
  readonly primary = 'ray.io/RayService';
  readonly priority = 2;
  readonly owns = ['ray.io/RayCluster', '/Service'];
  readonly watches = [
    {
      // Pod readiness decides the serve label and the number of endpoints.
      gk: '/Pod',
      map: (obj: KubeObject): Array<[string, string]> => {
        const l = obj.metadata.labels;
        return l?.[`${RAY}/originated-from-crd`] === 'RayService' && l[`${RAY}/originated-from-cr-name`] ? [[obj.metadata.namespace ?? '', l[`${RAY}/originated-from-cr-name`]]] : [];
      },
    },
  ];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const rs = rt.get('ray.io/v1', 'RayService', ns, name);
    if (!rs || rs.metadata.deletionTimestamp) return;
    const clusters = rt.children(rs, 'ray.io/RayCluster');
    const plan = planRayService(rs, clusters, (c) => rt.list<Pod>('v1', 'Pod', { namespace: ns, labels: { [`${RAY}/cluster`]: c } }), rt.now(), () => `${name}-${rt.rng.suffix(5)}`);
    for (const c of plan.deleteClusters) {
      const obj = clusters.find((x) => x.metadata.name === c);
      if (obj) rt.delete(obj);
    }
    if (plan.createCluster) rt.create(plan.createCluster);
    for (const s of plan.services) rt.applyService(s);
    for (const { pod, value } of plan.serveLabels) {
      rt.update({ ...pod, metadata: { ...pod.metadata, labels: { ...(pod.metadata.labels ?? {}), [`${RAY}/serve`]: value } } });
    }
    const st = plan.status;
    const prev = (rs.status ?? {}) as RayServiceStatus;
    const { lastUpdateTime: _a, ...a } = st;
    const { lastUpdateTime: _b, ...b } = prev;
    if (!deepEqual(a, b)) st.lastUpdateTime = rt.now();
    rt.setStatus(rs, st);
    if (plan.recheckMs) rt.after(this, ns, name, plan.recheckMs);
  }
}
