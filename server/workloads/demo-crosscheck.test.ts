/**
 * Cross-check of the catalog against the simulated operators: every workload of the demo scenario
 * (every framework of the catalog, as their operators create them) resolves without errors or unmatched pods.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSim } from '../sim/index.ts';
import { loadClusterConfigs } from '../cluster/index.ts';
import { loadCatalog } from '../catalog/index.ts';
import { LiveWorkloads } from './live.ts';

test('every demo workload resolves with no errors and no unmatched pods', async () => {
  const sim = await startSim({ scenario: 'demo', seed: 7 });
  const live = new LiveWorkloads({ clusters: loadClusterConfigs({ kubeconfig: sim.kubeconfigPath }), catalog: LiveWorkloads.catalogEntries(loadCatalog()) });
  try {
    live.start();
    const end = Date.now() + 30_000;
    while (!(live.clusters()[0]?.synced && live.index.allRows().length >= 30) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 1500));
    const rows = live.index.allRows();
    assert.ok(rows.length >= 30, `only ${rows.length} rows`);
    const kinds = new Set(rows.map((r) => r.kind));
    for (const k of ['JobSet', 'PyTorchJob', 'RayCluster', 'RayJob', 'RayService', 'InferenceService', 'MPIJob', 'TrainJob', 'TFJob', 'XGBoostJob', 'JAXJob', 'PaddleJob', 'NIMCache', 'NIMService', 'LeaderWorkerSet', 'Milvus', 'PodCliqueSet', 'DynamoGraphDeployment', 'SparkApplication', 'AppWrapper', 'LLMInferenceService', 'Sandbox']) {
      assert.ok(kinds.has(k), `no ${k} among ${[...kinds].join(', ')}`);
    }
    // Volcano's Job shares its kind with batch/v1 Job: told apart by its group.
    assert.ok(rows.some((r) => r.apiVersion === 'batch.volcano.sh/v1alpha1' && r.kind === 'Job'), 'no Volcano Job');
    const problems: string[] = [];
    for (const r of rows) {
      const at = live.index.rootOfRow(r.id)!;
      const t = live.index.resolve(at.cluster, at.uid)!.tree;
      for (const e of t.errors) problems.push(`${r.id}: ${e.message}`);
      // A workload no definition describes (the GPU Operator's DCGM exporter DaemonSet) has no roles
      // to claim its pods: they are its own, not the catalog's miss.
      if (r.definition.source !== 'none') for (const p of t.unmatchedPods) problems.push(`${r.id}: unmatched pod ${p.name}`);
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(rows.filter((r) => r.definition.source === 'none').map((r) => r.id), ['wmap-sim/gpu-operator/DaemonSet.apps/nvidia-dcgm-exporter']);
  } finally {
    live.stop();
    await sim.stop();
  }
});
