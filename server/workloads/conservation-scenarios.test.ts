/**
 * The conservation check on the simulated cluster's scenarios, through the real client path (list +
 * watch): the rows' GPUs per resource equal the live pods' own, and no pod with GPUs is left out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSim } from '../sim/index.ts';
import { loadClusterConfigs } from '../cluster/index.ts';
import { loadCatalog } from '../catalog/index.ts';
import { conservation } from './conservation.ts';
import { LiveWorkloads } from './live.ts';

async function balanceOf(options: Parameters<typeof startSim>[0], minRows: number) {
  const sim = await startSim(options);
  const live = new LiveWorkloads({ clusters: loadClusterConfigs({ kubeconfig: sim.kubeconfigPath }), catalog: LiveWorkloads.catalogEntries(loadCatalog()) });
  try {
    live.start();
    const end = Date.now() + 60_000;
    while (!(live.clusters()[0]?.synced && live.index.allRows().length >= minRows) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    // Settle: the controllers keep reconciling for a moment after the lists.
    let last = '';
    for (let i = 0; i < 40; i++) {
      await new Promise((r) => setTimeout(r, 250));
      live.index.flush();
      const now = JSON.stringify(conservation(live.index));
      if (now === last && JSON.parse(now)[0].ok) break;
      last = now;
    }
    return { balance: conservation(live.index), rows: live.index.allRows() };
  } finally {
    live.stop();
    await sim.stop();
  }
}

test('demo scenario: every GPU of every live pod is in exactly one row', async () => {
  const { balance, rows } = await balanceOf({ scenario: 'demo', seed: 7 }, 30);
  assert.equal(balance.length, 1);
  const [c] = balance;
  assert.deepEqual(c.uncounted, []);
  assert.deepEqual(c.unreadable, []);
  for (const r of c.resources) assert.equal(r.rows, r.pods, `${r.resource}: rows ${r.rows}, pods ${r.pods}`);
  assert.ok(c.resources.some((r) => r.resource === 'nvidia.com/gpu' && r.pods > 0), JSON.stringify(c.resources));
  assert.equal(c.ok, true);
  assert.ok(rows.length >= 30);
});

test('scale scenario (small): the same balance across every framework', async () => {
  const { balance } = await balanceOf({ scenario: 'scale', seed: 3, scale: { pods: 3000, workloads: 300, nodes: 80, churnPerSecond: 0 } }, 250);
  const [c] = balance;
  assert.deepEqual(c.uncounted.slice(0, 5), []);
  for (const r of c.resources) assert.equal(r.rows, r.pods, `${r.resource}: rows ${r.rows}, pods ${r.pods}`);
  assert.equal(c.ok, true);
});
