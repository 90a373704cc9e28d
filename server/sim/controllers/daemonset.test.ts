import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dcgmExporterObjects } from '../gpu-metrics/dcgm-exporter.ts';
import { nodeObject } from '../scenarios/node-pools.ts';
import { nodeRejects, nodeInfoFrom, pinnedNodeNames } from './scheduler-fit.ts';
import { fixture, ownerOf } from './testing.ts';
import type { Pod } from './types.ts';

test('DaemonSet: one pod per qualifying node, pinned by matchFields and bound there; nodes coming and going', async () => {
  const f = fixture({ pools: [{ type: 'h100', count: 2 }, { type: 'cpu', count: 2 }, { type: 'l4', count: 1, taintGpu: true }] });
  try {
    for (const o of dcgmExporterObjects()) f.store.create(o);
    await f.run(30_000);
    const pods = (): Pod[] => f.pods({ app: 'nvidia-dcgm-exporter' }, 'gpu-operator');
    const byNode = new Map(pods().map((p) => [p.spec.nodeName, p]));
    assert.deepEqual([...byNode.keys()].sort(), ['gpu-h100-00', 'gpu-h100-01', 'gpu-l4-00'], 'GPU nodes only, the tainted one tolerated');
    for (const [node, p] of byNode) {
      assert.match(p.metadata.name!, /^nvidia-dcgm-exporter-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      assert.deepEqual(pinnedNodeNames(p.spec.affinity), [node]);
      assert.equal(p.status?.phase, 'Running');
      assert.equal(p.metadata.labels?.['pod-template-generation'], '1');
      assert.ok(p.metadata.labels?.['controller-revision-hash']);
      assert.deepEqual(ownerOf(p), { kind: 'DaemonSet', name: 'nvidia-dcgm-exporter', controller: true, blockOwnerDeletion: true });
      assert.ok(p.spec.tolerations?.some((t) => t.key === 'node.kubernetes.io/unschedulable'));
      assert.equal(p.spec.containers[0].ports?.[0]?.containerPort, 9400);
    }
    const ds = f.store.get('apps/v1', 'DaemonSet', 'gpu-operator', 'nvidia-dcgm-exporter')!;
    assert.deepEqual(ds.status, { currentNumberScheduled: 3, desiredNumberScheduled: 3, numberMisscheduled: 0, numberReady: 3, numberAvailable: 3, observedGeneration: 1, updatedNumberScheduled: 3 });
    assert.equal(f.store.list('apps/v1', 'ControllerRevision', { namespace: 'gpu-operator' }).length, 1);

    // A new GPU node gets its pod; a deleted one loses it.
    f.store.create(nodeObject('a100', 0, 10));
    f.store.delete('v1', 'Node', undefined, 'gpu-h100-01');
    await f.run(30_000);
    assert.deepEqual(pods().map((p) => p.spec.nodeName).sort(), ['gpu-a100-00', 'gpu-h100-00', 'gpu-l4-00']);

    // A failed pod is replaced.
    const victim = pods().find((p) => p.spec.nodeName === 'gpu-h100-00')!;
    f.store.updateStatus({ ...victim, status: { ...victim.status, phase: 'Failed' } });
    await f.run(30_000);
    const now = pods().filter((p) => p.spec.nodeName === 'gpu-h100-00');
    assert.equal(now.length, 1);
    assert.notEqual(now[0].metadata.name, victim.metadata.name);
  } finally {
    f.stop();
  }
});

test('scheduler: required matchFields metadata.name pins a pod; an empty term matches no node', () => {
  const node = nodeInfoFrom(nodeObject('h100', 0, 0), undefined);
  const pod = (affinity: unknown): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [], affinity: affinity as Record<string, unknown> } });
  const pin = (name: string) => ({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [name] }] }] } } });
  assert.deepEqual(nodeRejects(node, pod(pin('gpu-h100-00')), {}), []);
  assert.deepEqual(nodeRejects(node, pod(pin('other')), {}), ["node(s) didn't match Pod's node affinity/selector"]);
  assert.deepEqual(nodeRejects(node, pod({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{}] } } }), {}), ["node(s) didn't match Pod's node affinity/selector"]);
  assert.deepEqual(pinnedNodeNames(pin('x')), ['x']);
  assert.equal(pinnedNodeNames({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'Exists' }] }] } } }), undefined);
});
