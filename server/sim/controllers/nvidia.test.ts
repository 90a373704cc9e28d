import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cond, fixture, ownerOf } from './testing.ts';
import type { KubeObject, Pod } from './types.ts';

function nim(name: string, o: { gpus?: number; cache?: string; multiNode?: number; replicas?: number } = {}): KubeObject {
  return {
    apiVersion: 'apps.nvidia.com/v1alpha1',
    kind: 'NIMService',
    metadata: { name, namespace: 'nim' },
    spec: {
      image: { repository: 'nvcr.io/nim/meta/llama-3.2-1b-instruct', tag: '1.12.0', pullSecrets: ['ngc-secret'] },
      authSecret: 'ngc-api-secret',
      ...(o.cache ? { storage: { nimCache: { name: o.cache } } } : {}),
      replicas: o.replicas ?? 1,
      resources: { limits: { 'nvidia.com/gpu': o.gpus ?? 1 } },
      expose: { service: { type: 'ClusterIP', port: 8000 } },
      ...(o.multiNode ? { multiNode: { backendType: 'lws', parallelism: { pipeline: o.multiNode, tensor: 8 } } } : {}),
    },
  };
}

test('NIMService single node: SA/Role/RoleBinding/Service/Deployment with operator labels; NIMCache gate; Ready', async () => {
  const f = fixture();
  try {
    f.store.create({ apiVersion: 'apps.nvidia.com/v1alpha1', kind: 'NIMCache', metadata: { name: 'llama-cache', namespace: 'nim' }, spec: { source: { ngc: { modelPuller: 'nvcr.io/nim/meta/llama-3.2-1b-instruct:1.12.0' } }, storage: { pvc: { create: true, size: '50Gi' } } } });
    f.store.create(nim('llama', { cache: 'llama-cache' }));
    await f.run(5_000);
    let n = f.get('apps.nvidia.com/v1alpha1', 'NIMService', 'llama', 'nim')!;
    assert.equal((n.status as { state: string }).state, 'NotReady');
    assert.equal(cond(n, 'Ready')?.reason, 'NIMCacheNotReady');
    assert.equal(f.get('apps/v1', 'Deployment', 'llama', 'nim'), undefined);
    await f.run(160_000, 10_000);
    const cache = f.get('apps.nvidia.com/v1alpha1', 'NIMCache', 'llama-cache', 'nim')!;
    assert.equal((cache.status as { state: string }).state, 'Ready');
    assert.ok(f.get('v1', 'PersistentVolumeClaim', 'llama-cache-pvc', 'nim'));
    n = f.get('apps.nvidia.com/v1alpha1', 'NIMService', 'llama', 'nim')!;
    const d = f.get('apps/v1', 'Deployment', 'llama', 'nim')!;
    assert.deepEqual(ownerOf(d), { kind: 'NIMService', name: 'llama', controller: true, blockOwnerDeletion: true });
    for (const [av, k] of [['v1', 'ServiceAccount'], ['rbac.authorization.k8s.io/v1', 'Role'], ['rbac.authorization.k8s.io/v1', 'RoleBinding'], ['v1', 'Service']] as const) {
      assert.equal(ownerOf(f.get(av, k, 'llama', 'nim')!)!.kind, 'NIMService', k);
    }
    const pod = f.pods({ app: 'llama' }, 'nim')[0];
    assert.equal(pod.metadata.labels!['app.kubernetes.io/part-of'], 'nim-service');
    assert.equal(pod.metadata.labels!['app.kubernetes.io/managed-by'], 'k8s-nim-operator');
    assert.equal(pod.spec.containers[0].name, 'llama-ctr');
    assert.equal(pod.spec.containers[0].image, 'nvcr.io/nim/meta/llama-3.2-1b-instruct:1.12.0');
    assert.equal((n.status as { state: string }).state, 'Ready');
    assert.equal(cond(n, 'Ready')?.status, 'True');
    assert.equal((n.status as { availableReplicas: number }).availableReplicas, 1);
    assert.equal((n.status as { model: { name: string } }).model.name, 'meta/llama-3.2-1b-instruct');
  } finally {
    f.stop();
  }
});

test('NIMService multi-node → LeaderWorkerSet <name>-lws; missing cache → Failed; pending GPUs → NotReady', async () => {
  const f = fixture();
  try {
    f.store.create(nim('ds', { gpus: 8, multiNode: 2 }));
    f.store.create(nim('orphan', { cache: 'nope' }));
    await f.run(20_000);
    const lws = f.get('leaderworkerset.x-k8s.io/v1', 'LeaderWorkerSet', 'ds-lws', 'nim')!;
    assert.equal(ownerOf(lws)!.kind, 'NIMService');
    assert.equal((lws.spec as { leaderWorkerTemplate: { size: number } }).leaderWorkerTemplate.size, 2);
    const leader = f.get('v1', 'Pod', 'ds-lws-0', 'nim') as Pod;
    assert.equal(leader.metadata.labels!['nim-llm-role'], 'leader');
    assert.equal((f.get('v1', 'Pod', 'ds-lws-0-1', 'nim') as Pod).metadata.labels!['nim-llm-role'], 'worker');
    assert.equal((f.get('apps.nvidia.com/v1alpha1', 'NIMService', 'ds', 'nim')!.status as { state: string }).state, 'Ready');
    const orphan = f.get('apps.nvidia.com/v1alpha1', 'NIMService', 'orphan', 'nim')!;
    assert.equal((orphan.status as { state: string }).state, 'Failed');
    assert.equal(cond(orphan, 'Failed')?.reason, 'NIMCacheNotFound');
    f.store.create(nim('more', { gpus: 8 }));
    await f.run(10_000);
    const more = f.get('apps.nvidia.com/v1alpha1', 'NIMService', 'more', 'nim')!;
    assert.notEqual((more.status as { state: string }).state, 'Ready');
    assert.equal(cond(more, 'Ready')?.status, 'False');
  } finally {
    f.stop();
  }
});

test('Milvus cluster: component Deployments (querynode -0/-1), service, Helm dependencies, Pending → Healthy; delete cleans up', async () => {
  const f = fixture();
  try {
    f.store.create({
      apiVersion: 'milvus.io/v1beta1',
      kind: 'Milvus',
      metadata: { name: 'vecdb', namespace: 'rag' },
      spec: { mode: 'cluster', components: { proxy: { replicas: 2 }, queryNode: { replicas: 2, resources: { limits: { 'nvidia.com/gpu': 1 } } }, dataNode: { replicas: 1 } }, dependencies: { etcd: { inCluster: { deletionPolicy: 'Delete' } }, storage: { inCluster: { deletionPolicy: 'Delete' } } } },
    });
    await f.settle();
    let m = f.get('milvus.io/v1beta1', 'Milvus', 'vecdb', 'rag')!;
    assert.equal((m.status as { status: string }).status, 'Pending');
    await f.run(60_000, 5000);
    m = f.get('milvus.io/v1beta1', 'Milvus', 'vecdb', 'rag')!;
    const deps = f.list('apps/v1', 'Deployment').map((d) => d.metadata.name).sort();
    assert.deepEqual(deps, ['vecdb-milvus-datanode', 'vecdb-milvus-mixcoord', 'vecdb-milvus-proxy', 'vecdb-milvus-querynode-0', 'vecdb-milvus-querynode-1', 'vecdb-milvus-streamingnode']);
    assert.deepEqual(f.list('apps/v1', 'StatefulSet').map((x) => x.metadata.name).sort(), ['vecdb-etcd', 'vecdb-minio'], 'cluster mode: distributed MinIO');
    const qn1 = f.get('apps/v1', 'Deployment', 'vecdb-milvus-querynode-1', 'rag')!;
    assert.equal((qn1.spec as { replicas: number }).replicas, 0);
    assert.equal(qn1.metadata.labels!['milvus.io/querynode-group-id'], '1');
    assert.equal(ownerOf(qn1)!.kind, 'Milvus');
    const etcd = f.get('apps/v1', 'StatefulSet', 'vecdb-etcd', 'rag')!;
    assert.equal(etcd.metadata.ownerReferences, undefined, 'Helm release, not owned');
    const proxyPod = f.pods({ 'app.kubernetes.io/component': 'proxy' }, 'rag')[0];
    assert.equal(proxyPod.metadata.labels!['milvus.io/service'], 'true');
    assert.equal(proxyPod.metadata.labels!['app.kubernetes.io/instance'], 'vecdb');
    assert.equal(proxyPod.spec.containers[0].name, 'proxy');
    assert.ok(f.get('v1', 'Service', 'vecdb-milvus', 'rag'));
    assert.equal((m.status as { status: string }).status, 'Healthy');
    assert.equal(cond(m, 'MilvusReady')?.reason, 'ReasonMilvusHealthy');
    assert.equal((m.status as { endpoint: string }).endpoint, 'vecdb-milvus.rag:19530');
    assert.ok((m.status as { componentsDeployStatus: Record<string, unknown> }).componentsDeployStatus.querynode);
    f.store.delete('milvus.io/v1beta1', 'Milvus', 'rag', 'vecdb');
    await f.run(5_000);
    assert.equal(f.get('milvus.io/v1beta1', 'Milvus', 'vecdb', 'rag'), undefined);
    assert.equal(f.get('apps/v1', 'StatefulSet', 'vecdb-etcd', 'rag'), undefined);
    assert.equal(f.pods(undefined, 'rag').length, 0);
  } finally {
    f.stop();
  }
});

function pcs(name: string, workers: number, gpus: number): KubeObject {
  const pod = (c: string, g: number): Record<string, unknown> => ({ containers: [{ name: c, image: 'worker:1.0', resources: { limits: g ? { 'nvidia.com/gpu': g } : { cpu: '1' } } }] });
  return {
    apiVersion: 'grove.io/v1alpha1',
    kind: 'PodCliqueSet',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas: 1,
      template: {
        cliques: [
          { name: 'frontend', spec: { roleName: 'frontend', replicas: 2, podSpec: pod('frontend', 0) } },
          { name: 'pleader', spec: { roleName: 'pleader', replicas: 1, podSpec: pod('main', gpus) } },
          { name: 'pworker', spec: { roleName: 'pworker', replicas: workers, podSpec: pod('main', gpus) } },
        ],
        podCliqueScalingGroups: [{ name: 'prefill', cliqueNames: ['pleader', 'pworker'], replicas: 2, minAvailable: 1 }],
      },
    },
  };
}

test('Grove PodCliqueSet: PodCliques, PCSG, PodGangs, gated pods released, names and labels, statuses', async () => {
  const f = fixture();
  try {
    f.store.create(pcs('mn', 1, 2));
    await f.run(15_000);
    const cliques = f.list('grove.io/v1alpha1', 'PodClique').map((c) => c.metadata.name).sort();
    assert.deepEqual(cliques, ['mn-0-frontend', 'mn-0-prefill-0-pleader', 'mn-0-prefill-0-pworker', 'mn-0-prefill-1-pleader', 'mn-0-prefill-1-pworker']);
    assert.equal(ownerOf(f.get('grove.io/v1alpha1', 'PodClique', 'mn-0-frontend')!)!.kind, 'PodCliqueSet');
    assert.equal(ownerOf(f.get('grove.io/v1alpha1', 'PodClique', 'mn-0-prefill-1-pworker')!)!.kind, 'PodCliqueScalingGroup');
    assert.equal(ownerOf(f.get('grove.io/v1alpha1', 'PodCliqueScalingGroup', 'mn-0-prefill')!)!.kind, 'PodCliqueSet');
    assert.deepEqual(f.list('scheduler.grove.io/v1alpha1', 'PodGang').map((g) => g.metadata.name).sort(), ['mn-0', 'mn-0-prefill-0']);
    assert.ok(f.get('v1', 'Service', 'mn-0'));
    assert.ok(f.get('v1', 'Secret', 'mn-ic-sat'));
    const fe = f.pods({ 'grove.io/podclique': 'mn-0-frontend' });
    assert.equal(fe.length, 2);
    assert.match(fe[0].metadata.name!, /^mn-0-frontend-[a-z0-9]{5}$/);
    assert.equal(ownerOf(fe[0])!.kind, 'PodClique');
    assert.equal(fe[0].metadata.labels!['app.kubernetes.io/part-of'], 'mn');
    assert.equal(fe[0].metadata.labels!['grove.io/podgang'], 'mn-0');
    assert.equal(fe[0].spec.subdomain, 'mn-0');
    assert.match(fe[0].spec.hostname!, /^mn-0-frontend-[01]$/);
    const w = f.pods({ 'grove.io/podclique': 'mn-0-prefill-1-pworker' })[0];
    assert.equal(w.metadata.labels!['grove.io/podcliquescalinggroup'], 'mn-0-prefill');
    assert.equal(w.metadata.labels!['grove.io/podcliquescalinggroup-replica-index'], '1');
    assert.equal(w.metadata.labels!['grove.io/podgang'], 'mn-0-prefill-0');
    assert.ok(f.pods().every((p: Pod) => !p.spec.schedulingGates && p.status?.phase === 'Running'));
    const set = f.get('grove.io/v1alpha1', 'PodCliqueSet', 'mn')!;
    const st = set.status as { availableReplicas: number; podGangStatuses: Array<{ name: string; phase: string }> };
    assert.equal(st.availableReplicas, 1);
    assert.deepEqual(st.podGangStatuses.map((g) => g.phase), ['Running', 'Running']);
    const pc = f.get('grove.io/v1alpha1', 'PodClique', 'mn-0-frontend')!;
    assert.equal((pc.status as { readyReplicas: number }).readyReplicas, 2);
    assert.equal(cond(pc, 'PodCliqueScheduled')?.reason, 'SufficientScheduledPods');
    assert.equal(cond(pc, 'MinAvailableBreached')?.status, 'False');
  } finally {
    f.stop();
  }
});

test('Grove gang that does not fit stays Pending as a whole (no partial placement)', async () => {
  const f = fixture();
  try {
    // Base gang: 2 frontends + prefill-0 (1 leader + 2 workers at 8 GPUs) = 24 GPUs > 16.
    f.store.create(pcs('big', 2, 8));
    await f.run(10_000);
    const base = f.pods({ 'grove.io/podgang': 'big-0' });
    assert.equal(base.length, 5);
    assert.ok(base.every((p) => !p.spec.nodeName), 'nothing of the base gang is bound');
    assert.match(cond(base[0], 'PodScheduled')!.message!, /cannot be scheduled as a gang/);
    const g = f.get('scheduler.grove.io/v1alpha1', 'PodGang', 'big-0')!;
    assert.equal((g.status as { phase: string }).phase, 'Pending');
    const pc = f.get('grove.io/v1alpha1', 'PodClique', 'big-0-prefill-0-pworker')!;
    assert.equal(cond(pc, 'PodCliqueScheduled')?.status, 'False');
  } finally {
    f.stop();
  }
});

function dgd(name: string, grove: boolean, version: 'v1alpha1' | 'v1beta1' = 'v1alpha1'): KubeObject {
  if (version === 'v1beta1') {
    return {
      apiVersion: 'nvidia.com/v1beta1',
      kind: 'DynamoGraphDeployment',
      metadata: { name, namespace: 'dynamo', annotations: grove ? {} : { 'nvidia.com/enable-grove': 'false' } },
      spec: {
        backendFramework: 'vllm',
        components: [
          { name: 'Frontend', type: 'frontend', replicas: 1, podTemplate: { spec: { containers: [{ name: 'main', image: 'nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0' }] } } },
          { name: 'VllmWorker', type: 'worker', replicas: 2, podTemplate: { spec: { containers: [{ name: 'main', image: 'nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0', resources: { limits: { 'nvidia.com/gpu': '1' } } }] } } },
        ],
      },
    };
  }
  return {
    apiVersion: 'nvidia.com/v1alpha1',
    kind: 'DynamoGraphDeployment',
    metadata: { name, namespace: 'dynamo', annotations: grove ? {} : { 'nvidia.com/enable-grove': 'false' } },
    spec: {
      backendFramework: 'vllm',
      services: {
        Frontend: { componentType: 'frontend', replicas: 1, extraPodSpec: { mainContainer: { image: 'nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0' } } },
        VllmDecodeWorker: { componentType: 'worker', subComponentType: 'decode', replicas: 2, resources: { limits: { gpu: '1' } }, extraPodSpec: { mainContainer: { image: 'nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0' } } },
        VllmPrefillWorker: { componentType: 'worker', subComponentType: 'prefill', replicas: 1, multinode: { nodeCount: 2 }, resources: { limits: { gpu: '4' } }, extraPodSpec: { mainContainer: { image: 'nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0' } } },
      },
    },
  };
}

test('Dynamo v1alpha1 with Grove: PodCliqueSet <dgd>, cliques and scaling group, dynamo labels, successful', async () => {
  const f = fixture();
  try {
    f.store.create(dgd('disagg', true));
    await f.run(20_000);
    const d = f.get('nvidia.com/v1alpha1', 'DynamoGraphDeployment', 'disagg', 'dynamo')!;
    assert.equal(d.metadata.annotations!['nvidia.com/workload-provider'], 'grove');
    const set = f.get('grove.io/v1alpha1', 'PodCliqueSet', 'disagg', 'dynamo')!;
    assert.equal(ownerOf(set)!.kind, 'DynamoGraphDeployment');
    const cliques = f.list('grove.io/v1alpha1', 'PodClique').map((c) => c.metadata.name).sort();
    assert.deepEqual(cliques, ['disagg-0-frontend', 'disagg-0-vllmdecodeworker', 'disagg-0-vllmprefillworker-0-vllmprefillworker-ldr', 'disagg-0-vllmprefillworker-0-vllmprefillworker-wkr']);
    const dec = f.pods({ 'nvidia.com/dynamo-component': 'VllmDecodeWorker' }, 'dynamo');
    assert.equal(dec.length, 2);
    assert.match(dec[0].metadata.name!, /^disagg-0-vllmdecodeworker-[a-z0-9]{5}$/);
    assert.equal(dec[0].metadata.labels!['nvidia.com/dynamo-sub-component-type'], 'decode');
    assert.equal(dec[0].metadata.labels!['nvidia.com/dynamo-namespace'], 'dynamo-disagg');
    assert.equal(dec[0].spec.containers[0].name, 'main');
    assert.equal(dec[0].spec.containers[0].resources!.limits!['nvidia.com/gpu'], '1');
    const ldr = f.pods({ 'grove.io/podclique': 'disagg-0-vllmprefillworker-0-vllmprefillworker-ldr' }, 'dynamo');
    assert.match(ldr[0].metadata.name!, /^disagg-0-vllmprefillworker-0-vllmprefillworker-ldr-[a-z0-9]{5}$/);
    const st = d.status as { state: string; services: Record<string, { componentKind: string; readyReplicas: number }> };
    assert.equal(st.state, 'successful');
    assert.equal(cond(d, 'Ready')?.reason, 'all_resources_are_ready');
    assert.equal(st.services.VllmPrefillWorker.componentKind, 'PodCliqueScalingGroup');
    assert.equal(st.services.VllmDecodeWorker.readyReplicas, 2);
    assert.ok(f.get('v1', 'Service', 'disagg-frontend', 'dynamo'));
  } finally {
    f.stop();
  }
});

test('Dynamo without Grove: DynamoComponentDeployments → Deployment / LeaderWorkerSet; v1beta1 components; pending', async () => {
  const f = fixture();
  try {
    f.store.create(dgd('comp', false));
    f.store.create(dgd('beta', false, 'v1beta1'));
    await f.run(20_000);
    const d = f.get('nvidia.com/v1alpha1', 'DynamoGraphDeployment', 'comp', 'dynamo')!;
    assert.equal(d.metadata.annotations!['nvidia.com/workload-provider'], 'component');
    const dcds = f.list('nvidia.com/v1alpha1', 'DynamoComponentDeployment').map((x) => x.metadata.name).sort();
    assert.deepEqual(dcds, ['beta-frontend', 'beta-vllmworker', 'comp-frontend', 'comp-vllmdecodeworker', 'comp-vllmprefillworker']);
    assert.equal(ownerOf(f.get('apps/v1', 'Deployment', 'comp-vllmdecodeworker', 'dynamo')!)!.kind, 'DynamoComponentDeployment');
    const lws = f.get('leaderworkerset.x-k8s.io/v1', 'LeaderWorkerSet', 'comp-vllmprefillworker', 'dynamo')!;
    assert.equal(ownerOf(lws)!.kind, 'DynamoComponentDeployment');
    assert.equal((f.get('v1', 'Pod', 'comp-vllmprefillworker-0', 'dynamo') as Pod).metadata.labels!.role, 'leader');
    assert.equal((f.get('v1', 'Pod', 'comp-vllmprefillworker-0-1', 'dynamo') as Pod).metadata.labels!.role, 'worker');
    assert.equal((d.status as { state: string }).state, 'successful');
    const b = f.get('nvidia.com/v1beta1', 'DynamoGraphDeployment', 'beta', 'dynamo')!;
    const bst = b.status as { state: string; components: Record<string, { componentKind: string }> };
    assert.equal(bst.components.VllmWorker.componentKind, 'Deployment');
    assert.equal(bst.state, 'successful');
    // A graph that cannot be placed: pending with insufficient_capacity.
    const big = dgd('big', true);
    (big.spec as { services: Record<string, { replicas: number }> }).services.VllmDecodeWorker.replicas = 30;
    f.store.create(big);
    await f.run(10_000);
    const bg = f.get('nvidia.com/v1alpha1', 'DynamoGraphDeployment', 'big', 'dynamo')!;
    assert.equal((bg.status as { state: string }).state, 'pending');
    assert.equal(cond(bg, 'Ready')?.reason, 'insufficient_capacity');
  } finally {
    f.stop();
  }
});
