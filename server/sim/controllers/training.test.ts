import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SIM } from './pods.ts';
import { cond, container, fixture, ownerOf } from './testing.ts';
import type { KubeObject, Pod } from './types.ts';

function ptj(name: string, o: { workers?: number; gpus?: number; duration?: string; exit?: string; suspend?: boolean } = {}): KubeObject {
  const ann: Record<string, string> = { [SIM.duration]: o.duration ?? '60s', ...(o.exit ? { [SIM.exitCode]: o.exit } : {}) };
  const rs = (replicas: number, policy: string): Record<string, unknown> => ({
    replicas,
    restartPolicy: policy,
    template: { metadata: { annotations: ann }, spec: { containers: [container('pytorch', { 'nvidia.com/gpu': o.gpus ?? 1 })] } },
  });
  return {
    apiVersion: 'kubeflow.org/v1',
    kind: 'PyTorchJob',
    metadata: { name, namespace: 'default' },
    spec: { ...(o.suspend ? { runPolicy: { suspend: true } } : {}), pytorchReplicaSpecs: { Master: rs(1, o.exit ? 'Never' : 'OnFailure'), Worker: rs(o.workers ?? 3, o.exit ? 'Never' : 'OnFailure') } },
  };
}

test('PyTorchJob: pods and services per replica, labels, env, init container; Created → Running → Succeeded', async () => {
  const f = fixture();
  try {
    f.store.create(ptj('bert'));
    await f.run(15_000);
    const pods = f.pods({ 'training.kubeflow.org/job-name': 'bert' }).sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));
    assert.deepEqual(pods.map((p) => p.metadata.name), ['bert-master-0', 'bert-worker-0', 'bert-worker-1', 'bert-worker-2']);
    const [m, w2] = [pods[0], pods[3]];
    assert.deepEqual(ownerOf(m), { kind: 'PyTorchJob', name: 'bert', controller: true, blockOwnerDeletion: true });
    assert.equal(m.metadata.labels!['training.kubeflow.org/job-role'], 'master');
    assert.equal(m.metadata.labels!['training.kubeflow.org/replica-type'], 'master');
    assert.equal(m.metadata.labels!['training.kubeflow.org/operator-name'], 'pytorchjob-controller');
    assert.equal(w2.metadata.labels!['training.kubeflow.org/replica-index'], '2');
    assert.equal(w2.metadata.labels!['training.kubeflow.org/job-role'], undefined);
    const env = Object.fromEntries(w2.spec.containers[0].env!.map((e) => [e.name, e.value]));
    assert.equal(env.MASTER_ADDR, 'bert-master-0');
    assert.equal(env.MASTER_PORT, '23456');
    assert.equal(env.WORLD_SIZE, '4');
    assert.equal(env.RANK, '3');
    assert.equal(w2.spec.initContainers![0].name, 'init-pytorch');
    const svcs = f.list('v1', 'Service').map((s) => s.metadata.name).sort();
    assert.deepEqual(svcs, ['bert-master-0', 'bert-worker-0', 'bert-worker-1', 'bert-worker-2']);
    let j = f.get('kubeflow.org/v1', 'PyTorchJob', 'bert')!;
    assert.equal(cond(j, 'Created')?.reason, 'PyTorchJobCreated');
    assert.equal(cond(j, 'Running')?.reason, 'PyTorchJobRunning');
    const rs = (j.status as { replicaStatuses: Record<string, { active: number }> }).replicaStatuses;
    assert.equal(rs.Master.active, 1);
    assert.equal(rs.Worker.active, 3);
    await f.run(60_000, 5000);
    j = f.get('kubeflow.org/v1', 'PyTorchJob', 'bert')!;
    assert.equal(cond(j, 'Succeeded')?.reason, 'PyTorchJobSucceeded');
    assert.equal(cond(j, 'Running')?.status, 'False');
    assert.ok((j.status as { completionTime?: string }).completionTime);
  } finally {
    f.stop();
  }
});

test('PyTorchJob pending (GPUs) stays Created only; failure path; suspend', async () => {
  const f = fixture();
  try {
    f.store.create(ptj('bad', { workers: 1, gpus: 1, duration: '10s', exit: '1' }));
    await f.settle();
    f.store.create(ptj('huge', { workers: 3, gpus: 8 }));
    f.store.create(ptj('later', { suspend: true }));
    await f.run(30_000);
    const huge = f.get('kubeflow.org/v1', 'PyTorchJob', 'huge')!;
    // 2 × 8-GPU nodes, but "bad" took one GPU: only one 8-GPU pod fits.
    assert.ok(f.pods({ 'training.kubeflow.org/job-name': 'huge' }).some((p) => cond(p, 'PodScheduled')?.reason === 'Unschedulable'));
    assert.equal(cond(huge, 'Succeeded'), undefined);
    const bad = f.get('kubeflow.org/v1', 'PyTorchJob', 'bad')!;
    assert.equal(cond(bad, 'Failed')?.reason, 'PyTorchJobFailed');
    assert.match(cond(bad, 'Failed')!.message!, /is failed because 1 (Master|Worker) replica\(s\) failed/);
    const later = f.get('kubeflow.org/v1', 'PyTorchJob', 'later')!;
    assert.equal(cond(later, 'Suspended')?.reason, 'PyTorchJobSuspended');
    assert.equal(f.pods({ 'training.kubeflow.org/job-name': 'later' }).length, 0);
  } finally {
    f.stop();
  }
});

function mpi(name: string, o: { workers?: number; duration?: string; exit?: string; suspend?: boolean; gpus?: number } = {}): KubeObject {
  return {
    apiVersion: 'kubeflow.org/v2beta1',
    kind: 'MPIJob',
    metadata: { name, namespace: 'default' },
    spec: {
      slotsPerWorker: 8,
      runPolicy: { cleanPodPolicy: 'Running', ...(o.suspend ? { suspend: true } : {}), backoffLimit: 0 },
      mpiReplicaSpecs: {
        Launcher: {
          replicas: 1,
          template: { metadata: { annotations: { [SIM.duration]: o.duration ?? '60s', ...(o.exit ? { [SIM.exitCode]: o.exit } : {}) } }, spec: { containers: [container('launcher', { cpu: '1' })] } },
        },
        Worker: { replicas: o.workers ?? 2, template: { spec: { containers: [container('worker', { 'nvidia.com/gpu': o.gpus ?? 8 })] } } },
      },
    },
  };
}

test('MPIJob: launcher Job + worker pods + config/secret/service; Running, then Succeeded with workers cleaned', async () => {
  const f = fixture();
  try {
    f.store.create(mpi('nccl'));
    await f.run(15_000);
    const workers = f.pods({ 'training.kubeflow.org/job-role': 'worker' }).sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));
    assert.deepEqual(workers.map((p) => p.metadata.name), ['nccl-worker-0', 'nccl-worker-1']);
    assert.equal(workers[1].metadata.labels!['training.kubeflow.org/replica-index'], '1');
    assert.equal(workers[1].metadata.labels!['training.kubeflow.org/replica-type'], undefined);
    assert.equal(workers[1].spec.hostname, 'nccl-worker-1');
    assert.equal(workers[1].spec.subdomain, 'nccl');
    assert.equal(ownerOf(workers[0])!.kind, 'MPIJob');
    const launcherJob = f.get('batch/v1', 'Job', 'nccl-launcher')!;
    assert.equal(ownerOf(launcherJob)!.kind, 'MPIJob');
    const lp = f.pods({ 'training.kubeflow.org/job-role': 'launcher' });
    assert.equal(lp.length, 1);
    assert.match(lp[0].metadata.name!, /^nccl-launcher-[a-z0-9]{5}$/);
    assert.equal(ownerOf(lp[0])!.kind, 'Job');
    assert.equal(lp[0].spec.hostname, 'nccl-launcher');
    assert.ok(lp[0].spec.containers[0].env!.some((e) => e.name === 'NVIDIA_VISIBLE_DEVICES' && e.value === ''));
    const cm = f.get('v1', 'ConfigMap', 'nccl-config')!;
    assert.equal((cm.data as { hostfile: string }).hostfile, 'nccl-worker-0.nccl.default.svc slots=8\nnccl-worker-1.nccl.default.svc slots=8\n');
    assert.equal(f.get('v1', 'Secret', 'nccl-ssh')!.type, 'kubernetes.io/ssh-auth');
    assert.equal((f.get('v1', 'Service', 'nccl')!.spec as { clusterIP: string }).clusterIP, 'None');
    let mj = f.get('kubeflow.org/v2beta1', 'MPIJob', 'nccl')!;
    assert.equal(cond(mj, 'Running')?.reason, 'MPIJobRunning');
    await f.run(60_000, 5000);
    mj = f.get('kubeflow.org/v2beta1', 'MPIJob', 'nccl')!;
    assert.equal(cond(mj, 'Succeeded')?.reason, 'MPIJobSucceeded');
    assert.equal(f.pods({ 'training.kubeflow.org/job-role': 'worker' }).length, 0, 'cleanPodPolicy Running');
  } finally {
    f.stop();
  }
});

test('MPIJob failed launcher → Failed with the Job reason; pending workers; suspend', async () => {
  const f = fixture();
  try {
    f.store.create(mpi('bad', { workers: 1, gpus: 1, duration: '10s', exit: '3' }));
    f.store.create(mpi('big', { workers: 3 }));
    f.store.create(mpi('held', { suspend: true }));
    await f.run(40_000);
    const bad = f.get('kubeflow.org/v2beta1', 'MPIJob', 'bad')!;
    // OnFailure launcher: restarts count towards the Job's backoffLimit, the Job fails, the MPIJob follows.
    assert.match(cond(bad, 'Failed')!.reason!, /^BackoffLimitExceeded/);
    const big = f.get('kubeflow.org/v2beta1', 'MPIJob', 'big')!;
    assert.notEqual(cond(big, 'Running')?.status, 'True');
    assert.ok(f.pods({ 'training.kubeflow.org/job-name': 'big' }).some((p: Pod) => cond(p, 'PodScheduled')?.reason === 'Unschedulable'));
    const held = f.get('kubeflow.org/v2beta1', 'MPIJob', 'held')!;
    assert.equal(cond(held, 'Suspended')?.reason, 'MPIJobSuspended');
    assert.equal((f.get('batch/v1', 'Job', 'held-launcher')!.spec as { suspend: boolean }).suspend, true);
    assert.equal(f.pods({ 'training.kubeflow.org/job-name': 'held' }).length, 0);
  } finally {
    f.stop();
  }
});
