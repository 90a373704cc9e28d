import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SIM } from './pods.ts';
import { cond, container, fixture, ownerOf } from './testing.ts';
import type { KubeObject, Pod } from './types.ts';

function lws(name: string, replicas: number, size: number, gpus: number, workerAnn: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'leaderworkerset.x-k8s.io/v1',
    kind: 'LeaderWorkerSet',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      leaderWorkerTemplate: {
        size,
        restartPolicy: 'RecreateGroupOnPodRestart',
        leaderTemplate: { metadata: { labels: { role: 'leader' } }, spec: { containers: [container('sglang-leader', { 'nvidia.com/gpu': gpus })] } },
        workerTemplate: { metadata: { annotations: workerAnn }, spec: { containers: [container('sglang-worker', { 'nvidia.com/gpu': gpus })] } },
      },
    },
  };
}

test('LeaderWorkerSet: leader STS, leader pods, per-group worker STS owned by the leader pod, labels, env, status', async () => {
  const f = fixture();
  try {
    f.store.create(lws('sglang', 2, 2, 1));
    await f.run(15_000);
    const leaderSts = f.get('apps/v1', 'StatefulSet', 'sglang')!;
    assert.equal(ownerOf(leaderSts)!.kind, 'LeaderWorkerSet');
    const names = f.pods().map((p) => p.metadata.name).sort();
    assert.deepEqual(names, ['sglang-0', 'sglang-0-1', 'sglang-1', 'sglang-1-1']);
    const leader = f.get('v1', 'Pod', 'sglang-1') as Pod;
    const worker = f.get('v1', 'Pod', 'sglang-1-1') as Pod;
    assert.equal(ownerOf(leader)!.kind, 'StatefulSet');
    assert.equal(leader.metadata.labels!['leaderworkerset.sigs.k8s.io/group-index'], '1');
    assert.equal(leader.metadata.labels!['leaderworkerset.sigs.k8s.io/worker-index'], '0');
    assert.match(leader.metadata.labels!['leaderworkerset.sigs.k8s.io/group-key'], /^[0-9a-f]{40}$/);
    assert.equal(leader.metadata.labels!.role, 'leader');
    assert.equal(leader.metadata.annotations!['leaderworkerset.sigs.k8s.io/size'], '2');
    const wsts = f.get('apps/v1', 'StatefulSet', 'sglang-1')!;
    assert.deepEqual(ownerOf(wsts), { kind: 'Pod', name: 'sglang-1', controller: true, blockOwnerDeletion: true });
    assert.equal(worker.metadata.labels!['leaderworkerset.sigs.k8s.io/worker-index'], '1');
    assert.equal(worker.metadata.labels!['leaderworkerset.sigs.k8s.io/group-key'], leader.metadata.labels!['leaderworkerset.sigs.k8s.io/group-key']);
    assert.equal(worker.metadata.annotations!['leaderworkerset.sigs.k8s.io/leader-name'], 'sglang-1');
    const env = Object.fromEntries(worker.spec.containers[0].env!.map((e) => [e.name, e.value]));
    assert.equal(env.LWS_LEADER_ADDRESS, 'sglang-1.sglang.default');
    assert.equal(env.LWS_GROUP_SIZE, '2');
    assert.equal(env.LWS_WORKER_INDEX, '1');
    assert.equal(worker.spec.subdomain, 'sglang');
    const obj = f.get('leaderworkerset.x-k8s.io/v1', 'LeaderWorkerSet', 'sglang')!;
    const st = obj.status as Record<string, unknown>;
    assert.equal(st.replicas, 2);
    assert.equal(st.readyReplicas, 2);
    assert.equal(st.hpaPodSelector, 'leaderworkerset.sigs.k8s.io/name=sglang,leaderworkerset.sigs.k8s.io/worker-index=0');
    assert.equal(cond(obj, 'Available')?.reason, 'AllGroupsReady');
    assert.equal(cond(obj, 'Progressing')?.status, 'False');
    assert.equal((f.get('v1', 'Service', 'sglang')!.spec as { clusterIP: string }).clusterIP, 'None');
  } finally {
    f.stop();
  }
});

test('LeaderWorkerSet pending for GPUs is Progressing; a crashing worker recreates its group', async () => {
  const f = fixture();
  try {
    f.store.create(lws('big', 2, 2, 8));
    f.store.create(lws('crash', 1, 2, 0, { [SIM.duration]: '20s', [SIM.exitCode]: '1' }));
    await f.run(15_000);
    const big = f.get('leaderworkerset.x-k8s.io/v1', 'LeaderWorkerSet', 'big')!;
    assert.equal(cond(big, 'Progressing')?.status, 'True');
    // Both leaders took a node each: no group has its worker, so none is ready.
    assert.equal((big.status as { readyReplicas: number }).readyReplicas, 0);
    const leaderUid = f.get('v1', 'Pod', 'crash-0')!.metadata.uid;
    await f.run(15_000);
    const again = f.get('v1', 'Pod', 'crash-0');
    assert.ok(again, 'group recreated');
    assert.notEqual(again!.metadata.uid, leaderUid);
  } finally {
    f.stop();
  }
});
