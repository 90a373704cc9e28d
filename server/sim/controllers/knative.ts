/**
 * Knative Serving (serving.knative.dev/v1): Service → Configuration + Route (`<ksvc>`); Configuration →
 * Revision `<config>-<generation, 5 digits>`; Revision → Deployment `<rev>-deployment` (user container +
 * queue-proxy, the `serving.knative.dev/*` pod labels) and PodAutoscaler `<rev>` → ServerlessService
 * `<rev>` → Services `<rev>`, `<rev>-private`; Route → networking Ingress and placeholder Service.
 * Replicas come from the autoscaler: initial scale, bounded by min-scale / max-scale, scale to zero after
 * idling (no traffic in the simulation) unless min-scale ≥ 1. Statuses carry the duck conditions.
 */

import { ctrlRef, getCondition, isPodReady, setCondition } from './meta.ts';
import { sha256Hex } from './random.ts';
import type { Controller, Runtime } from './runtime.ts';
import { service } from './services.ts';
import type { Condition, Container, KubeObject, Pod, PodSpec, StringMap } from './types.ts';

export const KN = 'serving.knative.dev';
export const DOMAIN = 'example.com';
const QUEUE_IMAGE = 'gcr.io/knative-releases/knative.dev/serving/cmd/queue@sha256:2b2a5cd2e8f9b8e3d5a5e1b3b4f7b2f1f0e6a4d2b8a9c7e5f3d1b0a9c8e7f6d5';

export interface RevisionTemplate {
  metadata?: { name?: string; labels?: StringMap; annotations?: StringMap };
  spec: PodSpec & { containerConcurrency?: number; timeoutSeconds?: number };
}

export interface KnServiceSpec {
  template: RevisionTemplate;
  traffic?: Array<{ revisionName?: string; latestRevision?: boolean; percent?: number; tag?: string }>;
}

interface KnStatus {
  conditions?: Condition[];
  observedGeneration?: number;
  [key: string]: unknown;
}

/** Knative's duck conditions: no lastUpdateTime, an optional severity. */
function kcond(list: Condition[] | undefined, type: string, status: Condition['status'], reason: string | undefined, message: string | undefined, now: string): Condition[] {
  return setCondition(list, { type, status, ...(reason ? { reason } : {}), ...(message ? { message } : {}) }, now);
}

function sortConds(c: Condition[]): Condition[] {
  // Ready last is how Knative orders them (alphabetical by type); keep that.
  return [...c].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

export function revisionName(config: KubeObject): string {
  const t = (config.spec as { template: RevisionTemplate }).template;
  return t.metadata?.name ?? `${config.metadata.name}-${String(config.metadata.generation ?? 1).padStart(5, '0')}`;
}

function scaleBounds(ann: StringMap | undefined): { min: number; max: number; initial: number } {
  const a = ann ?? {};
  const min = Number(a['autoscaling.knative.dev/min-scale'] ?? a['autoscaling.knative.dev/minScale'] ?? 0) || 0;
  const max = Number(a['autoscaling.knative.dev/max-scale'] ?? a['autoscaling.knative.dev/maxScale'] ?? 0) || 0;
  const initial = Number(a['autoscaling.knative.dev/initial-scale'] ?? 1);
  return { min, max, initial: Number.isFinite(initial) ? initial : 1 };
}

// ------------------------------------------------------------------ Service

export class KnativeServiceController implements Controller {
  readonly name = 'knative-service';
  readonly primary = 'serving.knative.dev/Service';
  readonly priority = 2;
  readonly owns = ['serving.knative.dev/Configuration', 'serving.knative.dev/Route'];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const ksvc = rt.get('serving.knative.dev/v1', 'Service', ns, name);
    if (!ksvc || ksvc.metadata.deletionTimestamp) return;
    const spec = ksvc.spec as KnServiceSpec;
    const labels = { ...(ksvc.metadata.labels ?? {}), [`${KN}/service`]: name, [`${KN}/serviceUID`]: ksvc.metadata.uid! };
    const tmpl: RevisionTemplate = {
      ...spec.template,
      metadata: { ...(spec.template.metadata ?? {}), labels: { ...(spec.template.metadata?.labels ?? {}), [`${KN}/service`]: name, [`${KN}/serviceUID`]: ksvc.metadata.uid! } },
    };
    const cfg = rt.apply<KubeObject>({
      apiVersion: 'serving.knative.dev/v1',
      kind: 'Configuration',
      metadata: { name, namespace: ns, labels, annotations: ksvc.metadata.annotations, ownerReferences: [ctrlRef(ksvc)] },
      spec: { template: tmpl },
    });
    const route = rt.apply<KubeObject>({
      apiVersion: 'serving.knative.dev/v1',
      kind: 'Route',
      metadata: { name, namespace: ns, labels, annotations: ksvc.metadata.annotations, ownerReferences: [ctrlRef(ksvc)] },
      spec: { traffic: (spec.traffic ?? [{ latestRevision: true, percent: 100 }]).map((t) => (t.revisionName ? t : { ...t, configurationName: name, latestRevision: true })) },
    });
    const cst = (cfg.status ?? {}) as KnStatus & { latestCreatedRevisionName?: string; latestReadyRevisionName?: string };
    const rst = (route.status ?? {}) as KnStatus & { url?: string; address?: unknown; traffic?: unknown[] };
    const now = rt.now();
    const prev = (ksvc.status ?? {}) as KnStatus;
    let conds = prev.conditions;
    const cReady = getCondition(cfg, 'Ready');
    const rReady = getCondition(route, 'Ready');
    conds = kcond(conds, 'ConfigurationsReady', cReady?.status ?? 'Unknown', cReady?.reason, cReady?.message, now);
    conds = kcond(conds, 'RoutesReady', rReady?.status ?? 'Unknown', rReady?.reason, rReady?.message, now);
    const both = cReady?.status === 'True' && rReady?.status === 'True';
    const failed = cReady?.status === 'False' || rReady?.status === 'False';
    const src = failed ? (cReady?.status === 'False' ? cReady : rReady) : (cReady?.status !== 'True' ? cReady : rReady);
    conds = kcond(conds, 'Ready', both ? 'True' : failed ? 'False' : 'Unknown', both ? undefined : src?.reason, both ? undefined : src?.message, now);
    rt.setStatus(ksvc, {
      observedGeneration: ksvc.metadata.generation ?? 1,
      conditions: sortConds(conds),
      ...(cst.latestCreatedRevisionName ? { latestCreatedRevisionName: cst.latestCreatedRevisionName } : {}),
      ...(cst.latestReadyRevisionName ? { latestReadyRevisionName: cst.latestReadyRevisionName } : {}),
      ...(rst.url ? { url: rst.url, address: rst.address } : {}),
      ...(rst.traffic ? { traffic: rst.traffic } : {}),
    });
  }
}

// ------------------------------------------------------------------ Configuration

export class KnativeConfigurationController implements Controller {
  readonly name = 'knative-configuration';
  readonly primary = 'serving.knative.dev/Configuration';
  readonly priority = 2;
  readonly owns = ['serving.knative.dev/Revision'];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const cfg = rt.get('serving.knative.dev/v1', 'Configuration', ns, name);
    if (!cfg || cfg.metadata.deletionTimestamp) return;
    const tmpl = (cfg.spec as { template: RevisionTemplate }).template;
    const rev = revisionName(cfg);
    const gen = String(cfg.metadata.generation ?? 1);
    const svc = cfg.metadata.labels?.[`${KN}/service`];
    let revision = rt.get('serving.knative.dev/v1', 'Revision', ns, rev);
    if (!revision) {
      const labels: StringMap = {
        ...(tmpl.metadata?.labels ?? {}),
        [`${KN}/configuration`]: name,
        [`${KN}/configurationUID`]: cfg.metadata.uid!,
        [`${KN}/configurationGeneration`]: gen,
        [`${KN}/routingState`]: 'active',
        ...(svc ? { [`${KN}/service`]: svc, [`${KN}/serviceUID`]: cfg.metadata.labels![`${KN}/serviceUID`] } : {}),
      };
      const containers = (tmpl.spec.containers ?? []).map((c, i) => ({ ...c, name: c.name || (i === 0 ? 'user-container' : `user-container-${i}`) }));
      revision = rt.create({
        apiVersion: 'serving.knative.dev/v1',
        kind: 'Revision',
        metadata: {
          name: rev,
          namespace: ns,
          labels,
          annotations: { ...(tmpl.metadata?.annotations ?? {}), [`${KN}/routes`]: svc ?? name, [`${KN}/routingStateModified`]: rt.now() },
          ownerReferences: [ctrlRef(cfg)],
        },
        spec: { ...tmpl.spec, containers, containerConcurrency: tmpl.spec.containerConcurrency ?? 0, timeoutSeconds: tmpl.spec.timeoutSeconds ?? 300, enableServiceLinks: false },
      });
    }
    // Older revisions leave the traffic (Route sends everything to the latest).
    for (const r of rt.children(cfg, 'serving.knative.dev/Revision')) {
      if (r.metadata.name === rev || r.metadata.labels?.[`${KN}/routingState`] === 'reserve') continue;
      const ready = getCondition(revision, 'Ready')?.status === 'True';
      if (ready) rt.update({ ...r, metadata: { ...r.metadata, labels: { ...(r.metadata.labels ?? {}), [`${KN}/routingState`]: 'reserve' } } });
    }
    const rr = getCondition(revision, 'Ready');
    const prev = (cfg.status ?? {}) as KnStatus & { latestReadyRevisionName?: string };
    const now = rt.now();
    const latestReady = rr?.status === 'True' ? rev : prev.latestReadyRevisionName;
    let conds = prev.conditions;
    if (rr?.status === 'True') conds = kcond(conds, 'Ready', 'True', undefined, undefined, now);
    else if (rr?.status === 'False') conds = kcond(conds, 'Ready', 'False', 'RevisionFailed', `Revision "${rev}" failed with message: ${rr.message ?? ''}.`, now);
    else conds = kcond(conds, 'Ready', 'Unknown', undefined, undefined, now);
    rt.setStatus(cfg, {
      observedGeneration: cfg.metadata.generation ?? 1,
      conditions: conds,
      latestCreatedRevisionName: rev,
      ...(latestReady ? { latestReadyRevisionName: latestReady } : {}),
    });
  }
}

// ------------------------------------------------------------------ Revision

export function revisionDeployment(rev: KubeObject, replicas: number): KubeObject {
  const spec = rev.spec as PodSpec & { containerConcurrency?: number };
  const name = rev.metadata.name!;
  const rl = rev.metadata.labels ?? {};
  const podLabels: StringMap = {
    ...rl,
    [`${KN}/revision`]: name,
    [`${KN}/revisionUID`]: rev.metadata.uid!,
  };
  delete podLabels[`${KN}/routingState`];
  if (!podLabels.app) podLabels.app = name;
  const user = spec.containers[0];
  const env = [
    { name: 'PORT', value: String(user?.ports?.[0]?.containerPort ?? 8080) },
    { name: 'K_REVISION', value: name },
    { name: 'K_CONFIGURATION', value: rl[`${KN}/configuration`] ?? '' },
    { name: 'K_SERVICE', value: rl[`${KN}/service`] ?? '' },
  ];
  const containers: Container[] = spec.containers.map((c, i) => ({
    ...c,
    ...(i === 0 ? { env: [...(c.env ?? []), ...env], readinessProbe: c.readinessProbe ?? { successThreshold: 1, tcpSocket: { port: 0 } } } : {}),
  }));
  containers.push({
    name: 'queue-proxy',
    image: QUEUE_IMAGE,
    ports: [
      { name: 'http-queueadm', containerPort: 8022 },
      { name: 'http-autometric', containerPort: 9090 },
      { name: 'http-usermetric', containerPort: 9091 },
      { name: 'queue-port', containerPort: 8012 },
      { name: 'https-port', containerPort: 8112 },
    ],
    env: [
      { name: 'SERVING_NAMESPACE', value: rev.metadata.namespace! },
      { name: 'SERVING_REVISION', value: name },
      { name: 'CONTAINER_CONCURRENCY', value: String(spec.containerConcurrency ?? 0) },
      { name: 'USER_PORT', value: String(user?.ports?.[0]?.containerPort ?? 8080) },
    ],
    resources: { requests: { cpu: '25m' } },
    readinessProbe: { httpGet: { path: '/', port: 8012, httpHeaders: [{ name: 'K-Network-Probe', value: 'queue' }] }, periodSeconds: 10 },
  });
  const { containerConcurrency: _c, timeoutSeconds: _t, ...podSpec } = spec as PodSpec & { containerConcurrency?: number; timeoutSeconds?: number };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: `${name}-deployment`, namespace: rev.metadata.namespace, labels: podLabels, annotations: rev.metadata.annotations, ownerReferences: [ctrlRef(rev)] },
    spec: {
      replicas,
      progressDeadlineSeconds: 600,
      selector: { matchLabels: { [`${KN}/revisionUID`]: rev.metadata.uid! } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
      template: {
        metadata: { labels: podLabels, annotations: { ...(rev.metadata.annotations ?? {}), 'kubectl.kubernetes.io/default-container': user?.name ?? 'user-container' } },
        spec: { ...podSpec, containers, terminationGracePeriodSeconds: 300 },
      },
    },
  };
}

export class KnativeRevisionController implements Controller {
  readonly name = 'knative-revision';
  readonly primary = 'serving.knative.dev/Revision';
  readonly priority = 2;
  readonly owns = ['apps/Deployment', 'autoscaling.internal.knative.dev/PodAutoscaler'];
  readonly watches = [
    {
      gk: '/Pod',
      map: (obj: KubeObject): Array<[string, string]> => {
        const r = obj.metadata.labels?.[`${KN}/revision`];
        return r ? [[obj.metadata.namespace ?? '', r]] : [];
      },
    },
  ];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const rev = rt.get('serving.knative.dev/v1', 'Revision', ns, name);
    if (!rev || rev.metadata.deletionTimestamp) return;
    const now = rt.now();
    const nowMs = rt.nowMs();
    const b = scaleBounds(rev.metadata.annotations);
    const routed = rev.metadata.labels?.[`${KN}/routingState`] !== 'reserve';
    const prev = (rev.status ?? {}) as KnStatus & { actualReplicas?: number; desiredReplicas?: number };
    const readyCond = getCondition(rev, 'Ready');
    // The autoscaler: initial scale until the revision was ready and idle long enough, then min-scale.
    let desired = Math.max(b.initial, b.min);
    const idleMs = rt.options.knativeScaleToZeroMs;
    if (!routed) desired = 0;
    else if (readyCond?.status === 'True' && idleMs > 0 && b.min === 0) {
      const since = Date.parse(readyCond.lastTransitionTime ?? now);
      if (nowMs - since >= idleMs) desired = 0;
      else rt.after(this, ns, name, since + idleMs - nowMs + 1);
    }
    if (b.max > 0) desired = Math.min(desired, b.max);
    const pa = rt.apply<KubeObject>({
      apiVersion: 'autoscaling.internal.knative.dev/v1alpha1',
      kind: 'PodAutoscaler',
      metadata: { name, namespace: ns, labels: { ...(rev.metadata.labels ?? {}), [`${KN}/revision`]: name, [`${KN}/revisionUID`]: rev.metadata.uid! }, annotations: rev.metadata.annotations, ownerReferences: [ctrlRef(rev)] },
      spec: {
        containerConcurrency: (rev.spec as { containerConcurrency?: number }).containerConcurrency ?? 0,
        protocolType: 'http1',
        reachability: routed ? 'Reachable' : 'Unreachable',
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: `${name}-deployment` },
      },
    });
    const dep = rt.apply(revisionDeployment(rev, desired));
    const sks = rt.ensure<KubeObject>({
      apiVersion: 'networking.internal.knative.dev/v1alpha1',
      kind: 'ServerlessService',
      metadata: { name, namespace: ns, labels: { [`${KN}/revision`]: name, [`${KN}/revisionUID`]: rev.metadata.uid! }, ownerReferences: [ctrlRef(pa)] },
      spec: { mode: 'Serve', numActivators: 2, objectRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: `${name}-deployment` }, protocolType: 'http1' },
    });
    rt.ensure(service({ name, namespace: ns, owner: sks, rng: rt.rng, labels: { [`${KN}/revision`]: name, 'networking.internal.knative.dev/serviceType': 'Public' }, ports: [{ name: 'http', port: 80, targetPort: 8012 }, { name: 'https', port: 443, targetPort: 8112 }] }));
    rt.ensure(service({ name: `${name}-private`, namespace: ns, owner: sks, rng: rt.rng, labels: { [`${KN}/revision`]: name, 'networking.internal.knative.dev/serviceType': 'Private' }, selector: { [`${KN}/revisionUID`]: rev.metadata.uid! }, ports: [{ name: 'http', port: 80, targetPort: 8012 }, { name: 'http-autometric', port: 9090 }, { name: 'http-usermetric', port: 9091 }, { name: 'http-queueadm', port: 8022 }] }));

    const pods = rt.list<Pod>('v1', 'Pod', { namespace: ns, labels: { [`${KN}/revisionUID`]: rev.metadata.uid! } }).filter((p) => !p.metadata.deletionTimestamp);
    const actual = pods.filter(isPodReady).length;
    const ds = (dep.status ?? {}) as { conditions?: Condition[] };
    const progressing = ds.conditions?.find((c) => c.type === 'Progressing');
    const deadline = progressing?.reason === 'ProgressDeadlineExceeded';
    const everReady = readyCond?.status === 'True';
    let conds = prev.conditions;
    const pendingPod = pods.find((p) => p.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.status === 'False'));
    if (deadline && !everReady) {
      conds = kcond(conds, 'ResourcesAvailable', 'False', 'ProgressDeadlineExceeded', 'Initial scale was never achieved', now);
      conds = kcond(conds, 'Ready', 'False', 'ProgressDeadlineExceeded', 'Initial scale was never achieved', now);
    } else if (actual > 0 || (everReady && desired === 0)) {
      conds = kcond(conds, 'ResourcesAvailable', 'True', undefined, undefined, now);
      conds = kcond(conds, 'ContainerHealthy', 'True', undefined, undefined, now);
      conds = kcond(conds, 'Ready', 'True', undefined, undefined, now);
    } else {
      const reason = pendingPod ? 'Unschedulable' : 'Deploying';
      const message = pendingPod ? pendingPod.status?.conditions?.find((c) => c.type === 'PodScheduled')?.message : undefined;
      conds = kcond(conds, 'ResourcesAvailable', 'Unknown', reason, message, now);
      conds = kcond(conds, 'ContainerHealthy', 'Unknown', 'Deploying', undefined, now);
      conds = kcond(conds, 'Ready', 'Unknown', reason, message, now);
    }
    conds = desired === 0 && everReady
      ? kcond(conds, 'Active', 'False', 'NoTraffic', 'The target is not receiving traffic.', now)
      : kcond(conds, 'Active', actual > 0 ? 'True' : 'Unknown', actual > 0 ? undefined : 'Queued', actual > 0 ? undefined : 'Requests to the target are being buffered as resources are provisioned.', now);
    const spec = rev.spec as PodSpec;
    rt.setStatus(pa, {
      observedGeneration: pa.metadata.generation ?? 1,
      desiredScale: desired,
      actualScale: actual,
      serviceName: name,
      metricsServiceName: `${name}-private`,
      conditions: [
        { type: 'Active', status: desired > 0 ? (actual > 0 ? 'True' : 'Unknown') : 'False', ...(desired === 0 ? { reason: 'NoTraffic', message: 'The target is not receiving traffic.' } : {}), lastTransitionTime: now },
        { type: 'Ready', status: actual > 0 || desired === 0 ? 'True' : 'Unknown', lastTransitionTime: now },
      ].map((c) => ({ ...c, lastTransitionTime: getCondition(pa, c.type)?.status === c.status ? getCondition(pa, c.type)!.lastTransitionTime : now })),
    });
    rt.setStatus(rev, {
      observedGeneration: rev.metadata.generation ?? 1,
      conditions: sortConds(conds),
      actualReplicas: actual,
      desiredReplicas: desired,
      // Knative resolves tags to digests when it creates the revision.
      containerStatuses: spec.containers.map((c) => ({ name: c.name, imageDigest: `${(c.image ?? '').split(':')[0]}@sha256:${sha256Hex(c.image ?? '')}` })),
    });
  }
}

// ------------------------------------------------------------------ Route

export class KnativeRouteController implements Controller {
  readonly name = 'knative-route';
  readonly primary = 'serving.knative.dev/Route';
  readonly priority = 2;
  readonly watches = [
    {
      gk: 'serving.knative.dev/Configuration',
      map: (obj: KubeObject): Array<[string, string]> => [[obj.metadata.namespace ?? '', obj.metadata.name!]],
    },
  ];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const route = rt.get('serving.knative.dev/v1', 'Route', ns, name);
    if (!route || route.metadata.deletionTimestamp) return;
    const spec = route.spec as { traffic: Array<{ configurationName?: string; revisionName?: string; latestRevision?: boolean; percent?: number; tag?: string }> };
    const now = rt.now();
    const host = `${name}.${ns}.${DOMAIN}`;
    const traffic: Array<Record<string, unknown>> = [];
    let missing: string | undefined;
    for (const t of spec.traffic ?? []) {
      let rev = t.revisionName;
      if (!rev && t.configurationName) {
        const cfg = rt.get('serving.knative.dev/v1', 'Configuration', ns, t.configurationName);
        rev = (cfg?.status as { latestReadyRevisionName?: string } | undefined)?.latestReadyRevisionName;
        if (!rev) missing = t.configurationName;
      }
      if (rev) traffic.push({ revisionName: rev, percent: t.percent ?? 100, latestRevision: !!t.latestRevision, ...(t.tag ? { tag: t.tag, url: `http://${t.tag}-${host}` } : {}) });
    }
    rt.ensure({
      apiVersion: 'networking.internal.knative.dev/v1alpha1',
      kind: 'Ingress',
      metadata: { name, namespace: ns, labels: { [`${KN}/route`]: name, [`${KN}/routeNamespace`]: ns }, annotations: { 'networking.knative.dev/ingress.class': 'kourier.ingress.networking.knative.dev' }, ownerReferences: [ctrlRef(route)] },
      spec: { httpOption: 'Enabled', rules: [{ hosts: [host], visibility: 'ExternalIP' }, { hosts: [`${name}.${ns}`, `${name}.${ns}.svc`, `${name}.${ns}.svc.cluster.local`], visibility: 'ClusterLocal' }] },
    });
    rt.ensure(service({ name, namespace: ns, owner: route, type: 'ExternalName', externalName: 'kourier-internal.kourier-system.svc.cluster.local', labels: { [`${KN}/route`]: name }, ports: [{ name: 'http2', port: 80, targetPort: 80 }] }));
    let conds = (route.status as KnStatus | undefined)?.conditions;
    if (missing) {
      const msg = `Configuration "${missing}" is waiting for a Revision to become ready.`;
      conds = kcond(conds, 'AllTrafficAssigned', 'Unknown', 'RevisionMissing', msg, now);
      conds = kcond(conds, 'IngressReady', 'Unknown', 'RevisionMissing', msg, now);
      conds = kcond(conds, 'Ready', 'Unknown', 'RevisionMissing', msg, now);
    } else {
      conds = kcond(conds, 'AllTrafficAssigned', 'True', undefined, undefined, now);
      conds = kcond(conds, 'IngressReady', 'True', undefined, undefined, now);
      conds = kcond(conds, 'Ready', 'True', undefined, undefined, now);
    }
    conds = kcond(conds, 'CertificateProvisioned', 'True', 'TLSNotEnabled', 'autoTLS is not enabled', now);
    rt.setStatus(route, {
      observedGeneration: route.metadata.generation ?? 1,
      conditions: sortConds(conds),
      url: `http://${host}`,
      address: { url: `http://${name}.${ns}.svc.cluster.local` },
      ...(traffic.length ? { traffic } : {}),
    });
  }
}

export function knativeControllers(): Controller[] {
  return [new KnativeServiceController(), new KnativeConfigurationController(), new KnativeRevisionController(), new KnativeRouteController()];
}
