/**
 * Milvus operator (milvus.io/v1beta1): per component a Deployment `<name>-milvus-<component>` (QueryNode,
 * in the default rolling mode v2, as two Deployments `-0`/`-1` with one scaled to zero), the Service
 * `<name>-milvus` (19530 + metrics 9091) selecting proxy/standalone pods, a ConfigMap `<name>`, and the
 * in-cluster dependencies as Helm releases (etcd StatefulSet `<name>-etcd`, MinIO `<name>-minio`) that are
 * not owned by the Milvus object (a finalizer removes them when deletionPolicy is Delete).
 * Status: Pending → Healthy (→ Unhealthy on later trouble, never back to Pending), Stopped when every
 * component has zero replicas, the dependency and MilvusReady / MilvusUpdated conditions, endpoint,
 * componentsDeployStatus.
 */

import { ctrlRef, mergeMaps, setCondition } from './meta.ts';
import type { Controller, Runtime } from './runtime.ts';
import { service } from './services.ts';
import type { Condition, KubeObject, ResourceRequirements, StringMap } from './types.ts';

const FINALIZER = 'milvus.milvus.io/finalizer';
const DEFAULT_IMAGE = 'milvusdb/milvus:v2.6.11';

interface ComponentSpec {
  replicas?: number;
  resources?: ResourceRequirements;
  image?: string;
  env?: unknown[];
  nodeSelector?: StringMap;
  tolerations?: unknown[];
  podLabels?: StringMap;
  podAnnotations?: StringMap;
}

export interface MilvusSpec {
  mode?: 'standalone' | 'cluster';
  components?: {
    image?: string;
    standalone?: ComponentSpec;
    proxy?: ComponentSpec;
    mixCoord?: ComponentSpec;
    rootCoord?: ComponentSpec;
    dataCoord?: ComponentSpec;
    queryCoord?: ComponentSpec;
    indexCoord?: ComponentSpec;
    dataNode?: ComponentSpec;
    queryNode?: ComponentSpec;
    indexNode?: ComponentSpec;
    streamingNode?: ComponentSpec;
  } & Record<string, unknown>;
  dependencies?: {
    etcd?: { inCluster?: { deletionPolicy?: 'Delete' | 'Retain'; values?: Record<string, unknown> }; external?: boolean; endpoints?: string[] };
    storage?: { inCluster?: { deletionPolicy?: 'Delete' | 'Retain' }; external?: boolean; type?: string };
    msgStreamType?: string;
  };
  config?: Record<string, unknown>;
}

/** Components a Milvus of this mode and version runs (webhook defaults), as [spec key, component name]. */
export function milvusComponents(spec: MilvusSpec): Array<[string, string]> {
  const c = spec.components ?? {};
  if ((spec.mode ?? 'standalone') === 'standalone') return [['standalone', 'standalone']];
  const image = c.image ?? DEFAULT_IMAGE;
  const minor = Number(/v?2\.(\d+)/.exec(image)?.[1] ?? 6);
  const out: Array<[string, string]> = [['proxy', 'proxy']];
  if (c.rootCoord || c.dataCoord || c.queryCoord || c.indexCoord) {
    for (const k of ['rootCoord', 'dataCoord', 'queryCoord', 'indexCoord']) if (c[k] || minor < 6) out.push([k, k.toLowerCase()]);
  } else out.push(['mixCoord', 'mixcoord']);
  out.push(['dataNode', 'datanode'], ['queryNode', 'querynode']);
  if (minor < 6) out.push(['indexNode', 'indexnode']);
  else out.push(['streamingNode', 'streamingnode']);
  return out;
}

function baseLabels(name: string, component?: string): StringMap {
  return {
    'app.kubernetes.io/name': 'milvus',
    'app.kubernetes.io/instance': name,
    ...(component ? { 'app.kubernetes.io/component': component } : {}),
    'app.kubernetes.io/managed-by': 'milvus-operator',
  };
}

function componentDeployment(m: KubeObject, key: string, comp: string, group: 0 | 1 | undefined, replicas: number): KubeObject {
  const spec = m.spec as MilvusSpec;
  const name = m.metadata.name!;
  const cs = ((spec.components ?? {})[key] ?? {}) as ComponentSpec;
  const image = cs.image ?? spec.components?.image ?? DEFAULT_IMAGE;
  const serving = comp === 'proxy' || comp === 'standalone';
  const labels = mergeMaps(baseLabels(name, comp), serving ? { 'milvus.io/service': 'true' } : undefined, group !== undefined ? { [`milvus.io/${comp}-group-id`]: String(group) } : undefined)!;
  const depName = `${name}-milvus-${comp}${group !== undefined ? `-${group}` : ''}`;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: depName, namespace: m.metadata.namespace, labels, annotations: { 'milvus.io/dependency-values-merged': 'true' }, ownerReferences: [ctrlRef(m)] },
    spec: {
      replicas,
      selector: { matchLabels: { ...baseLabels(name, comp), ...(group !== undefined ? { [`milvus.io/${comp}-group-id`]: String(group) } : {}) } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { labels: mergeMaps(labels, cs.podLabels), annotations: mergeMaps(cs.podAnnotations, { 'milvus.io/config-hash': 'sim' }) },
        spec: {
          ...(cs.nodeSelector ? { nodeSelector: cs.nodeSelector } : {}),
          containers: [
            {
              name: comp,
              image,
              args: ['/milvus/tools/run.sh', 'milvus', 'run', comp],
              env: [{ name: 'METRICS_PORT', value: '9091' }, ...((cs.env as never[]) ?? [])],
              ports: [...(serving ? [{ name: 'milvus', containerPort: 19530, protocol: 'TCP' }] : []), { name: 'metrics', containerPort: 9091, protocol: 'TCP' }],
              resources: cs.resources ?? {},
              readinessProbe: { httpGet: { path: '/healthz', port: 9091 }, initialDelaySeconds: 3, periodSeconds: 15 },
              livenessProbe: { httpGet: { path: '/healthz', port: 9091 }, initialDelaySeconds: 30, periodSeconds: 30 },
              volumeMounts: [{ name: 'milvus-config', mountPath: '/milvus/configs/user.yaml', subPath: 'user.yaml', readOnly: true }],
            },
          ],
          volumes: [{ name: 'milvus-config', configMap: { name } }],
        },
      },
    },
  };
}

/** The Helm-installed dependencies: not owned by the Milvus object (that is how the operator installs them). */
function dependencies(m: KubeObject): KubeObject[] {
  const spec = m.spec as MilvusSpec;
  const name = m.metadata.name!;
  const ns = m.metadata.namespace!;
  const cluster = (spec.mode ?? 'standalone') === 'cluster';
  const helm = (release: string, chart: string, app: string): { labels: StringMap; annotations: StringMap } => ({
    labels: { 'app.kubernetes.io/name': app, 'app.kubernetes.io/instance': release, 'app.kubernetes.io/managed-by': 'Helm', 'helm.sh/chart': chart },
    annotations: { 'meta.helm.sh/release-name': release, 'meta.helm.sh/release-namespace': ns },
  });
  const out: KubeObject[] = [];
  if (!spec.dependencies?.etcd?.external) {
    const release = `${name}-etcd`;
    const h = helm(release, 'etcd-8.12.0', 'etcd');
    out.push({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: release, namespace: ns, ...h },
      spec: {
        replicas: cluster ? 3 : 1,
        serviceName: `${release}-headless`,
        podManagementPolicy: 'Parallel',
        selector: { matchLabels: { 'app.kubernetes.io/name': 'etcd', 'app.kubernetes.io/instance': release } },
        template: { metadata: { labels: h.labels }, spec: { containers: [{ name: 'etcd', image: 'milvusdb/etcd:3.5.18-r1', ports: [{ name: 'client', containerPort: 2379 }, { name: 'peer', containerPort: 2380 }], resources: { requests: { cpu: '100m', memory: '256Mi' } }, readinessProbe: { exec: { command: ['/opt/bitnami/scripts/etcd/healthcheck.sh'] } } }] } },
      },
    });
    out.push(service({ name: `${release}-headless`, namespace: ns, headless: true, publishNotReadyAddresses: true, labels: h.labels, annotations: h.annotations, selector: { 'app.kubernetes.io/name': 'etcd', 'app.kubernetes.io/instance': release }, ports: [{ name: 'client', port: 2379 }, { name: 'peer', port: 2380 }] }));
  }
  if (!spec.dependencies?.storage?.external) {
    const release = `${name}-minio`;
    const h = helm(release, 'minio-8.0.17', 'minio');
    const labels = { ...h.labels, app: 'minio', release };
    const podSpec = { containers: [{ name: 'minio', image: 'minio/minio:RELEASE.2024-12-18T13-15-44Z', ports: [{ name: 'http', containerPort: 9000 }], resources: { requests: { cpu: '100m', memory: '512Mi' } }, readinessProbe: { httpGet: { path: '/minio/health/ready', port: 9000 } } }] };
    out.push(
      cluster
        ? { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: release, namespace: ns, labels, annotations: h.annotations }, spec: { replicas: 4, serviceName: `${release}-svc`, podManagementPolicy: 'Parallel', selector: { matchLabels: { app: 'minio', release } }, template: { metadata: { labels }, spec: podSpec } } }
        : { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: release, namespace: ns, labels, annotations: h.annotations }, spec: { replicas: 1, selector: { matchLabels: { app: 'minio', release } }, template: { metadata: { labels }, spec: podSpec } } },
    );
  }
  return out;
}

function depReady(d: KubeObject | undefined): boolean {
  if (!d) return false;
  const st = (d.status ?? {}) as { readyReplicas?: number; availableReplicas?: number };
  const want = (d.spec as { replicas?: number }).replicas ?? 1;
  return (d.kind === 'StatefulSet' ? st.readyReplicas ?? 0 : st.availableReplicas ?? 0) >= want;
}

export class MilvusController implements Controller {
  readonly name = 'milvus';
  readonly primary = 'milvus.io/Milvus';
  readonly priority = 2;
  readonly owns = ['apps/Deployment'];
  readonly watches = [
    {
      // Dependencies are not owned: they are found by their Helm release name.
      gk: 'apps/StatefulSet',
      map: (obj: KubeObject): Array<[string, string]> => {
        const r = obj.metadata.annotations?.['meta.helm.sh/release-name'];
        return r && /-(etcd|minio)$/.test(r) ? [[obj.metadata.namespace ?? '', r.replace(/-(etcd|minio)$/, '')]] : [];
      },
    },
    {
      gk: 'apps/Deployment',
      map: (obj: KubeObject): Array<[string, string]> => {
        const r = obj.metadata.annotations?.['meta.helm.sh/release-name'];
        return r && r.endsWith('-minio') ? [[obj.metadata.namespace ?? '', r.slice(0, -'-minio'.length)]] : [];
      },
    },
  ];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const m = rt.get('milvus.io/v1beta1', 'Milvus', ns, name);
    if (!m) return;
    const spec = m.spec as MilvusSpec;
    if (m.metadata.deletionTimestamp) {
      // The finalizer's job: remove Helm dependencies whose deletionPolicy is Delete, then let go.
      for (const d of dependencies(m)) {
        const policy = d.metadata.name!.endsWith('-etcd') || d.metadata.name!.endsWith('-etcd-headless') ? spec.dependencies?.etcd?.inCluster?.deletionPolicy : spec.dependencies?.storage?.inCluster?.deletionPolicy;
        const cur = rt.get(d.apiVersion, d.kind, ns, d.metadata.name!);
        if (cur && policy === 'Delete') rt.delete(cur);
      }
      if (m.metadata.finalizers?.includes(FINALIZER)) rt.update({ ...m, metadata: { ...m.metadata, finalizers: m.metadata.finalizers.filter((f) => f !== FINALIZER) } });
      return;
    }
    let obj = m;
    if (!m.metadata.finalizers?.includes(FINALIZER)) obj = rt.update({ ...m, metadata: { ...m.metadata, finalizers: [...(m.metadata.finalizers ?? []), FINALIZER] } });
    const now = rt.now();
    const deps = dependencies(obj).map((d) => (d.kind === 'Service' ? rt.ensure(d) : rt.apply(d)));
    const etcd = deps.find((d) => d.metadata.name === `${name}-etcd`);
    const minio = deps.find((d) => d.metadata.name === `${name}-minio`);
    rt.ensure({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels: baseLabels(name), ownerReferences: [ctrlRef(obj)] }, data: { 'user.yaml': `etcd:\n  endpoints:\n  - ${name}-etcd-0.${name}-etcd-headless.${ns}:2379\nminio:\n  address: ${name}-minio\n  port: 9000\nmsgChannel:\n  chanNamePrefix:\n    cluster: ${name}\n` } });
    rt.ensure(service({ name: `${name}-milvus`, namespace: ns, owner: obj, rng: rt.rng, labels: baseLabels(name), selector: { 'app.kubernetes.io/name': 'milvus', 'app.kubernetes.io/instance': name, 'milvus.io/service': 'true' }, ports: [{ name: 'milvus', port: 19530, targetPort: 'milvus' }, { name: 'metrics', port: 9091, targetPort: 'metrics' }] }));
    const depsReady = (!etcd || depReady(etcd)) && (!minio || depReady(minio));
    const componentsStatus: Record<string, unknown> = {};
    let allHealthy = depsReady;
    let total = 0;
    for (const [key, comp] of milvusComponents(spec)) {
      const cs = ((spec.components ?? {})[key] ?? {}) as ComponentSpec;
      const replicas = cs.replicas ?? (comp === 'standalone' ? 1 : 1);
      total += replicas;
      // Components start once etcd and storage are up (the operator waits for its dependencies).
      if (!depsReady && !rt.get('apps/v1', 'Deployment', ns, `${name}-milvus-${comp}`) && !rt.get('apps/v1', 'Deployment', ns, `${name}-milvus-${comp}-0`)) {
        allHealthy = false;
        continue;
      }
      const groups: Array<[0 | 1 | undefined, number]> = comp === 'querynode' ? [[0, replicas], [1, 0]] : [[undefined, replicas]];
      for (const [g, r] of groups) {
        const d = rt.apply(componentDeployment(obj, key, comp, g, r));
        if (r > 0) {
          const ds = (d.status ?? {}) as { availableReplicas?: number };
          if ((ds.availableReplicas ?? 0) < r) allHealthy = false;
          componentsStatus[comp] = { generation: d.metadata.generation ?? 1, image: ((d.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec.containers[0].image), status: d.status ?? {} };
        }
      }
    }
    const prev = (obj.status ?? {}) as { status?: string; conditions?: Condition[] };
    let conds = prev.conditions;
    conds = setCondition(conds, etcd && !depReady(etcd) ? { type: 'EtcdReady', status: 'False', reason: 'EtcdNotReady', message: 'etcd is not ready' } : { type: 'EtcdReady', status: 'True', reason: 'EtcdReady', message: 'All etcd endpoints are healthy' }, now);
    conds = setCondition(conds, minio && !depReady(minio) ? { type: 'StorageReady', status: 'False', reason: 'StorageNotReady', message: 'storage is not ready' } : { type: 'StorageReady', status: 'True', reason: 'StorageReady', message: 'Storage Check Ready' }, now);
    conds = setCondition(conds, { type: 'MsgStreamReady', status: 'True', reason: 'MsgStreamReady', message: 'MsgStream is ready' }, now);
    let state: string;
    if (total === 0) {
      state = 'Stopped';
      conds = setCondition(conds, { type: 'MilvusReady', status: 'False', reason: 'MilvusStopped', message: 'Milvus is stopped' }, now);
    } else if (allHealthy) {
      state = 'Healthy';
      conds = setCondition(conds, { type: 'MilvusReady', status: 'True', reason: 'ReasonMilvusHealthy', message: 'Milvus Healthy' }, now);
    } else {
      state = prev.status === 'Healthy' || prev.status === 'Unhealthy' ? 'Unhealthy' : 'Pending';
      conds = setCondition(conds, { type: 'MilvusReady', status: 'False', reason: depsReady ? 'MilvusComponentNotHealthy' : 'DependencyNotReady', message: depsReady ? 'Milvus components are not healthy' : 'Milvus dependencies are not ready' }, now);
    }
    const updated = allHealthy || total === 0;
    conds = setCondition(conds, updated ? { type: 'MilvusUpdated', status: 'True', reason: 'MilvusComponentsUpdated', message: 'Milvus components are all updated' } : { type: 'MilvusUpdated', status: 'False', reason: 'MilvusComponentsUpdating', message: 'Milvus components are updating' }, now);
    const image = spec.components?.image ?? DEFAULT_IMAGE;
    rt.setStatus(obj, {
      status: state,
      conditions: conds,
      endpoint: `${name}-milvus.${ns}:19530`,
      componentsDeployStatus: componentsStatus,
      rollingModeVersion: 2,
      observedGeneration: obj.metadata.generation ?? 1,
      currentImage: image,
      currentVersion: /:v?([\d.]+)/.exec(image)?.[1] ?? '2.6.11',
    });
  }
}
