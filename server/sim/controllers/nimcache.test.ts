import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SIM } from './pods.ts';
import { cond, fixture, ownerOf, type Fixture } from './testing.ts';
import type { KubeObject } from './types.ts';

const API = 'apps.nvidia.com/v1alpha1';

function nimCache(name: string, o: { create?: boolean; annotations?: Record<string, string> } = {}): KubeObject {
  return {
    apiVersion: API,
    kind: 'NIMCache',
    metadata: { name, namespace: 'nim', ...(o.annotations ? { annotations: o.annotations } : {}) },
    spec: {
      source: { ngc: { modelPuller: 'nvcr.io/nim/meta/llama-3.1-8b-instruct:1.8.3', pullSecret: 'ngc-secret', authSecret: 'ngc-api-secret', model: { engine: 'tensorrt_llm', tensorParallelism: '1' } } },
      storage: { pvc: { create: o.create ?? true, storageClass: 'standard', size: '50Gi', volumeAccessMode: 'ReadWriteOnce' } },
      resources: { cpu: '4', memory: '16Gi' },
    },
  };
}

const stateOf = (f: Fixture, name: string): string | undefined => (f.get(API, 'NIMCache', name, 'nim')?.status as { state?: string } | undefined)?.state;

test('NIMCache: PVC, probe pod → manifest ConfigMap, caching Job, InProgress → Ready; Ready survives the Job TTL', async () => {
  const f = fixture();
  try {
    f.store.create(nimCache('llama-cache'));
    await f.settle();
    assert.equal(stateOf(f, 'llama-cache'), 'PVC-Created');
    const pvc = f.get('v1', 'PersistentVolumeClaim', 'llama-cache-pvc', 'nim')!;
    assert.deepEqual(ownerOf(pvc), { kind: 'NIMCache', name: 'llama-cache', controller: true, blockOwnerDeletion: true });
    assert.equal(pvc.metadata.labels!['app.kubernetes.io/part-of'], 'nim-cache');
    const probe = f.get('v1', 'Pod', 'llama-cache-pod', 'nim')!;
    assert.equal(ownerOf(probe)!.kind, 'NIMCache');
    assert.deepEqual(probe.metadata.labels, { app: 'k8s-nim-operator', 'app.kubernetes.io/name': 'llama-cache', 'app.kubernetes.io/managed-by': 'k8s-nim-operator' });
    assert.equal(f.get('batch/v1', 'Job', 'llama-cache-job', 'nim'), undefined, 'no Job before the manifest is read');
    for (const k of ['ServiceAccount', 'Role', 'RoleBinding']) {
      const av = k === 'ServiceAccount' ? 'v1' : 'rbac.authorization.k8s.io/v1';
      const o = f.list(av, k).find((x) => x.metadata.namespace === 'nim' && x.metadata.name!.startsWith('nim-cache-'));
      assert.ok(o, k);
      assert.equal(o.metadata.ownerReferences, undefined, `${k} is shared by the namespace's caches`);
    }

    await f.run(40_000, 2_000);
    assert.equal(f.get('v1', 'Pod', 'llama-cache-pod', 'nim'), undefined, 'the probe pod is deleted once read');
    assert.equal(ownerOf(f.get('v1', 'ConfigMap', 'llama-cache-manifest', 'nim')!)!.kind, 'NIMCache');
    const job = f.get('batch/v1', 'Job', 'llama-cache-job', 'nim')!;
    assert.equal(ownerOf(job)!.kind, 'NIMCache');
    const js = job.spec as { backoffLimit: number; ttlSecondsAfterFinished: number };
    assert.equal(js.backoffLimit, 5);
    assert.equal(js.ttlSecondsAfterFinished, 600);
    const [pod] = f.pods({ 'job-name': 'llama-cache-job' }, 'nim');
    assert.equal(pod.metadata.labels!.app, 'k8s-nim-operator');
    assert.equal(pod.spec.containers[0].name, 'nim-cache-ctr');
    assert.deepEqual(pod.spec.containers[0].command, ['download-to-cache']);
    assert.equal((pod.spec.containers[0].args as string[])[0], '--profiles');
    assert.deepEqual(pod.spec.containers[0].resources, { limits: { cpu: '4', memory: '16Gi' }, requests: { cpu: '4', memory: '16Gi' } });
    assert.deepEqual(pod.spec.nodeSelector, { 'feature.node.kubernetes.io/pci-10de.present': 'true' });
    assert.match(pod.spec.nodeName ?? '', /^gpu-h100-/, 'scheduled on an NFD-labelled GPU node');
    assert.equal(stateOf(f, 'llama-cache'), 'InProgress');
    const cache = f.get(API, 'NIMCache', 'llama-cache', 'nim')!;
    assert.equal(cond(cache, 'NIM_CACHE_JOB_CREATED')?.status, 'True');
    assert.equal(cond(cache, 'NIM_CACHE_JOB_PENDING')?.reason, 'JobRunning');

    await f.run(150_000, 5_000);
    const ready = f.get(API, 'NIMCache', 'llama-cache', 'nim')!;
    assert.equal(stateOf(f, 'llama-cache'), 'Ready');
    assert.equal(cond(ready, 'NIM_CACHE_JOB_COMPLETED')?.status, 'True');
    const st = ready.status as { pvc: string; profiles: Array<{ model: string; config: Record<string, string> }> };
    assert.equal(st.pvc, 'llama-cache-pvc');
    assert.equal(st.profiles[0].model, 'meta/llama-3.1-8b-instruct');
    assert.equal(st.profiles[0].config.tp, '1');

    await f.run(620_000, 20_000);
    assert.equal(f.get('batch/v1', 'Job', 'llama-cache-job', 'nim'), undefined, 'removed by its TTL');
    assert.equal(stateOf(f, 'llama-cache'), 'Ready');
    assert.equal(f.pods(undefined, 'nim').length, 0);
  } finally {
    f.stop();
  }
});

test('NIMCache: a failing download is Failed at the first failed attempt, InProgress again while the Job retries, Failed at the backoff limit', async () => {
  const f = fixture();
  try {
    f.store.create(nimCache('bad-key', { annotations: { [SIM.duration]: '20s', [SIM.exitCode]: '1' } }));
    await f.run(30_000, 2_000);
    const seen = new Set<string>();
    let retried = false;
    for (let i = 0; i < 200 && !(seen.has('Failed') && (f.get('batch/v1', 'Job', 'bad-key-job', 'nim')?.status as { failed?: number } | undefined)?.failed === 6); i++) {
      await f.run(5_000, 5_000);
      const s = stateOf(f, 'bad-key')!;
      if (seen.has('Failed') && s === 'InProgress') retried = true;
      seen.add(s);
    }
    assert.ok(retried, 'InProgress again after a failed attempt');
    const cache = f.get(API, 'NIMCache', 'bad-key', 'nim')!;
    assert.equal(stateOf(f, 'bad-key'), 'Failed');
    assert.equal(cond(cache, 'NIM_CACHE_JOB_COMPLETED')?.status, 'False');
    assert.equal(cond(cache, 'NIM_CACHE_JOB_COMPLETED')?.reason, 'JobFailed');
    assert.equal(f.pods({ 'job-name': 'bad-key-job' }, 'nim').length, 6, 'backoffLimit 5: six attempts');
    // The Job's TTL removes it and the operator tries again with a new one.
    await f.run(620_000, 20_000);
    const again = f.get('batch/v1', 'Job', 'bad-key-job', 'nim');
    assert.ok(again, 'a new caching Job');
    assert.notEqual(stateOf(f, 'bad-key'), 'Ready');
  } finally {
    f.stop();
  }
});

test('NIMCache: no PVC and create false → NotReady with NIM_CACHE_RECONCILE_FAILED; proceeds once the PVC exists', async () => {
  const f = fixture();
  try {
    f.store.create(nimCache('byo', { create: false }));
    await f.settle();
    let cache = f.get(API, 'NIMCache', 'byo', 'nim')!;
    assert.equal(stateOf(f, 'byo'), 'NotReady');
    assert.equal(cond(cache, 'NIM_CACHE_RECONCILE_FAILED')?.status, 'True');
    assert.match(cond(cache, 'NIM_CACHE_RECONCILE_FAILED')?.message ?? '', /"byo-pvc" not found/);
    assert.equal(f.pods(undefined, 'nim').length, 0);
    f.store.create({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'byo-pvc', namespace: 'nim' }, spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '200Gi' } } }, status: { phase: 'Bound' } });
    await f.run(130_000, 5_000);
    cache = f.get(API, 'NIMCache', 'byo', 'nim')!;
    assert.equal(cond(cache, 'NIM_CACHE_RECONCILE_FAILED')?.status, 'False');
    assert.equal(cond(cache, 'NIM_CACHE_RECONCILE_FAILED')?.reason, 'Reconciled');
    assert.ok(['Started', 'Pending', 'InProgress', 'Ready'].includes(stateOf(f, 'byo')!), stateOf(f, 'byo'));
  } finally {
    f.stop();
  }
});
