// AppWrapper controller and Kueue's admission of it: pod-set paths, inference, the wrapped objects and
// the phases they drive.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AW_LABEL, inferPodSets, parsePodSetPath, planAppWrapper, PODSET_LABEL } from './appwrapper.ts';
import { SIM } from './pods.ts';
import { cond, container, fixture, ownerOf } from './testing.ts';
import type { KubeObject, Pod } from './types.ts';

test('pod-set paths: field steps and indexes below the component template; anything else is refused', () => {
  assert.deepEqual(parsePodSetPath('template.spec.replicatedJobs[1].template.spec.template'), ['spec', 'replicatedJobs', 1, 'template', 'spec', 'template']);
  assert.deepEqual(parsePodSetPath('template'), []);
  assert.equal(parsePodSetPath('spec.template'), undefined);
  assert.equal(parsePodSetPath('template.spec[x]'), undefined);
});

test('inferred pod sets: Job min(parallelism, completions), PyTorchJob per replica type, JobSet replicas × pods per Job', () => {
  assert.deepEqual(inferPodSets({ apiVersion: 'batch/v1', kind: 'Job', metadata: {}, spec: { parallelism: 4, completions: 2, template: {} } }), [{ replicas: 2, path: 'template.spec.template' }]);
  assert.deepEqual(inferPodSets({ apiVersion: 'kubeflow.org/v1', kind: 'PyTorchJob', metadata: {}, spec: { pytorchReplicaSpecs: { Master: { template: {} }, Worker: { replicas: 3, template: {} } } } }).map((p) => [p.path, p.replicas]), [
    ['template.spec.pytorchReplicaSpecs.Master.template', 1], ['template.spec.pytorchReplicaSpecs.Worker.template', 3],
  ]);
  assert.deepEqual(inferPodSets({ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: {}, spec: { replicatedJobs: [{ replicas: 2, template: { spec: { parallelism: 4 } } }] } }), [{ replicas: 8, path: 'template.spec.replicatedJobs[0].template.spec.template' }]);
});

test('plan: a new AppWrapper records its pod sets and waits suspended; the retry limit turns a failure into Failed', () => {
  const aw: KubeObject = { apiVersion: 'workload.codeflare.dev/v1beta2', kind: 'AppWrapper', metadata: { name: 'a', namespace: 'd', uid: 'u' }, spec: { suspend: true, components: [{ template: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'a' }, spec: { template: {} } } }] } };
  const p = planAppWrapper(aw, [undefined], [], 0, '2026-01-01T00:00:00Z');
  assert.equal(p.status.phase, 'Suspended');
  assert.deepEqual(p.status.componentStatus, [{ name: '', kind: '', apiVersion: '', podSets: [{ replicas: 1, path: 'template.spec.template' }] }]);
  const job: KubeObject = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'a' }, status: { conditions: [{ type: 'Failed', status: 'True' }] } };
  const running = { ...aw, spec: { ...(aw.spec as object), suspend: false }, status: { ...p.status, phase: 'Running', resettingCount: 3 } };
  const q = planAppWrapper(running, [job], [], 0, '2026-01-01T00:00:00Z');
  assert.equal(q.status.phase, 'Failed');
  assert.equal(q.status.conditions?.find((c) => c.type === 'Unhealthy')?.reason, 'FailedComponent');
});

function appWrapper(name: string, gpus: number, duration: string, exit?: string): KubeObject {
  const tmpl = { metadata: { annotations: { [SIM.duration]: duration, ...(exit ? { [SIM.exitCode]: exit } : {}) } }, spec: { containers: [container('pytorch', { 'nvidia.com/gpu': gpus })] } };
  return {
    apiVersion: 'workload.codeflare.dev/v1beta2', kind: 'AppWrapper',
    metadata: { name, namespace: 'default', labels: { 'kueue.x-k8s.io/queue-name': 'q' } },
    spec: {
      suspend: true,
      components: [{
        podSets: [{ replicas: 1, path: 'template.spec.pytorchReplicaSpecs.Master.template' }, { replicas: 1, path: 'template.spec.pytorchReplicaSpecs.Worker.template' }],
        template: { apiVersion: 'kubeflow.org/v1', kind: 'PyTorchJob', metadata: { name }, spec: { pytorchReplicaSpecs: { Master: { replicas: 1, restartPolicy: 'Never', template: tmpl }, Worker: { replicas: 1, restartPolicy: 'Never', template: tmpl } } } },
      }],
    },
  };
}

test('Kueue admits it, the PyTorchJob is created with both labels in its pod templates, PodsReady, then Succeeded', async () => {
  const f = fixture();
  try {
    f.store.create(appWrapper('mnist', 1, '60s'));
    await f.run(1000);
    assert.equal((f.get('workload.codeflare.dev/v1beta2', 'AppWrapper', 'mnist')!.status as { phase: string }).phase, 'Suspended');
    await f.run(15_000);
    const aw = f.get('workload.codeflare.dev/v1beta2', 'AppWrapper', 'mnist')!;
    assert.equal((aw.spec as { suspend: boolean }).suspend, false, 'admitted');
    const pj = f.get('kubeflow.org/v1', 'PyTorchJob', 'mnist')!;
    assert.deepEqual(ownerOf(pj), { kind: 'AppWrapper', name: 'mnist', controller: true, blockOwnerDeletion: true });
    assert.equal(pj.metadata.labels![AW_LABEL], 'mnist');
    const pods = f.pods({ [AW_LABEL]: 'mnist' }).sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));
    assert.deepEqual(pods.map((p) => [p.metadata.name, p.metadata.labels![PODSET_LABEL], ownerOf(p)?.kind]), [['mnist-master-0', 'mnist-0', 'PyTorchJob'], ['mnist-worker-0', 'mnist-1', 'PyTorchJob']]);
    assert.equal((aw.status as { phase: string }).phase, 'Running');
    assert.equal(cond(aw, 'PodsReady')?.status, 'True');
    await f.run(90_000, 5000);
    const done = f.get('workload.codeflare.dev/v1beta2', 'AppWrapper', 'mnist')!;
    assert.equal((done.status as { phase: string }).phase, 'Succeeded');
    assert.equal(cond(done, 'QuotaReserved')?.status, 'False');
  } finally {
    f.stop();
  }
});

test('a failed PyTorchJob resets the AppWrapper: components deleted, recreated after the pause; suspend deletes them', async () => {
  const f = fixture();
  try {
    f.store.create(appWrapper('crash', 1, '20s', '1'));
    await f.run(40_000, 2000);
    let aw = f.get('workload.codeflare.dev/v1beta2', 'AppWrapper', 'crash')!;
    assert.equal((aw.status as { phase: string }).phase, 'Resetting');
    assert.equal((aw.status as { resettingCount: number }).resettingCount, 1);
    assert.equal(cond(aw, 'Unhealthy')?.reason, 'FailedComponent');
    assert.equal(f.get('kubeflow.org/v1', 'PyTorchJob', 'crash'), undefined, 'the failed component is deleted');
    await f.run(100_000, 5000);
    aw = f.get('workload.codeflare.dev/v1beta2', 'AppWrapper', 'crash')!;
    assert.ok(f.get('kubeflow.org/v1', 'PyTorchJob', 'crash') || (aw.status as { resettingCount: number }).resettingCount > 1, 'created again after the retry pause');
    f.store.update({ ...aw, spec: { ...(aw.spec as object), suspend: true } });
    await f.run(10_000);
    aw = f.get('workload.codeflare.dev/v1beta2', 'AppWrapper', 'crash')!;
    assert.equal((aw.status as { phase: string }).phase, 'Suspended');
    assert.equal(f.get('kubeflow.org/v1', 'PyTorchJob', 'crash'), undefined);
    assert.equal((f.pods({ [AW_LABEL]: 'crash' }) as Pod[]).length, 0);
  } finally {
    f.stop();
  }
});
