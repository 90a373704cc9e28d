/**
 * NVIDIA NIM operator (apps.nvidia.com/v1alpha1): NIMService → ServiceAccount, Role, RoleBinding, Service
 * (port 8000 `api`), HPA when scaling is enabled, and either a Deployment `<name>` (container
 * `<name>-ctr`) or, multi-node, a LeaderWorkerSet `<name>-lws` (size = pipeline parallelism); all with the
 * `app.kubernetes.io/*` labels of the operator. NIMCache: see nimcache.ts; a
 * NIMService waits (NotReady, NIMCacheNotReady) for its cache and fails when the cache is missing.
 * Status: state Pending → NotReady → Ready (or Failed), Ready/Failed conditions, availableReplicas, model.
 */

import { ctrlRef, getCondition, mergeMaps, pickKeys, setCondition } from './meta.ts';
import { SIM } from './pods.ts';
import type { Controller, Runtime } from './runtime.ts';
import { service } from './services.ts';
import type { Condition, EnvVar, KubeObject, ResourceRequirements, StringMap, Toleration } from './types.ts';

const OPERATOR_VERSION = 'v2.0.0';

export interface NIMServiceSpec {
  image: { repository: string; tag: string; pullPolicy?: string; pullSecrets?: string[] };
  authSecret?: string;
  storage?: { nimCache?: { name: string; profile?: string }; pvc?: { create?: boolean; name?: string; size?: string; storageClass?: string; volumeAccessMode?: string }; sharedMemorySizeLimit?: string };
  replicas?: number;
  resources?: ResourceRequirements;
  env?: EnvVar[];
  labels?: StringMap;
  annotations?: StringMap;
  nodeSelector?: StringMap;
  tolerations?: Toleration[];
  expose?: { service?: { type?: string; port?: number } };
  scale?: { enabled?: boolean; hpa?: { minReplicas?: number; maxReplicas?: number } };
  multiNode?: { backendType?: string; parallelism?: { pipeline?: number; tensor?: number } };
}

export function nimLabels(name: string, extra?: StringMap): StringMap {
  return mergeMaps(extra, {
    'app.kubernetes.io/name': name,
    'app.kubernetes.io/instance': name,
    'app.kubernetes.io/part-of': 'nim-service',
    'app.kubernetes.io/managed-by': 'k8s-nim-operator',
    'app.kubernetes.io/operator-version': OPERATOR_VERSION,
  })!;
}

function nimPodSpec(nim: KubeObject, role?: 'leader' | 'worker'): Record<string, unknown> {
  const spec = nim.spec as NIMServiceSpec;
  const name = nim.metadata.name!;
  const port = spec.expose?.service?.port ?? 8000;
  const claim = spec.storage?.nimCache ? `${spec.storage.nimCache.name}-pvc` : spec.storage?.pvc?.name ?? (spec.storage?.pvc?.create ? `${name}-pvc` : undefined);
  const env: EnvVar[] = [
    { name: 'NIM_CACHE_PATH', value: '/model-store' },
    { name: 'NGC_API_KEY', valueFrom: { secretKeyRef: { name: spec.authSecret ?? 'ngc-api-secret', key: 'NGC_API_KEY' } } },
    { name: 'OUTLINES_CACHE_DIR', value: '/tmp/outlines' },
    { name: 'NIM_SERVER_PORT', value: String(port) },
    { name: 'NIM_HTTP_API_PORT', value: String(port) },
    { name: 'NIM_JSONL_LOGGING', value: '1' },
    { name: 'NIM_LOG_LEVEL', value: 'INFO' },
    ...(spec.storage?.nimCache?.profile ? [{ name: 'NIM_MODEL_PROFILE', value: spec.storage.nimCache.profile }] : []),
    ...(role ? [{ name: 'NIM_LEADER_ROLE', value: role === 'leader' ? '1' : '0' }, { name: 'NIM_NUM_COMPUTE_NODES', value: String(spec.multiNode?.parallelism?.pipeline ?? 1) }] : []),
    ...(spec.env ?? []),
  ];
  return {
    serviceAccountName: name,
    ...(spec.image.pullSecrets ? { imagePullSecrets: spec.image.pullSecrets.map((n) => ({ name: n })) } : {}),
    ...(spec.nodeSelector ? { nodeSelector: spec.nodeSelector } : {}),
    ...(spec.tolerations ? { tolerations: spec.tolerations } : {}),
    containers: [
      {
        name: `${name}-ctr`,
        image: `${spec.image.repository}:${spec.image.tag}`,
        imagePullPolicy: spec.image.pullPolicy ?? 'IfNotPresent',
        env,
        ports: [{ name: 'api', containerPort: port, protocol: 'TCP' }],
        resources: spec.resources ?? {},
        volumeMounts: [{ name: 'dshm', mountPath: '/dev/shm' }, ...(claim ? [{ name: 'model-store', mountPath: '/model-store' }] : [])],
        ...(role === 'worker'
          ? {}
          : {
              readinessProbe: { httpGet: { path: '/v1/health/ready', port: 'api' }, initialDelaySeconds: 15, periodSeconds: 10, failureThreshold: 3 },
              livenessProbe: { httpGet: { path: '/v1/health/live', port: 'api' }, initialDelaySeconds: 15, periodSeconds: 10, failureThreshold: 3 },
              startupProbe: { httpGet: { path: '/v1/health/ready', port: 'api' }, initialDelaySeconds: 40, periodSeconds: 10, failureThreshold: 180 },
            }),
      },
    ],
    volumes: [
      { name: 'dshm', emptyDir: { medium: 'Memory', ...(spec.storage?.sharedMemorySizeLimit ? { sizeLimit: spec.storage.sharedMemorySizeLimit } : {}) } },
      ...(claim ? [{ name: 'model-store', persistentVolumeClaim: { claimName: claim } }] : []),
    ],
  };
}

/** The workload object of a NIMService: Deployment, or LeaderWorkerSet for multi-node. */
export function nimWorkload(nim: KubeObject): KubeObject {
  const spec = nim.spec as NIMServiceSpec;
  const name = nim.metadata.name!;
  const ns = nim.metadata.namespace!;
  const labels = nimLabels(name, spec.labels);
  const podAnn = mergeMaps(spec.annotations, pickKeys(nim.metadata.annotations, [SIM.duration, SIM.exitCode, SIM.startup, SIM.imagePull]));
  if (spec.multiNode) {
    const size = spec.multiNode.parallelism?.pipeline ?? 1;
    return {
      apiVersion: 'leaderworkerset.x-k8s.io/v1',
      kind: 'LeaderWorkerSet',
      metadata: { name: `${name}-lws`, namespace: ns, labels, ownerReferences: [ctrlRef(nim)] },
      spec: {
        replicas: spec.replicas ?? 1,
        startupPolicy: 'LeaderCreated',
        leaderWorkerTemplate: {
          size,
          restartPolicy: 'RecreateGroupOnPodRestart',
          leaderTemplate: { metadata: { labels: mergeMaps(labels, { app: `${name}-lws`, 'nim-llm-role': 'leader' }), annotations: podAnn }, spec: nimPodSpec(nim, 'leader') },
          workerTemplate: { metadata: { labels: mergeMaps(labels, { app: `${name}-lws`, 'nim-llm-role': 'worker' }), annotations: podAnn }, spec: nimPodSpec(nim, 'worker') },
        },
      },
    };
  }
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns, labels, ownerReferences: [ctrlRef(nim)] },
    spec: {
      replicas: spec.replicas ?? 1,
      selector: { matchLabels: { app: name } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 0 } },
      template: { metadata: { labels: mergeMaps(labels, { app: name }), annotations: podAnn }, spec: nimPodSpec(nim) },
    },
  };
}

export class NIMServiceController implements Controller {
  readonly name = 'nimservice';
  readonly primary = 'apps.nvidia.com/NIMService';
  readonly priority = 2;
  readonly owns = ['apps/Deployment', 'leaderworkerset.x-k8s.io/LeaderWorkerSet'];
  readonly watches = [
    {
      gk: 'apps.nvidia.com/NIMCache',
      map: (obj: KubeObject, rt: Runtime): Array<[string, string]> =>
        rt
          .list('apps.nvidia.com/v1alpha1', 'NIMService', { namespace: obj.metadata.namespace })
          .filter((n) => (n.spec as NIMServiceSpec).storage?.nimCache?.name === obj.metadata.name)
          .map((n) => [n.metadata.namespace ?? '', n.metadata.name!]),
    },
  ];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const nim = rt.get('apps.nvidia.com/v1alpha1', 'NIMService', ns, name);
    if (!nim || nim.metadata.deletionTimestamp) return;
    const spec = nim.spec as NIMServiceSpec;
    const now = rt.now();
    const prev = (nim.status ?? {}) as { conditions?: Condition[]; state?: string };
    let conds = prev.conditions;
    const labels = nimLabels(name, spec.labels);
    const port = spec.expose?.service?.port ?? 8000;
    const setState = (state: string, ready: Condition, failed: Condition, extra: Record<string, unknown> = {}): void => {
      conds = setCondition(conds, ready, now);
      conds = setCondition(conds, failed, now);
      rt.setStatus(nim, { state, conditions: conds, ...extra });
    };
    // The cache must be ready before the model server starts.
    const cacheName = spec.storage?.nimCache?.name;
    if (cacheName) {
      const cache = rt.get('apps.nvidia.com/v1alpha1', 'NIMCache', ns, cacheName);
      if (!cache) {
        setState('Failed', { type: 'Ready', status: 'False', reason: 'NIMCacheNotFound', message: `NIMCache ${cacheName} not found` }, { type: 'Failed', status: 'True', reason: 'NIMCacheNotFound', message: `NIMCache ${cacheName} not found` });
        return;
      }
      const cs = (cache.status as { state?: string } | undefined)?.state;
      if (cs === 'Failed') {
        setState('Failed', { type: 'Ready', status: 'False', reason: 'NIMCacheFailed', message: `NIMCache ${cacheName} failed` }, { type: 'Failed', status: 'True', reason: 'NIMCacheFailed', message: `NIMCache ${cacheName} failed` });
        return;
      }
      if (cs !== 'Ready') {
        setState('NotReady', { type: 'Ready', status: 'False', reason: 'NIMCacheNotReady', message: `NIMCache ${cacheName} not ready` }, { type: 'Failed', status: 'False', reason: 'Ready', message: '' });
        return;
      }
    }
    const sa = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: ns, labels, ownerReferences: [ctrlRef(nim)] } };
    rt.ensure(sa);
    rt.ensure({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace: ns, labels, ownerReferences: [ctrlRef(nim)] }, rules: [{ apiGroups: [''], resources: ['pods', 'services'], verbs: ['get', 'list', 'watch'] }] });
    rt.ensure({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name, namespace: ns, labels, ownerReferences: [ctrlRef(nim)] }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name }, subjects: [{ kind: 'ServiceAccount', name, namespace: ns }] });
    const svc = rt.ensure(service({ name, namespace: ns, owner: nim, labels, selector: { app: spec.multiNode ? `${name}-lws` : name, ...(spec.multiNode ? { 'nim-llm-role': 'leader' } : {}) }, ports: [{ name: 'api', port, targetPort: port }], rng: rt.rng, type: (spec.expose?.service?.type as 'ClusterIP' | undefined) ?? 'ClusterIP' }));
    if (spec.storage?.pvc?.create) {
      rt.ensure({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: spec.storage.pvc.name ?? `${name}-pvc`, namespace: ns, labels, ownerReferences: [ctrlRef(nim)] }, spec: { accessModes: [spec.storage.pvc.volumeAccessMode ?? 'ReadWriteOnce'], resources: { requests: { storage: spec.storage.pvc.size ?? '50Gi' } }, ...(spec.storage.pvc.storageClass ? { storageClassName: spec.storage.pvc.storageClass } : {}) }, status: { phase: 'Bound' } });
    }
    if (spec.scale?.enabled) {
      rt.apply({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name, namespace: ns, labels, ownerReferences: [ctrlRef(nim)] }, spec: { minReplicas: spec.scale.hpa?.minReplicas ?? 1, maxReplicas: spec.scale.hpa?.maxReplicas ?? 2, scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name } } });
    }
    const w = rt.apply(nimWorkload(nim));
    const want = spec.replicas ?? 1;
    let available: number;
    let ready: boolean;
    if (w.kind === 'Deployment') {
      const ds = (w.status ?? {}) as { availableReplicas?: number; updatedReplicas?: number; replicas?: number };
      available = ds.availableReplicas ?? 0;
      ready = available >= want && (ds.updatedReplicas ?? 0) >= want && (w.metadata.generation ?? 1) === (w.status as { observedGeneration?: number } | undefined)?.observedGeneration;
    } else {
      available = ((w.status ?? {}) as { readyReplicas?: number }).readyReplicas ?? 0;
      ready = available >= want;
    }
    const ip = (svc.spec as { clusterIP?: string }).clusterIP;
    const model = {
      name: spec.image.repository.replace(/^nvcr\.io\/nim\//, '').replace(/^.*?\/nim\//, ''),
      clusterEndpoint: `${ip}:${port}`,
      externalEndpoint: '',
    };
    const kind = w.kind === 'Deployment' ? 'deployment' : 'leaderworkerset';
    if (ready) {
      setState('Ready', { type: 'Ready', status: 'True', reason: 'Ready', message: `${kind} "${w.metadata.name}" successfully rolled out\n` }, { type: 'Failed', status: 'False', reason: 'Ready', message: '' }, { availableReplicas: available, model });
    } else {
      const state = prev.state && prev.state !== 'Pending' ? 'NotReady' : getCondition(w, 'Available') || available > 0 ? 'NotReady' : 'Pending';
      const msg = w.kind === 'Deployment' ? `Waiting for deployment "${name}" rollout to finish: ${available} of ${want} updated replicas are available...\n` : `Waiting for leaderworkerset "${name}-lws" rollout to finish: ${available} of ${want} groups are ready...\n`;
      setState(state, { type: 'Ready', status: 'False', reason: 'NotReady', message: msg }, { type: 'Failed', status: 'False', reason: 'Ready', message: '' }, { availableReplicas: available, model });
    }
  }
}
