import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SIM } from './pods.ts';
import { cond, container, fixture, ownerOf } from './testing.ts';
import type { KubeObject } from './types.ts';

function clusterSpec(workers = 2, gpus = 4): Record<string, unknown> {
  return {
    rayVersion: '2.46.0',
    headGroupSpec: { rayStartParams: { 'dashboard-host': '0.0.0.0' }, template: { spec: { containers: [container('ray-head', { cpu: '4', memory: '16Gi' }, { image: 'rayproject/ray:2.46.0' })] } } },
    workerGroupSpecs: [{ groupName: 'gpu-group', replicas: workers, minReplicas: 1, maxReplicas: 4, rayStartParams: {}, template: { spec: { containers: [container('ray-worker', { 'nvidia.com/gpu': gpus, cpu: '8', memory: '64Gi' }, { image: 'rayproject/ray:2.46.0' })] } } }],
  };
}

const RC = (name: string, spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'ray.io/v1', kind: 'RayCluster', metadata: { name, namespace: 'default' }, spec });

test('RayCluster: head and worker pods, ray.io labels, head service, status ready with resources and conditions', async () => {
  const f = fixture();
  try {
    f.store.create(RC('rc', clusterSpec()));
    await f.run(10_000);
    const head = f.pods({ 'ray.io/node-type': 'head' });
    const workers = f.pods({ 'ray.io/node-type': 'worker' });
    assert.equal(head.length, 1);
    assert.equal(workers.length, 2);
    assert.match(head[0].metadata.name!, /^rc-head-[a-z0-9]{5}$/);
    assert.match(workers[0].metadata.name!, /^rc-gpu-group-worker-[a-z0-9]{5}$/);
    assert.deepEqual(ownerOf(head[0]), { kind: 'RayCluster', name: 'rc', controller: true, blockOwnerDeletion: true });
    const L = workers[0].metadata.labels!;
    assert.equal(L['ray.io/cluster'], 'rc');
    assert.equal(L['ray.io/group'], 'gpu-group');
    assert.equal(L['ray.io/is-ray-node'], 'yes');
    assert.equal(L['ray.io/identifier'], 'rc-worker');
    assert.equal(head[0].metadata.labels!['ray.io/group'], 'headgroup');
    assert.equal(workers[0].spec.initContainers![0].name, 'wait-gcs-ready');
    const svc = f.get('v1', 'Service', 'rc-head-svc')!;
    assert.equal((svc.spec as { clusterIP: string }).clusterIP, 'None');
    const rc = f.get('ray.io/v1', 'RayCluster', 'rc')!;
    const st = rc.status as Record<string, unknown>;
    assert.equal(st.state, 'ready');
    assert.equal(st.desiredWorkerReplicas, 2);
    assert.equal(st.availableWorkerReplicas, 2);
    assert.equal(st.readyWorkerReplicas, 2);
    assert.equal(st.desiredGPU, '8');
    assert.equal(st.desiredCPU, '20');
    assert.equal(st.desiredMemory, '144Gi');
    assert.deepEqual(st.endpoints, { 'gcs-server': '6379', dashboard: '8265', client: '10001', metrics: '8080' });
    assert.equal((st.head as { podName: string }).podName, head[0].metadata.name);
    assert.equal(cond(rc, 'HeadPodReady')?.reason, 'HeadPodRunningAndReady');
    assert.equal(cond(rc, 'RayClusterProvisioned')?.reason, 'AllPodRunningAndReadyFirstTime');
  } finally {
    f.stop();
  }
});

test('RayCluster pending for GPUs (provisioning), then suspend', async () => {
  const f = fixture();
  try {
    f.store.create(RC('big', clusterSpec(3, 8)));
    await f.run(10_000);
    let rc = f.get('ray.io/v1', 'RayCluster', 'big')!;
    assert.equal((rc.status as { state?: string }).state, undefined);
    assert.equal(cond(rc, 'RayClusterProvisioned')?.reason, 'RayClusterPodsProvisioning');
    assert.equal((rc.status as { availableWorkerReplicas: number }).availableWorkerReplicas, 2);
    f.store.update({ ...rc, spec: { ...(rc.spec as object), suspend: true } });
    await f.run(2_000);
    rc = f.get('ray.io/v1', 'RayCluster', 'big')!;
    assert.equal((rc.status as { state: string }).state, 'suspended');
    assert.equal(cond(rc, 'RayClusterSuspended')?.status, 'True');
    assert.equal(f.pods().length, 0);
  } finally {
    f.stop();
  }
});

test('RayJob: cluster <rj>-<rand5>, submitter Job, Initializing → Running → Complete, cluster shut down', async () => {
  const f = fixture();
  try {
    f.store.create({
      apiVersion: 'ray.io/v1',
      kind: 'RayJob',
      metadata: { name: 'clf', namespace: 'default', annotations: { [SIM.duration]: '60s' } },
      spec: { entrypoint: 'python train.py', shutdownAfterJobFinishes: true, rayClusterSpec: clusterSpec(1, 1) },
    });
    await f.settle();
    let rj = f.get('ray.io/v1', 'RayJob', 'clf')!;
    let st = rj.status as Record<string, string>;
    assert.equal(st.jobDeploymentStatus, 'Initializing');
    assert.match(st.rayClusterName, /^clf-[a-z0-9]{5}$/);
    assert.match(st.jobId, /^clf-[a-z0-9]{5}$/);
    const rc = f.get('ray.io/v1', 'RayCluster', st.rayClusterName)!;
    assert.equal(rc.metadata.labels!['ray.io/originated-from-crd'], 'RayJob');
    assert.equal(rc.metadata.labels!['ray.io/originated-from-cr-name'], 'clf');
    assert.equal(ownerOf(rc)!.kind, 'RayJob');
    await f.run(15_000);
    rj = f.get('ray.io/v1', 'RayJob', 'clf')!;
    st = rj.status as Record<string, string>;
    assert.equal(st.jobDeploymentStatus, 'Running');
    assert.equal(st.jobStatus, 'RUNNING');
    const sub = f.get('batch/v1', 'Job', 'clf')!;
    assert.equal(ownerOf(sub)!.kind, 'RayJob');
    const subPod = f.pods({ 'batch.kubernetes.io/job-name': 'clf' })[0];
    assert.equal(subPod.spec.containers[0].name, 'ray-job-submitter');
    assert.equal(f.pods({ 'ray.io/cluster': st.rayClusterName, 'ray.io/originated-from-crd': 'RayJob' }).length, 2);
    await f.run(70_000, 5000);
    rj = f.get('ray.io/v1', 'RayJob', 'clf')!;
    st = rj.status as Record<string, string>;
    assert.equal(st.jobDeploymentStatus, 'Complete');
    assert.equal(st.jobStatus, 'SUCCEEDED');
    assert.ok(st.endTime);
    assert.equal(f.get('ray.io/v1', 'RayCluster', st.rayClusterName), undefined);
    assert.equal(f.pods({ 'ray.io/cluster': st.rayClusterName }).length, 0);
  } finally {
    f.stop();
  }
});

test('RayJob failure (entrypoint exits 1) and suspend', async () => {
  const f = fixture();
  try {
    f.store.create({ apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { name: 'bad', namespace: 'default', annotations: { [SIM.duration]: '10s', [SIM.exitCode]: '1' } }, spec: { entrypoint: 'python x.py', submitterConfig: { backoffLimit: 0 }, rayClusterSpec: clusterSpec(1, 1) } });
    f.store.create({ apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { name: 'held', namespace: 'default' }, spec: { entrypoint: 'python x.py', suspend: true, rayClusterSpec: clusterSpec(1, 1) } });
    await f.run(40_000);
    const bad = f.get('ray.io/v1', 'RayJob', 'bad')!.status as Record<string, string>;
    assert.equal(bad.jobDeploymentStatus, 'Failed');
    assert.equal(bad.jobStatus, 'FAILED');
    assert.equal(bad.reason, 'AppFailed');
    const held = f.get('ray.io/v1', 'RayJob', 'held')!.status as Record<string, string>;
    assert.equal(held.jobDeploymentStatus, 'Suspended');
    assert.equal(f.list('ray.io/v1', 'RayCluster').filter((c) => c.metadata.labels!['ray.io/originated-from-cr-name'] === 'held').length, 0);
  } finally {
    f.stop();
  }
});

test('RayService: pending cluster becomes active, services, serve labels, Ready; upgrade to a new cluster', async () => {
  const f = fixture();
  try {
    const serve = 'applications:\n- name: llms\n  import_path: ray.serve.llm:build_openai_app\n  route_prefix: /\n  deployments:\n  - name: LLMServer\n  - name: OpenAiIngress\n';
    f.store.create({ apiVersion: 'ray.io/v1', kind: 'RayService', metadata: { name: 'llm', namespace: 'default' }, spec: { serveConfigV2: serve, rayClusterDeletionDelaySeconds: 10, rayClusterConfig: clusterSpec(1, 4) } });
    await f.run(8_000);
    let rs = f.get('ray.io/v1', 'RayService', 'llm')!;
    let st = rs.status as { serviceStatus: string; pendingServiceStatus: { rayClusterName?: string; applicationStatuses?: Record<string, { status: string }> }; activeServiceStatus: { rayClusterName?: string; applicationStatuses?: Record<string, { status: string; serveDeploymentStatuses: Record<string, { status: string }> }> }; numServeEndpoints: number };
    assert.equal(cond(rs, 'Ready')?.reason, 'Initializing');
    assert.match(st.pendingServiceStatus.rayClusterName!, /^llm-[a-z0-9]{5}$/);
    assert.equal(st.pendingServiceStatus.applicationStatuses?.llms.status, 'DEPLOYING');
    await f.run(20_000);
    rs = f.get('ray.io/v1', 'RayService', 'llm')!;
    st = rs.status as typeof st;
    const active = st.activeServiceStatus.rayClusterName!;
    assert.ok(active);
    assert.equal(st.serviceStatus, 'Running');
    assert.equal(st.activeServiceStatus.applicationStatuses!.llms.status, 'RUNNING');
    assert.equal(st.activeServiceStatus.applicationStatuses!.llms.serveDeploymentStatuses.LLMServer.status, 'HEALTHY');
    assert.equal(st.numServeEndpoints, 2);
    assert.equal(cond(rs, 'Ready')?.reason, 'NonZeroServeEndpoints');
    assert.equal(cond(rs, 'UpgradeInProgress')?.reason, 'NoPendingCluster');
    assert.ok(f.pods({ 'ray.io/cluster': active }).every((p) => p.metadata.labels!['ray.io/serve'] === 'true'));
    const serveSvc = f.get('v1', 'Service', 'llm-serve-svc')!;
    assert.deepEqual((serveSvc.spec as { selector: unknown }).selector, { 'ray.io/cluster': active, 'ray.io/serve': 'true' });
    assert.equal(ownerOf(serveSvc)!.kind, 'RayService');
    assert.ok(f.get('v1', 'Service', 'llm-head-svc'));
    // Change the cluster spec: a second cluster comes up, traffic moves, the old one is removed.
    const spec = rs.spec as { rayClusterConfig: Record<string, unknown> };
    f.store.update({ ...rs, spec: { ...spec, rayClusterConfig: { ...spec.rayClusterConfig, rayVersion: '2.47.0' } } });
    await f.run(3_000);
    assert.equal(cond(f.get('ray.io/v1', 'RayService', 'llm'), 'UpgradeInProgress')?.reason, 'BothActivePendingClustersExist');
    await f.run(40_000);
    rs = f.get('ray.io/v1', 'RayService', 'llm')!;
    st = rs.status as typeof st;
    assert.notEqual(st.activeServiceStatus.rayClusterName, active);
    assert.equal(f.get('ray.io/v1', 'RayCluster', active), undefined);
    assert.equal(f.list('ray.io/v1', 'RayCluster').length, 1);
  } finally {
    f.stop();
  }
});
