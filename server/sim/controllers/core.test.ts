import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SIM } from './pods.ts';
import { cond, container, fixture, ownerOf } from './testing.ts';
import type { KubeObject, Pod } from './types.ts';

function job(name: string, spec: Record<string, unknown>, annotations: Record<string, string> = {}, res: Record<string, string | number> = {}): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: 'default' },
    spec: {
      backoffLimit: 0,
      ...spec,
      template: { metadata: { annotations }, spec: { restartPolicy: 'Never', containers: [container('main', res)] } },
    },
  };
}

test('Indexed Job: pod names, hostnames, index label+annotation, job labels, finalizer, then Complete', async () => {
  const f = fixture();
  try {
    f.store.create(job('train', { completionMode: 'Indexed', parallelism: 3, completions: 3 }, { [SIM.duration]: '60s' }));
    await f.settle();
    const j = f.get('batch/v1', 'Job', 'train')!;
    const pods = f.pods({ 'batch.kubernetes.io/job-name': 'train' }).sort((a, b) => a.spec.hostname!.localeCompare(b.spec.hostname!));
    assert.equal(pods.length, 3);
    pods.forEach((p, i) => {
      assert.match(p.metadata.name!, new RegExp(`^train-${i}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
      assert.equal(p.metadata.generateName, `train-${i}-`);
      assert.equal(p.spec.hostname, `train-${i}`);
      assert.equal(p.metadata.labels!['batch.kubernetes.io/job-completion-index'], String(i));
      assert.equal(p.metadata.annotations!['batch.kubernetes.io/job-completion-index'], String(i));
      assert.equal(p.metadata.labels!['batch.kubernetes.io/controller-uid'], j.metadata.uid);
      assert.equal(p.metadata.labels!['controller-uid'], j.metadata.uid);
      assert.equal(p.metadata.labels!['job-name'], 'train');
      assert.deepEqual(p.metadata.finalizers, ['batch.kubernetes.io/job-tracking']);
      assert.deepEqual(ownerOf(p), { kind: 'Job', name: 'train', controller: true, blockOwnerDeletion: true });
      assert.ok(p.spec.nodeName, 'bound');
      assert.ok(p.spec.containers[0].env!.some((e) => e.name === 'JOB_COMPLETION_INDEX'));
    });
    assert.deepEqual((j.spec as { selector: unknown }).selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': j.metadata.uid } });
    await f.run(10_000);
    let st = f.get('batch/v1', 'Job', 'train')!.status as Record<string, unknown>;
    assert.equal(st.active, 3);
    assert.equal(st.ready, 3);
    assert.ok(st.startTime);
    assert.ok(f.pods().every((p) => p.status?.phase === 'Running' && p.status.podIP && p.status.containerStatuses?.[0].state.running));
    await f.run(70_000);
    const done = f.get('batch/v1', 'Job', 'train')!;
    st = done.status as Record<string, unknown>;
    assert.equal(st.succeeded, 3);
    assert.equal(st.active, undefined);
    assert.equal(st.completedIndexes, '0-2');
    assert.ok(st.completionTime);
    assert.equal(cond(done, 'SuccessCriteriaMet')?.status, 'True');
    assert.equal(cond(done, 'Complete')?.reason, 'CompletionsReached');
    assert.ok(f.pods().every((p) => p.status?.phase === 'Succeeded' && !p.metadata.finalizers));
  } finally {
    f.stop();
  }
});

test('NonIndexed Job: names <job>-<rand5>; failure beyond backoffLimit → FailureTarget + Failed', async () => {
  const f = fixture();
  try {
    f.store.create(job('flaky', { parallelism: 2, completions: 2, backoffLimit: 1 }, { [SIM.duration]: '20s', [SIM.exitCode]: '1' }));
    await f.run(20_000);
    assert.ok(f.pods().every((p) => /^flaky-[a-z0-9]{5}$/.test(p.metadata.name!)));
    await f.run(120_000);
    const j = f.get('batch/v1', 'Job', 'flaky')!;
    assert.equal(cond(j, 'FailureTarget')?.status, 'True');
    assert.equal(cond(j, 'Failed')?.reason, 'BackoffLimitExceeded');
    assert.ok(((j.status as { failed: number }).failed ?? 0) >= 2);
    assert.equal(f.pods().filter((p) => p.status?.phase !== 'Failed').length, 0);
    const failedPod = f.pods()[0];
    assert.equal(failedPod.status!.containerStatuses![0].state.terminated!.reason, 'Error');
    assert.equal(failedPod.status!.containerStatuses![0].state.terminated!.exitCode, 1);
  } finally {
    f.stop();
  }
});

test('Job suspend deletes active pods, resume recreates them', async () => {
  const f = fixture();
  try {
    f.store.create(job('sus', { parallelism: 2, completions: 2, suspend: true }));
    await f.settle();
    let j = f.get('batch/v1', 'Job', 'sus')!;
    assert.equal(f.pods().length, 0);
    assert.equal(cond(j, 'Suspended')?.reason, 'JobSuspended');
    f.store.update({ ...j, spec: { ...(j.spec as object), suspend: false } });
    await f.settle();
    j = f.get('batch/v1', 'Job', 'sus')!;
    assert.equal(f.pods().length, 2);
    assert.equal(cond(j, 'Suspended')?.status, 'False');
    assert.equal(cond(j, 'Suspended')?.reason, 'JobResumed');
    f.store.update({ ...j, spec: { ...(j.spec as object), suspend: true } });
    await f.settle();
    assert.equal(f.pods().length, 0);
    assert.equal(cond(f.get('batch/v1', 'Job', 'sus'), 'Suspended')?.status, 'True');
  } finally {
    f.stop();
  }
});

test('Deployment → ReplicaSet <d>-<hash> → pods; status and conditions; rollout to a new template', async () => {
  const f = fixture();
  try {
    f.store.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [container('web', { cpu: '1', memory: '1Gi' })] } },
      },
    });
    await f.run(5_000);
    const rs = f.list('apps/v1', 'ReplicaSet');
    assert.equal(rs.length, 1);
    const hash = rs[0].metadata.labels!['pod-template-hash'];
    assert.equal(rs[0].metadata.name, `web-${hash}`);
    assert.deepEqual(ownerOf(rs[0]), { kind: 'Deployment', name: 'web', controller: true, blockOwnerDeletion: true });
    const pods = f.pods({ app: 'web' });
    assert.equal(pods.length, 3);
    for (const p of pods) {
      assert.match(p.metadata.name!, new RegExp(`^web-${hash}-[a-z0-9]{5}$`));
      assert.equal(p.metadata.labels!['pod-template-hash'], hash);
      assert.equal(ownerOf(p)!.kind, 'ReplicaSet');
      assert.equal(p.status!.qosClass, 'Guaranteed');
    }
    const d = f.get('apps/v1', 'Deployment', 'web')!;
    assert.deepEqual(
      { r: (d.status as Record<string, number>).replicas, ready: (d.status as Record<string, number>).readyReplicas, av: (d.status as Record<string, number>).availableReplicas, up: (d.status as Record<string, number>).updatedReplicas },
      { r: 3, ready: 3, av: 3, up: 3 },
    );
    assert.equal(cond(d, 'Available')?.reason, 'MinimumReplicasAvailable');
    assert.equal(cond(d, 'Progressing')?.reason, 'NewReplicaSetAvailable');
    // New template: a second ReplicaSet takes over, the first is scaled to zero.
    const spec = d.spec as { template: { metadata: { labels: Record<string, string> } } };
    f.store.update({ ...d, spec: { ...spec, template: { ...spec.template, metadata: { labels: { app: 'web', v: '2' } } } } });
    await f.run(30_000);
    const sets = f.list('apps/v1', 'ReplicaSet');
    assert.equal(sets.length, 2);
    const replicas = sets.map((s) => (s.spec as { replicas: number }).replicas).sort();
    assert.deepEqual(replicas, [0, 3]);
    assert.equal(f.pods({ v: '2' }).length, 3);
    assert.equal(f.pods().length, 3);
  } finally {
    f.stop();
  }
});

test('Deployment whose pods cannot be scheduled: Available False, then ProgressDeadlineExceeded', async () => {
  const f = fixture();
  try {
    f.store.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'big', namespace: 'default' },
      spec: {
        replicas: 1,
        progressDeadlineSeconds: 60,
        selector: { matchLabels: { app: 'big' } },
        template: { metadata: { labels: { app: 'big' } }, spec: { containers: [container('m', { 'nvidia.com/gpu': 16 })] } },
      },
    });
    await f.run(10_000);
    const pod = f.pods({ app: 'big' })[0];
    assert.equal(pod.status!.phase, 'Pending');
    const sched = cond(pod, 'PodScheduled')!;
    assert.equal(sched.status, 'False');
    assert.equal(sched.reason, 'Unschedulable');
    assert.equal(
      sched.message,
      '0/4 nodes are available: 4 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are available: 4 No preemption victims found for incoming pod.',
    );
    let d = f.get('apps/v1', 'Deployment', 'big')!;
    assert.equal(cond(d, 'Available')?.status, 'False');
    await f.run(70_000, 5000);
    d = f.get('apps/v1', 'Deployment', 'big')!;
    assert.equal(cond(d, 'Progressing')?.reason, 'ProgressDeadlineExceeded');
    assert.equal(cond(d, 'Progressing')?.status, 'False');
  } finally {
    f.stop();
  }
});

test('StatefulSet: ordered pods <sts>-<n>, STS labels, hostname/subdomain, ControllerRevision, status', async () => {
  const f = fixture();
  try {
    f.store.create({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: 'default' },
      spec: {
        replicas: 3,
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: { metadata: { labels: { app: 'db' } }, spec: { containers: [container('db', { cpu: '500m' })] } },
      },
    });
    await f.settle();
    assert.deepEqual(f.pods().map((p) => p.metadata.name), ['db-0'], 'OrderedReady creates one at a time');
    await f.run(30_000);
    const pods = f.pods().sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));
    assert.deepEqual(pods.map((p) => p.metadata.name), ['db-0', 'db-1', 'db-2']);
    const sts = f.get('apps/v1', 'StatefulSet', 'db')!;
    const st = sts.status as Record<string, unknown>;
    pods.forEach((p, i) => {
      assert.equal(p.metadata.labels!['statefulset.kubernetes.io/pod-name'], `db-${i}`);
      assert.equal(p.metadata.labels!['apps.kubernetes.io/pod-index'], String(i));
      assert.equal(p.metadata.labels!['controller-revision-hash'], st.updateRevision);
      assert.equal(p.spec.hostname, `db-${i}`);
      assert.equal(p.spec.subdomain, 'db');
    });
    assert.equal(st.readyReplicas, 3);
    assert.equal(st.currentRevision, st.updateRevision);
    const rev = f.get('apps/v1', 'ControllerRevision', st.updateRevision as string)!;
    assert.equal(ownerOf(rev)!.kind, 'StatefulSet');
  } finally {
    f.stop();
  }
});

test('scheduler: GPU capacity, MIG resources, release on finish, retry of pending pods', async () => {
  const f = fixture({ pools: [{ type: 'a100-mig', count: 1 }, { type: 'cpu', count: 1 }] });
  try {
    const mk = (name: string, res: Record<string, number>, duration = 'forever'): Pod =>
      f.store.create({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: 'default', annotations: { [SIM.duration]: duration } },
        spec: { restartPolicy: 'Never', containers: [container('c', res)] },
      }) as Pod;
    // 14 × 1g.10gb fit; the 15th does not.
    for (let i = 0; i < 15; i++) mk(`mig-${i}`, { 'nvidia.com/mig-1g.10gb': 1 }, i === 0 ? '30s' : 'forever');
    mk('whole-4', { 'nvidia.com/gpu': 4 });
    mk('whole-1', { 'nvidia.com/gpu': 1 });
    await f.run(5_000);
    const byName = new Map(f.pods().map((p) => [p.metadata.name!, p]));
    assert.equal([...byName.values()].filter((p) => p.metadata.name!.startsWith('mig-') && p.spec.nodeName === 'gpu-a100-mig-00').length, 14);
    const pending = byName.get('mig-14')!;
    assert.equal(pending.spec.nodeName, undefined);
    assert.match(cond(pending, 'PodScheduled')!.message!, /^0\/2 nodes are available: 2 Insufficient nvidia.com\/mig-1g.10gb\./);
    assert.equal(byName.get('whole-4')!.spec.nodeName, 'gpu-a100-mig-00');
    assert.match(cond(byName.get('whole-1')!, 'PodScheduled')!.message!, /2 Insufficient nvidia.com\/gpu/);
    // mig-0 finishes after 30 s: its slice is released and the pending MIG pod gets it.
    await f.run(40_000);
    assert.equal((f.get('v1', 'Pod', 'mig-0') as Pod).status!.phase, 'Succeeded');
    assert.equal((f.get('v1', 'Pod', 'mig-14') as Pod).spec.nodeName, 'gpu-a100-mig-00');
    // Deleting a running pod releases its GPUs too.
    f.store.delete('v1', 'Pod', 'default', 'whole-4');
    await f.run(5_000);
    assert.equal((f.get('v1', 'Pod', 'whole-1') as Pod).spec.nodeName, 'gpu-a100-mig-00');
  } finally {
    f.stop();
  }
});

test('scheduler: nodeSelector and taints; CPU pods prefer CPU nodes', async () => {
  const f = fixture({ pools: [{ type: 'h100', count: 1, taintGpu: true }, { type: 'l4', count: 1 }, { type: 'cpu', count: 1 }] });
  try {
    const mk = (name: string, spec: Record<string, unknown>): void => {
      f.store.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers: [container('c')], ...spec } });
    };
    mk('cpu-pod', { containers: [container('c', { cpu: '2' })] });
    mk('h100-pod', { nodeSelector: { 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3' }, containers: [container('c', { 'nvidia.com/gpu': 2 })] });
    mk('nowhere', { nodeSelector: { 'nvidia.com/gpu.product': 'NVIDIA-B200' }, containers: [container('c', { 'nvidia.com/gpu': 1 })] });
    await f.run(3_000);
    assert.equal((f.get('v1', 'Pod', 'cpu-pod') as Pod).spec.nodeName, 'cpu-00');
    // Pods created directly (not through a controller) get no ExtendedResourceToleration: the tainted node rejects it.
    const h = f.get('v1', 'Pod', 'h100-pod') as Pod;
    assert.equal(h.spec.nodeName, undefined);
    assert.match(cond(h, 'PodScheduled')!.message!, /1 node\(s\) had untolerated taint \{nvidia.com\/gpu: present\}/);
    // kube-scheduler sorts the "<count> <reason>" strings as a whole, so "1 …" comes before "2 …".
    assert.match(cond(f.get('v1', 'Pod', 'nowhere'), 'PodScheduled')!.message!, /: 1 node\(s\) had untolerated taint \{nvidia.com\/gpu: present\}, 2 node\(s\) didn't match Pod's node affinity\/selector\. preemption:/);
  } finally {
    f.stop();
  }
});

test('kubelet: OnFailure restarts in place with CrashLoopBackOff and restartCount', async () => {
  const f = fixture();
  try {
    f.store.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'crashy', namespace: 'default', annotations: { [SIM.duration]: '10s', [SIM.exitCode]: '2' } },
      spec: { restartPolicy: 'OnFailure', containers: [container('c')] },
    });
    await f.run(13_000);
    let p = f.get('v1', 'Pod', 'crashy') as Pod;
    const cs = p.status!.containerStatuses![0];
    assert.equal(p.status!.phase, 'Running');
    assert.equal(cs.restartCount, 1);
    assert.equal(cs.state.waiting?.reason, 'CrashLoopBackOff');
    assert.equal(cs.lastState.terminated?.exitCode, 2);
    await f.run(15_000);
    p = f.get('v1', 'Pod', 'crashy') as Pod;
    assert.ok(p.status!.containerStatuses![0].state.running);
    assert.equal(cond(p, 'Ready')?.status, 'True');
  } finally {
    f.stop();
  }
});
