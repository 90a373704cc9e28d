/**
 * NVIDIA NIM operator's NIMCache (apps.nvidia.com/v1alpha1), as k8s-nim-operator v3.1 reconciles it
 * (internal/controller/nimcache_controller.go): the namespace's shared ServiceAccount nim-cache-sa, Role
 * nim-cache-role and RoleBinding nim-cache-rolebinding; the PVC `<name>-pvc` when `storage.pvc.create`
 * (a missing PVC it may not create is a reconcile error: NotReady + NIM_CACHE_RECONCILE_FAILED); a
 * model-manifest probe Pod `<name>-pod` whose output becomes the ConfigMap `<name>-manifest`, after which
 * the pod is deleted; then the caching Job `<name>-job` (backoffLimit 5, TTL 600 s, container
 * nim-cache-ctr, CPU and memory only, GPU nodes by NFD's pci-10de label unless a nodeSelector is given).
 * All of them but the RBAC objects are controlled by the NIMCache.
 *
 * State: PVC-Created when it made the PVC, Started when it made the Job, then on each Job change, in this
 * order: a pod succeeded → Ready; a pod failed → Failed (at the first failed attempt, while the Job may
 * still retry); a pod active → InProgress; none active → Pending. The operator only looks again when the
 * Job changes (its predicate drops the NIMCache's own status writes), so a state written from one Job
 * revision is kept until the next one: a Job that retries after a failure reads InProgress again, and a
 * Ready cache stays Ready after the Job's TTL removed it. A failed cache's Job is recreated when its TTL
 * expires: the download is tried again.
 */

import { isJobFinished, type JobStatus } from './job.ts';
import { ctrlRef, isPodRunning, pickKeys, setCondition } from './meta.ts';
import { SIM } from './pods.ts';
import type { Controller, Runtime } from './runtime.ts';
import type { Condition, EnvVar, KubeObject, Pod, StringMap, Toleration } from './types.ts';

const API = 'apps.nvidia.com/v1alpha1';
const CONTAINER = 'nim-cache-ctr';
const SERVICE_ACCOUNT = 'nim-cache-sa';
const ROLE = 'nim-cache-role';
const ROLE_BINDING = 'nim-cache-rolebinding';
const MODEL_STORE = '/model-store';
/** GPU nodes as Node Feature Discovery labels them (PCI vendor 10de): the operator's default node selector. */
const GPU_NODES: StringMap = { 'feature.node.kubernetes.io/pci-10de.present': 'true' };
/** How long the operator waits before looking at a probe pod that is not running yet. */
const PROBE_REQUEUE_MS = 30_000;
/** controller-runtime's retry of a failed reconcile, roughly (it backs off exponentially up to minutes). */
const ERROR_REQUEUE_MS = 60_000;

interface SourceSpec {
  modelPuller?: string;
  pullSecret?: string;
  authSecret?: string;
  modelEndpoint?: string;
  model?: { profiles?: string[]; engine?: string; tensorParallelism?: string; precision?: string };
}

export interface NIMCacheSpec {
  source?: { ngc?: SourceSpec; hf?: SourceSpec; dataStore?: SourceSpec };
  storage?: { pvc?: { create?: boolean; name?: string; size?: string; storageClass?: string; volumeAccessMode?: string } };
  resources?: { cpu?: string; memory?: string };
  nodeSelector?: StringMap;
  tolerations?: Toleration[];
  env?: EnvVar[];
  userID?: number;
  groupID?: number;
}

interface NIMCacheStatus {
  state?: string;
  pvc?: string;
  profiles?: Array<{ name: string; model: string; release: string; config: StringMap }>;
  conditions?: Condition[];
}

export const NIM_CACHE_CONDITIONS = {
  pvcCreated: 'NIM_CACHE_PVC_CREATED',
  jobCreated: 'NIM_CACHE_JOB_CREATED',
  jobPending: 'NIM_CACHE_JOB_PENDING',
  jobCompleted: 'NIM_CACHE_JOB_COMPLETED',
  reconcileFailed: 'NIM_CACHE_RECONCILE_FAILED',
} as const;

function sourceOf(spec: NIMCacheSpec): SourceSpec {
  return spec.source?.ngc ?? spec.source?.hf ?? spec.source?.dataStore ?? {};
}

function baseLabels(name: string): StringMap {
  return { app: 'k8s-nim-operator', 'app.kubernetes.io/name': name, 'app.kubernetes.io/managed-by': 'k8s-nim-operator' };
}

/** What the operator's GetStandardLabels adds for the PVC and the manifest ConfigMap. */
function standardLabels(name: string): StringMap {
  return { ...baseLabels(name), 'app.kubernetes.io/instance': name, 'app.kubernetes.io/part-of': 'nim-cache' };
}

/** Zero quantities when unset: the operator copies the (possibly zero) Quantity values into limits and requests. */
function cacheResources(spec: NIMCacheSpec): { limits: StringMap; requests: StringMap } {
  const r = { cpu: spec.resources?.cpu ?? '0', memory: spec.resources?.memory ?? '0' };
  return { limits: { ...r }, requests: { ...r } };
}

function containerSecurity(spec: NIMCacheSpec): Record<string, unknown> {
  return { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsNonRoot: true, runAsGroup: spec.groupID ?? 2000, runAsUser: spec.userID ?? 1000 };
}

function podCommon(spec: NIMCacheSpec): Record<string, unknown> {
  const src = sourceOf(spec);
  return {
    securityContext: { runAsUser: spec.userID ?? 1000, fsGroup: spec.groupID ?? 2000, runAsNonRoot: true },
    serviceAccountName: SERVICE_ACCOUNT,
    nodeSelector: spec.nodeSelector ?? GPU_NODES,
    ...(spec.tolerations ? { tolerations: spec.tolerations } : {}),
    ...(src.pullSecret ? { imagePullSecrets: [{ name: src.pullSecret }] } : {}),
  };
}

/** Simulated run time of the download, from the NIMCache's own sim annotations (default two minutes). */
function simAnnotations(cache: KubeObject): StringMap {
  return { [SIM.duration]: '2m', ...pickKeys(cache.metadata.annotations, [SIM.duration, SIM.exitCode, SIM.exitReason, SIM.startup]) };
}

function probePod(cache: KubeObject): KubeObject {
  const spec = cache.spec as NIMCacheSpec;
  const name = cache.metadata.name!;
  const script = [
    'if [ -f /opt/nim/etc/default/model_manifest.yaml ]; then cat /opt/nim/etc/default/model_manifest.yaml;',
    'elif [ -f /etc/nim/config/model_manifest.yaml ]; then cat /etc/nim/config/model_manifest.yaml;',
    'else echo "model_manifest.yaml not found"; fi; sleep infinity',
  ].join(' ');
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `${name}-pod`, namespace: cache.metadata.namespace, labels: baseLabels(name), annotations: { [SIM.duration]: 'forever' }, ownerReferences: [ctrlRef(cache)] },
    spec: {
      ...podCommon(spec),
      containers: [{ name: CONTAINER, image: sourceOf(spec).modelPuller ?? '', command: ['sh', '-c', script], resources: cacheResources(spec), securityContext: containerSecurity(spec) }],
    },
  };
}

/** The profile the manifest offers for the model's engine and parallelism (a stand-in for the real manifest). */
function profileOf(cache: KubeObject): { id: string; tags: StringMap; model: string; release: string } {
  const spec = cache.spec as NIMCacheSpec;
  const puller = sourceOf(spec).modelPuller ?? 'nvcr.io/nim/model:latest';
  const [repo, release = 'latest'] = puller.split(':');
  const m = sourceOf(spec).model ?? {};
  const tags: StringMap = { llm_engine: m.engine ?? 'tensorrt_llm', precision: m.precision ?? 'fp8', tp: m.tensorParallelism ?? '1', pp: '1', profile: 'throughput', gpu: 'H100' };
  const key = `${repo}|${Object.values(tags).join('|')}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return { id: (h.toString(16).padStart(8, '0') + 'a5').repeat(6).slice(0, 64), tags, model: repo.replace(/^nvcr\.io\/nim\//, ''), release };
}

function manifestConfigMap(cache: KubeObject): KubeObject {
  const name = cache.metadata.name!;
  const p = profileOf(cache);
  const tags = Object.entries(p.tags).map(([k, v]) => `${k}: "${v}"`).join(', ');
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${name}-manifest`, namespace: cache.metadata.namespace, labels: standardLabels(name), ownerReferences: [ctrlRef(cache)] },
    data: { 'model_manifest.yaml': `profiles:\n  - id: ${p.id}\n    model: ${p.model}\n    release: "${p.release}"\n    tags: {${tags}}\n` },
  };
}

function cachingJob(cache: KubeObject, pvcName: string): KubeObject {
  const spec = cache.spec as NIMCacheSpec;
  const name = cache.metadata.name!;
  const src = sourceOf(spec);
  const profiles = src.model?.profiles?.length ? src.model.profiles : [profileOf(cache).id];
  const args = profiles.includes('all') ? ['--all'] : ['--profiles', ...profiles];
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: `${name}-job`, namespace: cache.metadata.namespace, ownerReferences: [ctrlRef(cache)] },
    spec: {
      backoffLimit: 5,
      ttlSecondsAfterFinished: 600,
      template: {
        metadata: { labels: baseLabels(name), annotations: { 'sidecar.istio.io/inject': 'false', ...simAnnotations(cache) } },
        spec: {
          ...podCommon(spec),
          restartPolicy: 'Never',
          containers: [
            {
              name: CONTAINER,
              image: src.modelPuller ?? '',
              command: src.modelEndpoint ? ['create-model-store'] : ['download-to-cache'],
              args: src.modelEndpoint ? ['--model-repo', src.modelEndpoint, '--model-store', MODEL_STORE] : args,
              ...(src.authSecret ? { envFrom: [{ secretRef: { name: src.authSecret } }] } : {}),
              env: [{ name: 'NIM_CACHE_PATH', value: MODEL_STORE }, ...(spec.env ?? [])],
              resources: cacheResources(spec),
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'FallbackToLogsOnError',
              securityContext: containerSecurity(spec),
              volumeMounts: [{ name: 'nim-cache-volume', mountPath: MODEL_STORE }, { name: 'scratch', mountPath: '/scratch' }],
            },
          ],
          volumes: [{ name: 'nim-cache-volume', persistentVolumeClaim: { claimName: pvcName } }, { name: 'scratch', emptyDir: {} }],
        },
      },
    },
  };
}

export class NIMCacheController implements Controller {
  readonly name = 'nimcache';
  readonly primary = 'apps.nvidia.com/NIMCache';
  readonly priority = 2;
  readonly owns = ['batch/Job', '/Pod', '/PersistentVolumeClaim'];
  /** The Job revision each NIMCache last looked at: the operator re-reads its state only when the Job changes. */
  private readonly jobSeen = new Map<string, string>();

  reconcile(rt: Runtime, ns: string, name: string): void {
    const key = `${ns}/${name}`;
    const cache = rt.get(API, 'NIMCache', ns, name);
    if (!cache || cache.metadata.deletionTimestamp) {
      this.jobSeen.delete(key);
      return;
    }
    const spec = cache.spec as NIMCacheSpec;
    const now = rt.now();
    const prev = (cache.status ?? {}) as NIMCacheStatus;
    const status: NIMCacheStatus = { ...prev };
    const condition = (type: string, s: 'True' | 'False', reason: string, message: string): void => {
      status.conditions = setCondition(status.conditions, { type, status: s, reason, message }, now);
    };
    const write = (): void => {
      if (status.state !== prev.state) rt.recordEvent(cache, 'Normal', status.state ?? '', `NIMCache ${name} reconcile success, new state: ${status.state}`);
      rt.setStatus(cache, status);
    };

    this.ensureRbac(rt, ns);
    const pvcName = spec.storage?.pvc?.name ?? `${name}-pvc`;
    if (!rt.get('v1', 'PersistentVolumeClaim', ns, pvcName)) {
      if (!spec.storage?.pvc?.create) {
        condition(NIM_CACHE_CONDITIONS.reconcileFailed, 'True', 'ReconcileFailed', `PersistentVolumeClaim "${pvcName}" not found`);
        status.state = 'NotReady';
        rt.recordEvent(cache, 'Warning', 'ReconcileFailed', `NIMCache ${name} reconcile failed, msg: PersistentVolumeClaim "${pvcName}" not found`);
        rt.setStatus(cache, status);
        rt.after(this, ns, name, ERROR_REQUEUE_MS);
        return;
      }
      rt.create(this.pvc(cache, pvcName));
      condition(NIM_CACHE_CONDITIONS.pvcCreated, 'True', 'PVCCreated', 'The PVC has been created for caching NIM model');
      status.state = 'PVC-Created';
    }

    // The model manifest, read from a probe pod's output once.
    if (!rt.get('v1', 'ConfigMap', ns, `${name}-manifest`)) {
      const probe = rt.get<Pod>('v1', 'Pod', ns, `${name}-pod`) ?? rt.createPod(probePod(cache) as Pod);
      if (!isPodRunning(probe)) {
        write();
        rt.after(this, ns, name, PROBE_REQUEUE_MS);
        return;
      }
      rt.create(manifestConfigMap(cache));
      rt.delete(probe);
    }

    const job = rt.get('batch/v1', 'Job', ns, `${name}-job`);
    if (!job) {
      if (status.state !== 'Ready') {
        const created = rt.create(cachingJob(cache, pvcName));
        this.jobSeen.set(key, created.metadata.resourceVersion ?? '');
        condition(NIM_CACHE_CONDITIONS.jobCreated, 'True', 'JobCreated', 'The Job to cache NIM has been created');
        status.state = 'Started';
        status.profiles = [];
      }
    } else if (this.jobSeen.get(key) !== job.metadata.resourceVersion) {
      this.jobSeen.set(key, job.metadata.resourceVersion ?? '');
      this.followJob(cache, job, status, condition, pvcName);
    }
    if (status.conditions?.some((c) => c.type === NIM_CACHE_CONDITIONS.reconcileFailed)) condition(NIM_CACHE_CONDITIONS.reconcileFailed, 'False', 'Reconciled', '');
    write();
  }

  /** The operator's reading of its Job, first match wins (see the file comment). */
  private followJob(cache: KubeObject, job: KubeObject, status: NIMCacheStatus, condition: (type: string, s: 'True' | 'False', reason: string, message: string) => void, pvcName: string): void {
    const js = (job.status ?? {}) as JobStatus;
    if ((js.succeeded ?? 0) > 0 && status.state !== 'Ready') {
      condition(NIM_CACHE_CONDITIONS.jobCompleted, 'True', 'JobCompleted', 'The Job to cache NIM has successfully completed');
      status.state = 'Ready';
      status.pvc = pvcName;
      const p = profileOf(cache);
      const wanted = sourceOf(cache.spec as NIMCacheSpec).model?.profiles;
      status.profiles = !wanted?.length || wanted.includes(p.id) ? [{ name: p.id, model: p.model, release: p.release, config: p.tags }] : [];
    } else if ((js.failed ?? 0) > 0 && status.state !== 'Failed') {
      condition(NIM_CACHE_CONDITIONS.jobCompleted, 'False', 'JobFailed', 'The Job to cache NIM has failed');
      status.state = 'Failed';
      status.profiles = [];
    } else if ((js.active ?? 0) > 0 && status.state !== 'InProgress') {
      condition(NIM_CACHE_CONDITIONS.jobPending, 'False', 'JobRunning', 'The Job to cache NIM is in progress');
      status.state = 'InProgress';
      status.profiles = [];
    } else if ((js.active ?? 0) === 0 && status.state !== 'Ready' && status.state !== 'Pending' && !(status.state === 'Failed' && isJobFinished(job) === 'Failed')) {
      // guess: the operator would read a finished, failed Job's later revisions as Pending too; a simulated
      // Job writes its Failed condition in a separate revision, which would turn every failed cache Pending.
      condition(NIM_CACHE_CONDITIONS.jobPending, 'True', 'JobPending', 'The Job to cache NIM is in pending state');
      status.state = 'Pending';
      status.profiles = [];
    }
  }

  private pvc(cache: KubeObject, pvcName: string): KubeObject {
    const p = (cache.spec as NIMCacheSpec).storage?.pvc ?? {};
    const mode = p.volumeAccessMode ?? 'ReadWriteOnce';
    return {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: pvcName, namespace: cache.metadata.namespace, labels: standardLabels(cache.metadata.name!), ownerReferences: [ctrlRef(cache)] },
      spec: { accessModes: [mode], resources: { requests: { storage: p.size ?? '50Gi' } }, volumeMode: 'Filesystem', ...(p.storageClass ? { storageClassName: p.storageClass } : {}) },
      status: { phase: 'Bound', accessModes: [mode], capacity: { storage: p.size ?? '50Gi' } },
    };
  }

  /** One ServiceAccount, Role and RoleBinding per namespace, shared by every NIMCache there (not owned). */
  private ensureRbac(rt: Runtime, ns: string): void {
    const labels = { app: 'k8s-nim-operator', 'app.kubernetes.io/managed-by': 'k8s-nim-operator' };
    rt.ensure({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SERVICE_ACCOUNT, namespace: ns, labels: { 'app.kubernetes.io/managed-by': 'k8s-nim-operator' } } });
    rt.ensure({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: ROLE, namespace: ns, labels }, rules: [{ apiGroups: ['security.openshift.io'], resources: ['securitycontextconstraints'], resourceNames: ['nonroot'], verbs: ['use'] }] });
    rt.ensure({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: ROLE_BINDING, namespace: ns, labels }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: ROLE }, subjects: [{ kind: 'ServiceAccount', name: SERVICE_ACCOUNT, namespace: ns }] });
  }
}
