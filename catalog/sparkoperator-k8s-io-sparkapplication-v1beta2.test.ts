// SparkApplication (sparkoperator.k8s.io/v1beta2): the driver pod owned by the SparkApplication, executor
// pods owned by the driver pod, roles from the spark-role label, status from the operator's state machine.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digest, fixtureObjects, resolveFixture, resolveObjects } from './testing.ts';

const SLUG = 'sparkoperator-k8s-io-sparkapplication-v1beta2';
const GPU1 = { 'nvidia.com/gpu': 1 };
const EXEC = 'rapids-etl-2c5273a09ef7a13b-exec';


test('pending: SUBMITTED, the driver pod pulling its image, no executors yet: Initializing', () => {
  const tree = resolveFixture(SLUG, 'pending');
  assert.deepEqual(digest(tree), {
    status: ['Initializing'],
    roles: {
      driver: { desired: 1, live: 1, ready: 0, gpusPerPod: {} },
      executor: { desired: 3, live: 0, ready: 0, gpusPerPod: GPU1 },
    },
    pods: { 'rapids-etl-driver': 'driver/' },
    unmatched: [],
    gpus: { desired: 3, requested: 0, allocated: 0 },
    errors: [],
  });
  assert.equal(tree.status.phase, 'SUBMITTED');
  assert.deepEqual(tree.gang, []);
});

test('running: the driver and three executors, each executor two owners down (app -> driver pod -> executor)', () => {
  const tree = resolveFixture(SLUG, 'running');
  assert.deepEqual(digest(tree), {
    status: ['Running'],
    roles: {
      driver: { desired: 1, live: 1, ready: 1, gpusPerPod: {} },
      executor: { desired: 3, live: 3, ready: 3, gpusPerPod: GPU1 },
    },
    pods: { 'rapids-etl-driver': 'driver/', [`${EXEC}-1`]: 'executor/', [`${EXEC}-2`]: 'executor/', [`${EXEC}-3`]: 'executor/' },
    unmatched: [],
    gpus: { desired: 3, requested: 3, allocated: 3 },
    errors: [],
  });
  // Replica = the executor id; nodes as bound.
  assert.deepEqual(
    tree.pods.map((p) => [p.name, p.replica, p.node]),
    [['rapids-etl-driver', null, 'cpu-0'], [`${EXEC}-1`, '1', 'gpu-l4-0'], [`${EXEC}-2`, '2', 'gpu-l4-0'], [`${EXEC}-3`, '3', 'gpu-l4-1']],
  );
  // The executor role sits under the driver in the structure, as the pods do in ownership.
  assert.equal(tree.components.find((c) => c.name === 'executor')?.parent, 'driver');
  assert.deepEqual(tree.gang, []);
});

test('executors owned by the driver pod alone (operator before v2.4) resolve the same', () => {
  const objects = fixtureObjects(SLUG, 'running').map((o) =>
    o.kind === 'Pod' && o.metadata?.labels?.['spark-role'] === 'executor'
      ? { ...o, metadata: { ...o.metadata, ownerReferences: o.metadata.ownerReferences!.filter((r) => r.kind === 'Pod') } }
      : o,
  );
  assert.ok(objects.filter((o) => o.metadata?.labels?.['spark-role'] === 'executor').every((o) => o.metadata!.ownerReferences!.length === 1));
  const d = digest(resolveObjects(SLUG, objects));
  assert.deepEqual(d, digest(resolveFixture(SLUG, 'running')));
});

test('degraded: executor 1 OOM-killed and deleted, its replacement Pending for a GPU: Degraded', () => {
  const tree = resolveFixture(SLUG, 'degraded');
  const exec = 'rapids-etl-67885ba09f0126a0-exec';
  assert.deepEqual(digest(tree), {
    status: ['Degraded'],
    roles: {
      driver: { desired: 1, live: 1, ready: 1, gpusPerPod: {} },
      executor: { desired: 3, live: 3, ready: 2, gpusPerPod: GPU1 },
    },
    pods: { 'rapids-etl-driver': 'driver/', [`${exec}-2`]: 'executor/', [`${exec}-3`]: 'executor/', [`${exec}-4`]: 'executor/' },
    unmatched: [],
    // The Pending replacement asks for its GPU but holds none yet.
    gpus: { desired: 3, requested: 3, allocated: 2 },
    errors: [],
  });
});

test('the same executors still starting, none lost: Initializing, not Degraded', () => {
  const objects = fixtureObjects(SLUG, 'degraded').map((o) => {
    if (o.kind !== 'SparkApplication') return o;
    const st = o.status as { executorState: Record<string, string> };
    const executorState = Object.fromEntries(Object.entries(st.executorState).filter(([, v]) => v !== 'FAILED'));
    return { ...o, status: { ...st, executorState } };
  });
  assert.deepEqual(resolveObjects(SLUG, objects).status.matched, ['Initializing']);
});

test('failed: the driver exited 1, Spark deleted the executors: Failed', () => {
  const tree = resolveFixture(SLUG, 'failed');
  assert.deepEqual(digest(tree), {
    status: ['Failed'],
    roles: {
      driver: { desired: 1, live: 0, ready: 0, gpusPerPod: {} },
      executor: { desired: 3, live: 0, ready: 0, gpusPerPod: GPU1 },
    },
    pods: { 'rapids-etl-driver': 'driver/' },
    unmatched: [],
    gpus: { desired: 3, requested: 0, allocated: 0 },
    errors: [],
  });
});

test('succeeded: the driver completed, executors removed: Completed', () => {
  const tree = resolveFixture(SLUG, 'succeeded');
  assert.deepEqual(digest(tree), {
    status: ['Completed'],
    roles: {
      driver: { desired: 1, live: 0, ready: 0, gpusPerPod: {} },
      executor: { desired: 3, live: 0, ready: 0, gpusPerPod: GPU1 },
    },
    pods: { 'rapids-etl-driver': 'driver/' },
    unmatched: [],
    gpus: { desired: 3, requested: 0, allocated: 0 },
    errors: [],
  });
});

test('suspended: spec.suspend, driver and executors deleted: Suspended', () => {
  const tree = resolveFixture(SLUG, 'suspended');
  assert.deepEqual(digest(tree), {
    status: ['Suspended'],
    roles: {
      driver: { desired: 1, live: 0, ready: 0, gpusPerPod: {} },
      executor: { desired: 3, live: 0, ready: 0, gpusPerPod: GPU1 },
    },
    pods: {},
    unmatched: [],
    gpus: { desired: 3, requested: 0, allocated: 0 },
    errors: [],
  });
});

test('dynamic allocation: desired = initial executors, bounded by min and max; GPUs from spark.executor.resource.gpu.*', () => {
  const tree = resolveFixture(SLUG, 'dynamic-allocation');
  const exec = 'sessionize-545ffca09ef31cd4-exec';
  assert.deepEqual(digest(tree), {
    status: ['Running'],
    roles: {
      driver: { desired: 1, live: 1, ready: 1, gpusPerPod: {} },
      executor: { desired: 2, live: 4, ready: 4, gpusPerPod: GPU1 },
    },
    pods: { 'sessionize-driver': 'driver/', [`${exec}-1`]: 'executor/', [`${exec}-2`]: 'executor/', [`${exec}-3`]: 'executor/', [`${exec}-4`]: 'executor/' },
    unmatched: [],
    gpus: { desired: 2, requested: 4, allocated: 4 },
    errors: [],
  });
  const inst = tree.components.find((c) => c.name === 'executor')!.instances[0];
  assert.deepEqual([inst.replicas, inst.minReplicas, inst.maxReplicas], [2, 1, 8]);
});

test('every state of the operator maps to one status', () => {
  const [app] = fixtureObjects(SLUG, 'running');
  const want: Record<string, string> = {
    '': 'Initializing', SUBMITTED: 'Initializing', PENDING_RERUN: 'Initializing', INVALIDATING: 'Initializing',
    RUNNING: 'Running', UNKNOWN: 'Degraded', SUCCEEDING: 'Completed', COMPLETED: 'Completed',
    FAILING: 'Failed', FAILED: 'Failed', SUBMISSION_FAILED: 'Failed',
    SUSPENDING: 'Suspending', SUSPENDED: 'Suspended', RESUMING: 'Resuming',
  };
  for (const [state, status] of Object.entries(want)) {
    const st = { ...(app.status as Record<string, unknown>), applicationState: state ? { state } : {} };
    assert.deepEqual(resolveObjects(SLUG, [{ ...app, status: st }]).status.matched, [status], `state ${JSON.stringify(state)}`);
  }
  // A brand-new object has no status at all.
  assert.deepEqual(resolveObjects(SLUG, [{ ...app, status: undefined }]).status.matched, ['Initializing']);
});

test('GPUs per pod: template limits plus Spark resource conf; spec gpu wins for the same resource', () => {
  const [app] = fixtureObjects(SLUG, 'running');
  const spec = app.spec as Record<string, Record<string, unknown>>;
  const variant = {
    ...app,
    spec: {
      ...spec,
      sparkConf: { 'spark.driver.resource.gpu.amount': '1', 'spark.driver.resource.gpu.vendor': 'amd.com' },
      driver: { ...spec.driver, template: { spec: { containers: [{ name: 'spark-kubernetes-driver', resources: { limits: { 'nvidia.com/gpu': 1 } } }] } } },
      executor: { ...spec.executor, gpu: { name: 'nvidia.com/gpu', quantity: 2 }, template: { spec: { containers: [{ name: 'spark-kubernetes-executor', resources: { limits: { 'nvidia.com/gpu': 4 } } }] } } },
    },
  };
  const roles = digest(resolveObjects(SLUG, [variant])).roles;
  assert.deepEqual(roles.driver.gpusPerPod, { 'amd.com/gpu': 1, 'nvidia.com/gpu': 1 });
  assert.deepEqual(roles.executor.gpusPerPod, { 'nvidia.com/gpu': 2 });
});
