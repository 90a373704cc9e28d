import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SIM } from './pods.ts';
import { planSparkApplication, podMemoryMiB, submissionNames, wantedExecutors, SPARK_API, type SparkApplicationSpec, type SparkApplicationStatus } from './sparkapplication.ts';
import { fixture, ownerOf, type Fixture } from './testing.ts';
import type { KubeObject, Pod } from './types.ts';

const L4 = { 'nvidia.com/gpu.product': 'NVIDIA-L4' };

function sparkApp(name: string, o: { executors?: number; gpus?: number; duration?: string; exitCode?: number; suspend?: boolean; ttl?: number; retries?: number } = {}): KubeObject {
  const ann = { ...(o.duration ? { [SIM.duration]: o.duration } : {}), ...(o.exitCode ? { [SIM.exitCode]: String(o.exitCode) } : {}) };
  return {
    apiVersion: SPARK_API,
    kind: 'SparkApplication',
    metadata: { name, namespace: 'data' },
    spec: {
      type: 'Scala',
      mode: 'cluster',
      sparkVersion: '3.5.5',
      image: 'apache/spark:3.5.5',
      mainClass: 'org.apache.spark.examples.SparkPi',
      mainApplicationFile: 'local:///opt/spark/examples/jars/spark-examples.jar',
      ...(o.suspend ? { suspend: true } : {}),
      ...(o.ttl !== undefined ? { timeToLiveSeconds: o.ttl } : {}),
      restartPolicy: o.retries ? { type: 'OnFailure', onFailureRetries: o.retries } : { type: 'Never' },
      driver: { cores: 1, memory: '1g', ...(Object.keys(ann).length ? { annotations: ann } : {}) },
      executor: { instances: o.executors ?? 2, cores: 2, memory: '4g', ...(o.gpus ? { gpu: { name: 'nvidia.com/gpu', quantity: o.gpus }, nodeSelector: L4 } : {}) },
    },
  };
}

const app = (f: Fixture, name: string): KubeObject => f.get(SPARK_API, 'SparkApplication', name, 'data')!;
const stateOf = (f: Fixture, name: string): string | undefined => (app(f, name)?.status as SparkApplicationStatus | undefined)?.applicationState?.state;
const executors = (f: Fixture, name: string): Pod[] => f.pods({ 'spark-role': 'executor', 'sparkoperator.k8s.io/app-name': name }, 'data');

test('pure: wanted executors, pod memory with overhead, names of a submission', () => {
  const spec = (x: Partial<SparkApplicationSpec>): SparkApplicationSpec => ({ driver: {}, executor: {}, ...x });
  assert.equal(wantedExecutors(spec({})), 1);
  assert.equal(wantedExecutors(spec({ executor: { instances: 3 } })), 3);
  assert.equal(wantedExecutors(spec({ executor: { instances: 1 }, dynamicAllocation: { enabled: true, initialExecutors: 2, minExecutors: 4 } })), 4);
  assert.equal(wantedExecutors(spec({ dynamicAllocation: { enabled: false, initialExecutors: 5 } })), 1);
  assert.equal(podMemoryMiB('1g', 'Scala'), 1024 + 384);
  assert.equal(podMemoryMiB('16g', 'Scala'), 16384 + 1638);
  assert.equal(podMemoryMiB('4g', 'Python'), 4096 + 1638);
  assert.equal(podMemoryMiB('512m', undefined), 512 + 384);
  const n = submissionNames(sparkApp('etl'), '0b5c9d52-6f0a-4d7e-9a51-2f7c33e4b8a1', '2026-09-14T08:00:00Z');
  assert.match(n.appId, /^spark-[0-9a-f]{32}$/);
  // <app>-<6 hex><10 hex of the launch time's low 40 bits>, as Spark's resource name prefix.
  assert.match(n.prefix, /^etl-[0-9a-f]{6}a09eee1c00$/);
  assert.deepEqual(submissionNames(sparkApp('etl'), '0b5c9d52-6f0a-4d7e-9a51-2f7c33e4b8a1', '2026-09-14T08:00:00Z'), n);
});

test('pure: a new application is submitted; spec.suspend takes over; a failed run with retries left reruns', () => {
  const a = sparkApp('pi');
  const p = planSparkApplication({ ...a, metadata: { ...a.metadata, uid: 'u1' } }, undefined, [], undefined, '2026-09-14T08:00:00Z', () => 'sub-1');
  assert.equal(p.submit, true);
  assert.deepEqual(p.status, { submissionID: 'sub-1', driverInfo: { podName: 'pi-driver' }, lastSubmissionAttemptTime: '2026-09-14T08:00:00Z', submissionAttempts: 1, executionAttempts: 1, applicationState: { state: 'SUBMITTED' } });
  const running = { ...a, status: { ...p.status, applicationState: { state: 'RUNNING' } } };
  assert.equal(planSparkApplication({ ...running, spec: { ...(a.spec as object), suspend: true } }, undefined, [], undefined, '2026-09-14T08:01:00Z', () => 'x').status.applicationState!.state, 'SUSPENDING');
  const failing = { ...sparkApp('pi', { retries: 2 }), status: { ...p.status, applicationState: { state: 'FAILING' } } };
  const rerun = planSparkApplication(failing, undefined, [], undefined, '2026-09-14T08:02:00Z', () => 'x');
  assert.equal(rerun.status.applicationState!.state, 'PENDING_RERUN');
  assert.equal(rerun.deleteResources, true);
  const noRetry = { ...a, status: { ...p.status, applicationState: { state: 'FAILING', errorMessage: 'boom' } } };
  assert.deepEqual(planSparkApplication(noRetry, undefined, [], undefined, '2026-09-14T08:02:00Z', () => 'x').status.applicationState, { state: 'FAILED', errorMessage: 'boom' });
});

test('driver pod owned by the app, executors owned by the driver pod, UI Service; RUNNING; COMPLETED when the driver succeeds, executors removed', async () => {
  const f = fixture({ pools: [{ type: 'l4', count: 1 }, { type: 'cpu', count: 2 }] });
  try {
    f.store.create(sparkApp('etl', { executors: 2, gpus: 1, duration: '5m' }));
    await f.settle();
    assert.equal(stateOf(f, 'etl'), 'SUBMITTED');
    const a = app(f, 'etl');
    const st = a.status as SparkApplicationStatus;
    const driver = f.get('v1', 'Pod', 'etl-driver', 'data') as Pod;
    assert.deepEqual(ownerOf(driver), { kind: 'SparkApplication', name: 'etl', controller: true, blockOwnerDeletion: true });
    const l = driver.metadata.labels!;
    assert.equal(l['spark-role'], 'driver');
    assert.equal(l['sparkoperator.k8s.io/app-name'], 'etl');
    assert.equal(l['sparkoperator.k8s.io/launched-by-spark-operator'], 'true');
    assert.equal(l['sparkoperator.k8s.io/submission-id'], st.submissionID);
    assert.match(l['spark-app-selector'], /^spark-[0-9a-f]{32}$/);
    assert.equal(driver.spec.containers[0].name, 'spark-kubernetes-driver');
    assert.deepEqual(driver.spec.containers[0].resources, { requests: { cpu: '1', memory: '1408Mi' }, limits: { memory: '1408Mi' } });
    const ui = f.get('v1', 'Service', 'etl-ui-svc', 'data')!;
    assert.equal(ownerOf(ui)!.kind, 'SparkApplication');
    assert.deepEqual((ui.spec as { selector: unknown }).selector, { 'sparkoperator.k8s.io/app-name': 'etl', 'spark-role': 'driver' });
    assert.equal(st.driverInfo!.webUIServiceName, 'etl-ui-svc');
    const { prefix } = submissionNames(a, st.submissionID!, st.lastSubmissionAttemptTime!);
    const dsvc = f.get('v1', 'Service', `${prefix}-driver-svc`, 'data')!;
    assert.equal(ownerOf(dsvc)!.kind, 'Pod', "Spark's driver Service belongs to the driver pod");

    await f.run(20_000, 2_000);
    assert.equal(stateOf(f, 'etl'), 'RUNNING');
    const ex = executors(f, 'etl').sort((x, y) => x.metadata.name!.localeCompare(y.metadata.name!));
    assert.deepEqual(ex.map((p) => p.metadata.name), [`${prefix}-exec-1`, `${prefix}-exec-2`]);
    for (const p of ex) {
      assert.deepEqual(p.metadata.ownerReferences!.map((r) => [r.kind, r.name, r.controller ?? false]), [['SparkApplication', 'etl', false], ['Pod', 'etl-driver', true]]);
      assert.equal(p.spec.containers[0].resources?.limits?.['nvidia.com/gpu'], '1');
      assert.deepEqual(p.spec.nodeSelector, L4);
    }
    assert.deepEqual(ex.map((p) => p.metadata.labels!['spark-exec-id']), ['1', '2']);
    assert.ok(ex.every((p) => p.status?.phase === 'Running'));
    assert.deepEqual((app(f, 'etl').status as SparkApplicationStatus).executorState, { [`${prefix}-exec-1`]: 'RUNNING', [`${prefix}-exec-2`]: 'RUNNING' });

    // The driver's five minutes run out: SUCCEEDING, then COMPLETED; the executors are deleted.
    await f.run(5 * 60_000, 10_000);
    assert.equal(stateOf(f, 'etl'), 'COMPLETED');
    const done = app(f, 'etl').status as SparkApplicationStatus;
    assert.ok(done.terminationTime);
    assert.deepEqual(Object.values(done.executorState!), ['COMPLETED', 'COMPLETED']);
    assert.equal(executors(f, 'etl').length, 0);
    assert.equal((f.get('v1', 'Pod', 'etl-driver', 'data') as Pod).status?.phase, 'Succeeded', 'the driver pod stays');
    assert.ok(f.get('v1', 'Service', 'etl-ui-svc', 'data'), 'and so does the UI Service');
  } finally {
    f.stop();
  }
});

test('a lost executor is replaced under a new id and recorded FAILED; a failing driver fails the app', async () => {
  const f = fixture();
  try {
    f.store.create(sparkApp('agg', { executors: 2, duration: '3m', exitCode: 1 }));
    await f.run(20_000, 2_000);
    assert.equal(stateOf(f, 'agg'), 'RUNNING');
    const [first] = executors(f, 'agg').sort((x, y) => x.metadata.name!.localeCompare(y.metadata.name!));
    const now = f.clock.iso();
    f.store.updateStatus({ ...first, status: { ...first.status, phase: 'Failed', containerStatuses: [{ name: 'spark-kubernetes-executor', ready: false, restartCount: 0, image: 'apache/spark:3.5.5', imageID: '', state: { terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: now, finishedAt: now } } }] } });
    await f.settle();
    const st = app(f, 'agg').status as SparkApplicationStatus;
    assert.equal(st.executorState![first.metadata.name!], 'FAILED');
    const ids = executors(f, 'agg').filter((p) => !p.metadata.deletionTimestamp).map((p) => p.metadata.labels!['spark-exec-id']).sort();
    assert.deepEqual(ids, ['2', '3']);
    await f.run(20_000, 2_000);
    assert.equal(stateOf(f, 'agg'), 'RUNNING');

    await f.run(3 * 60_000, 10_000);
    const end = app(f, 'agg').status as SparkApplicationStatus;
    assert.deepEqual(end.applicationState, { state: 'FAILED', errorMessage: 'driver container failed with ExitCode: 1, Reason: Error' });
    assert.equal(executors(f, 'agg').length, 0);
  } finally {
    f.stop();
  }
});

test('suspend deletes the driver and UI Service and resets the status; resume submits again; TTL deletes a finished app', async () => {
  const f = fixture();
  try {
    f.store.create(sparkApp('nightly', { executors: 1, duration: '2m', ttl: 60 }));
    await f.run(20_000, 2_000);
    assert.equal(stateOf(f, 'nightly'), 'RUNNING');
    const first = (app(f, 'nightly').status as SparkApplicationStatus).submissionID;
    const a = app(f, 'nightly');
    f.store.update({ ...a, spec: { ...(a.spec as object), suspend: true } });
    await f.run(10_000, 1_000);
    assert.equal(stateOf(f, 'nightly'), 'SUSPENDED');
    assert.equal(f.get('v1', 'Pod', 'nightly-driver', 'data'), undefined);
    assert.equal(f.get('v1', 'Service', 'nightly-ui-svc', 'data'), undefined);
    assert.equal(executors(f, 'nightly').length, 0);
    const sus = app(f, 'nightly').status as SparkApplicationStatus;
    assert.deepEqual(sus.driverInfo, {});
    assert.equal(sus.executorState, undefined);

    const b = app(f, 'nightly');
    f.store.update({ ...b, spec: { ...(b.spec as object), suspend: false } });
    await f.run(20_000, 2_000);
    assert.equal(stateOf(f, 'nightly'), 'RUNNING');
    const again = app(f, 'nightly').status as SparkApplicationStatus;
    assert.notEqual(again.submissionID, first);
    assert.equal(again.executionAttempts, 2);

    await f.run(2 * 60_000 + 10_000, 10_000);
    assert.equal(stateOf(f, 'nightly'), 'COMPLETED');
    await f.run(70_000, 10_000);
    assert.equal(app(f, 'nightly'), undefined, 'deleted timeToLiveSeconds after it ended');
  } finally {
    f.stop();
  }
});
