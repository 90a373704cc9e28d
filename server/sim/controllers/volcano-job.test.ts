// Volcano Job controller and the scheduler's PodGroup bookkeeping.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SIM } from './pods.ts';
import { container, fixture, ownerOf } from './testing.ts';
import { podGroupName, policyAction, VC } from './volcano-job.ts';
import type { KubeObject } from './types.ts';

function vcjob(name: string, o: { masterRun?: string; workerRun?: string; workerExit?: string; policies?: unknown[]; maxRetry?: number } = {}): KubeObject {
  const tmpl = (run: string, exit?: string, gpus?: number) => ({ metadata: { annotations: { [SIM.duration]: run, ...(exit ? { [SIM.exitCode]: exit } : {}) } }, spec: { restartPolicy: 'Never', containers: [container('main', gpus ? { 'nvidia.com/gpu': gpus } : { cpu: '500m' })] } });
  return {
    apiVersion: 'batch.volcano.sh/v1alpha1', kind: 'Job', metadata: { name, namespace: 'default' },
    spec: {
      schedulerName: 'volcano', queue: 'default', minAvailable: 3, maxRetry: o.maxRetry ?? 3, plugins: { svc: [], env: [] },
      ...(o.policies ? { policies: o.policies } : {}),
      tasks: [
        { name: 'master', replicas: 1, minAvailable: 1, policies: [{ event: 'TaskCompleted', action: 'CompleteJob' }], template: tmpl(o.masterRun ?? '60s') },
        { name: 'worker', replicas: 2, minAvailable: 2, template: tmpl(o.workerRun ?? 'forever', o.workerExit, 1) },
      ],
    },
  };
}
const phase = (o: KubeObject | undefined): string | undefined => (o?.status as { state?: { phase?: string } } | undefined)?.state?.phase;

test('policies: task policies first, then the job\'s, SyncJob when none matches', () => {
  const spec = vcjob('p', { policies: [{ event: 'PodFailed', action: 'RestartJob' }] }).spec as Parameters<typeof policyAction>[0];
  assert.equal(policyAction(spec, 'master', 'TaskCompleted'), 'CompleteJob');
  assert.equal(policyAction(spec, 'worker', 'PodFailed'), 'RestartJob');
  assert.equal(policyAction(spec, 'worker', 'PodEvicted'), 'SyncJob');
});

test('PodGroup <job>-<uid>, pods <job>-<task>-<index> with Volcano\'s labels once enqueued, Running, then TaskCompleted → Completed', async () => {
  const f = fixture();
  try {
    f.store.create(vcjob('mpi'));
    await f.run(10_000);
    const job = f.get('batch.volcano.sh/v1alpha1', 'Job', 'mpi')!;
    const pg = f.get('scheduling.volcano.sh/v1beta1', 'PodGroup', podGroupName(job))!;
    assert.equal(pg.metadata.name, `mpi-${job.metadata.uid}`);
    assert.deepEqual(pg.spec, { minMember: 3, minTaskMember: { master: 1, worker: 2 }, queue: 'default' });
    assert.equal((pg.status as { phase: string }).phase, 'Running');
    const pods = f.pods({ [VC.jobName]: 'mpi' }).sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));
    assert.deepEqual(pods.map((p) => [p.metadata.name, p.metadata.labels![VC.taskSpec], p.metadata.labels![VC.taskIndex], p.spec.schedulerName, p.spec.hostname, p.spec.subdomain]), [
      ['mpi-master-0', 'master', '0', 'volcano', 'mpi-master-0', 'mpi'], ['mpi-worker-0', 'worker', '0', 'volcano', 'mpi-worker-0', 'mpi'], ['mpi-worker-1', 'worker', '1', 'volcano', 'mpi-worker-1', 'mpi'],
    ]);
    assert.equal(pods[1].metadata.annotations![VC.groupName], pg.metadata.name);
    assert.deepEqual(ownerOf(pods[0]), { kind: 'Job', name: 'mpi', controller: true, blockOwnerDeletion: true });
    assert.equal(phase(job), 'Running');
    assert.ok(f.get('v1', 'ConfigMap', 'mpi-svc'));
    await f.run(80_000, 5000);
    const done = f.get('batch.volcano.sh/v1alpha1', 'Job', 'mpi')!;
    assert.equal(phase(done), 'Completed');
    assert.deepEqual(f.pods({ [VC.jobName]: 'mpi' }).map((p) => [p.metadata.name, p.status?.phase]), [['mpi-master-0', 'Succeeded']]);
    assert.equal(f.list('scheduling.volcano.sh/v1beta1', 'PodGroup').length, 0, 'a full kill deletes the PodGroup');
  } finally {
    f.stop();
  }
});

test('PodFailed → RestartJob restarts the whole job until maxRetry, then Failed keeps the failed pod', async () => {
  const f = fixture();
  try {
    f.store.create(vcjob('flaky', { workerRun: '15s', workerExit: '1', masterRun: 'forever', maxRetry: 2, policies: [{ event: 'PodFailed', action: 'RestartJob' }] }));
    await f.run(25_000, 1000);
    const seen = new Set<string>();
    for (let i = 0; i < 40 && phase(f.get('batch.volcano.sh/v1alpha1', 'Job', 'flaky')) !== 'Failed'; i++) {
      seen.add(phase(f.get('batch.volcano.sh/v1alpha1', 'Job', 'flaky'))!);
      await f.run(3000, 1000);
    }
    const job = f.get('batch.volcano.sh/v1alpha1', 'Job', 'flaky')!;
    assert.equal(phase(job), 'Failed');
    assert.equal((job.status as { retryCount: number }).retryCount, 2);
    assert.ok(((job.status as { conditions: Array<{ status: string }> }).conditions).some((c) => c.status === 'Restarting'));
    assert.ok(f.pods({ [VC.jobName]: 'flaky' }).every((p) => p.status?.phase === 'Failed'), 'only failed pods are kept at the last retry');
  } finally {
    f.stop();
  }
});
