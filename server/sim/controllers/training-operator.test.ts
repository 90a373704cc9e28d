// The training operator v1's other kinds (TFJob, XGBoostJob, JAXJob, PaddleJob) on the shared loop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SIM } from './pods.ts';
import { cond, container, fixture, ownerOf } from './testing.ts';
import type { Fixture } from './testing.ts';
import type { KubeObject, Pod } from './types.ts';

interface Role {
  replicas: number;
  gpus?: number;
  duration?: string;
  exit?: string;
  policy?: string;
}

function trainingJob(kind: string, field: string, containerName: string, name: string, roles: Record<string, Role>, spec: Record<string, unknown> = {}): KubeObject {
  const specs = Object.fromEntries(Object.entries(roles).map(([type, r]) => [type, {
    replicas: r.replicas,
    ...(r.policy ? { restartPolicy: r.policy } : {}),
    template: {
      metadata: { annotations: { [SIM.duration]: r.duration ?? '60s', ...(r.exit ? { [SIM.exitCode]: r.exit } : {}) } },
      spec: { containers: [container(containerName, r.gpus ? { 'nvidia.com/gpu': r.gpus } : { cpu: '1' })] },
    },
  }]));
  return { apiVersion: 'kubeflow.org/v1', kind, metadata: { name, namespace: 'default' }, spec: { ...spec, [field]: specs } };
}

const sorted = (pods: Pod[]): Pod[] => [...pods].sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));
const envOf = (p: Pod, c = 0): Record<string, string | undefined> => Object.fromEntries((p.spec.containers[c].env ?? []).map((e) => [e.name, e.value]));
const label = (p: Pod, k: string): string | undefined => p.metadata.labels?.[`training.kubeflow.org/${k}`];

async function withFixture(body: (f: Fixture) => Promise<void>): Promise<void> {
  const f = fixture();
  try {
    await body(f);
  } finally {
    f.stop();
  }
}

test('TFJob: chief / ps / worker / evaluator pods and services, TF_CONFIG, job-role on the chief; Running → Succeeded with the chief', () =>
  withFixture(async (f) => {
    f.store.create(trainingJob('TFJob', 'tfReplicaSpecs', 'tensorflow', 'mnist', {
      Chief: { replicas: 1, duration: '30s' },
      PS: { replicas: 1, duration: 'forever' },
      Worker: { replicas: 2, gpus: 1, duration: 'forever' },
      Evaluator: { replicas: 1, duration: 'forever' },
    }));
    await f.run(10_000);
    const pods = sorted(f.pods({ 'training.kubeflow.org/job-name': 'mnist' }));
    assert.deepEqual(pods.map((p) => p.metadata.name), ['mnist-chief-0', 'mnist-evaluator-0', 'mnist-ps-0', 'mnist-worker-0', 'mnist-worker-1']);
    assert.deepEqual(pods.map((p) => label(p, 'replica-type')), ['chief', 'evaluator', 'ps', 'worker', 'worker']);
    assert.deepEqual(pods.map((p) => label(p, 'job-role')), ['master', undefined, undefined, undefined, undefined]);
    assert.equal(label(pods[0], 'operator-name'), 'tfjob-controller');
    assert.deepEqual(ownerOf(pods[3]), { kind: 'TFJob', name: 'mnist', controller: true, blockOwnerDeletion: true });
    assert.equal(pods[3].spec.restartPolicy, 'Never', 'TFJob replicas default to restartPolicy Never');
    const tf = JSON.parse(envOf(pods[4]).TF_CONFIG!) as { cluster: Record<string, string[]>; task: { type: string; index: number }; environment: string };
    assert.deepEqual(tf.task, { type: 'worker', index: 1 });
    assert.equal(tf.environment, 'cloud');
    assert.deepEqual(Object.keys(tf.cluster), ['chief', 'evaluator', 'ps', 'worker']);
    assert.deepEqual(tf.cluster.worker, ['mnist-worker-0.default.svc:2222', 'mnist-worker-1.default.svc:2222']);
    assert.deepEqual(pods[3].spec.containers[0].ports, [{ name: 'tfjob-port', containerPort: 2222, protocol: 'TCP' }]);
    const svc = f.get('v1', 'Service', 'mnist-worker-1')!;
    assert.equal((svc.spec as { clusterIP: string }).clusterIP, 'None');
    assert.deepEqual((svc.spec as { ports: Array<{ name: string; port: number }> }).ports.map((p) => [p.name, p.port]), [['tfjob-port', 2222]]);
    assert.equal(svc.metadata.labels!['training.kubeflow.org/job-role'], undefined, 'services carry no job-role');
    let j = f.get('kubeflow.org/v1', 'TFJob', 'mnist')!;
    assert.equal(cond(j, 'Running')?.reason, 'TFJobRunning');
    await f.run(40_000, 5000);
    j = f.get('kubeflow.org/v1', 'TFJob', 'mnist')!;
    assert.equal(cond(j, 'Succeeded')?.reason, 'TFJobSucceeded', 'the chief finished: the job succeeded though workers still run');
    assert.equal(cond(j, 'Running')?.status, 'False');
  }));

test('TFJob without chief: worker 0 exiting 0 ends the job; a failed PS fails it with the TF wording', () =>
  withFixture(async (f) => {
    f.store.create(trainingJob('TFJob', 'tfReplicaSpecs', 'tensorflow', 'w0', { Worker: { replicas: 1, duration: '20s' } }));
    f.store.create(trainingJob('TFJob', 'tfReplicaSpecs', 'tensorflow', 'broken', { PS: { replicas: 1, duration: '10s', exit: '1' }, Worker: { replicas: 1, duration: 'forever' } }));
    await f.run(40_000, 5000);
    const w0 = f.get('kubeflow.org/v1', 'TFJob', 'w0')!;
    assert.equal(cond(w0, 'Succeeded')?.status, 'True');
    assert.equal(envOf(f.pods({ 'training.kubeflow.org/job-name': 'w0' })[0]).TF_CONFIG, undefined, 'a single replica trains locally: no TF_CONFIG');
    assert.equal(f.pods({ 'training.kubeflow.org/job-name': 'w0' })[0].metadata.labels!['training.kubeflow.org/job-role'], 'master');
    const broken = f.get('kubeflow.org/v1', 'TFJob', 'broken')!;
    assert.equal(cond(broken, 'Failed')?.message, 'TFJob default/broken has failed because 1 PS replica(s) failed.');
  }));

test('XGBoostJob: master + workers with ranks after the master and WORKER_ADDRS; the master succeeding ends it', () =>
  withFixture(async (f) => {
    f.store.create(trainingJob('XGBoostJob', 'xgbReplicaSpecs', 'xgboost', 'iris', { Master: { replicas: 1, duration: '30s' }, Worker: { replicas: 2, duration: 'forever' } }));
    await f.run(10_000);
    const pods = sorted(f.pods({ 'training.kubeflow.org/job-name': 'iris' }));
    assert.deepEqual(pods.map((p) => p.metadata.name), ['iris-master-0', 'iris-worker-0', 'iris-worker-1']);
    assert.deepEqual(pods.map((p) => label(p, 'job-role')), ['master', undefined, undefined]);
    const env = envOf(pods[2]);
    assert.deepEqual([env.MASTER_ADDR, env.MASTER_PORT, env.WORLD_SIZE, env.RANK, env.WORKER_ADDRS], ['iris-master-0', '9999', '3', '2', 'iris-worker-0,iris-worker-1']);
    assert.equal(label(pods[0], 'operator-name'), 'xgboostjob-controller');
    assert.equal(cond(f.get('kubeflow.org/v1', 'XGBoostJob', 'iris')!, 'Running')?.reason, 'XGBoostJobRunning');
    await f.run(40_000, 5000);
    assert.equal(cond(f.get('kubeflow.org/v1', 'XGBoostJob', 'iris')!, 'Succeeded')?.reason, 'XGBoostJobSucceeded');
  }));

test('JAXJob: workers only, worker 0 is the coordinator with job-role master; a worker crash with OnFailure restarts in place', () =>
  withFixture(async (f) => {
    f.store.create(trainingJob('JAXJob', 'jaxReplicaSpecs', 'jax', 'gemma', { Worker: { replicas: 2, gpus: 1, duration: '30s' } }));
    f.store.create(trainingJob('JAXJob', 'jaxReplicaSpecs', 'jax', 'flaky', { Worker: { replicas: 1, duration: '10s', exit: '1', policy: 'OnFailure' } }, { runPolicy: { backoffLimit: 1 } }));
    await f.run(10_000);
    const pods = sorted(f.pods({ 'training.kubeflow.org/job-name': 'gemma' }));
    assert.deepEqual(pods.map((p) => p.metadata.name), ['gemma-worker-0', 'gemma-worker-1']);
    assert.deepEqual(pods.map((p) => label(p, 'job-role')), ['master', undefined]);
    const env = envOf(pods[1]);
    assert.deepEqual([env.COORDINATOR_ADDRESS, env.COORDINATOR_PORT, env.NUM_PROCESSES, env.PROCESS_ID], ['gemma-worker-0', '6666', '2', '1']);
    assert.equal(cond(f.get('kubeflow.org/v1', 'JAXJob', 'gemma')!, 'Running')?.reason, 'JAXJobRunning');
    await f.run(60_000, 5000);
    assert.equal(cond(f.get('kubeflow.org/v1', 'JAXJob', 'gemma')!, 'Succeeded')?.message, 'JAXJob default/gemma successfully completed.');
    const flaky = f.get('kubeflow.org/v1', 'JAXJob', 'flaky')!;
    assert.match(cond(flaky, 'Failed')?.message ?? '', /reached the specified backoff limit/);
  }));

test('PaddleJob: collective workers (worker 0 the endpoint), then a master + workers job; suspend removes pods and services', () =>
  withFixture(async (f) => {
    f.store.create(trainingJob('PaddleJob', 'paddleReplicaSpecs', 'paddle', 'resnet', { Worker: { replicas: 2, gpus: 1, duration: 'forever' } }));
    f.store.create(trainingJob('PaddleJob', 'paddleReplicaSpecs', 'paddle', 'ps', { Master: { replicas: 1, duration: 'forever' }, Worker: { replicas: 1, duration: 'forever' } }));
    await f.run(10_000);
    const pods = sorted(f.pods({ 'training.kubeflow.org/job-name': 'resnet' }));
    assert.deepEqual(pods.map((p) => label(p, 'job-role')), [undefined, undefined], 'only a Master replica carries job-role');
    assert.equal(pods[0].spec.restartPolicy, 'OnFailure');
    assert.equal(envOf(pods[0]).PADDLE_MASTER, '$(POD_IP_DUMMY):36543');
    assert.equal(envOf(pods[1]).PADDLE_MASTER, 'resnet-worker-0:36543');
    assert.equal(envOf(pods[1]).PADDLE_NNODES, '2');
    assert.equal(cond(f.get('kubeflow.org/v1', 'PaddleJob', 'resnet')!, 'Running')?.reason, 'PaddleJobRunning');
    const ps = sorted(f.pods({ 'training.kubeflow.org/job-name': 'ps' }));
    assert.deepEqual(ps.map((p) => label(p, 'job-role')), ['master', undefined]);
    assert.equal(envOf(ps[0]).PADDLE_SERVER_NUM, '1');
    assert.equal(envOf(ps[1]).PADDLE_TRAINER_NUM, '1');
    const job = f.get('kubeflow.org/v1', 'PaddleJob', 'resnet')!;
    f.store.update({ ...job, spec: { ...(job.spec as object), runPolicy: { suspend: true } } });
    await f.run(5000);
    assert.equal(cond(f.get('kubeflow.org/v1', 'PaddleJob', 'resnet')!, 'Suspended')?.reason, 'PaddleJobSuspended');
    assert.equal(f.pods({ 'training.kubeflow.org/job-name': 'resnet' }).length, 0);
    assert.equal(f.list('v1', 'Service', { 'training.kubeflow.org/job-name': 'resnet' }).length, 0);
  }));
