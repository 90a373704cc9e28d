/**
 * The nodes view on the demo cluster: GPU nodes grouped by product and pool, the free-GPU filter
 * against what `GET /api/nodes` reports, the table's totals strip showing the cluster's capacity,
 * and a workload page linking to the nodes its pods run on.
 */
import type { Page } from '@playwright/test';
import type { NodesPayload } from '../contract/index.ts';
import { expect, test } from './fixtures.ts';
import { apiRows } from './seed.ts';
import { createJobSet, ensureGpuNodes, hooks } from './sim.ts';

const NS = 'e2e-nodes';
const PROBE = 'e2e-nodes-probe';

async function apiNodes(baseURL: string): Promise<NodesPayload> {
  const res = await fetch(`${baseURL}/api/nodes`);
  if (!res.ok) throw new Error(`GET /api/nodes: ${res.status}`);
  return (await res.json()) as NodesPayload;
}

const allNodes = (p: NodesPayload) => p.clusters.flatMap((c) => c.groups.flatMap((g) => g.nodes));
const shownNodes = (page: Page) => page.getByTestId('node-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-node') ?? '').sort());

test.beforeAll(async ({ baseURL }) => {
  const hook = hooks(baseURL!);
  // Room for the probe whatever the demo holds: one 8-GPU node of its own.
  await ensureGpuNodes(hook, 1, 8, 'e2e-nodes-gpu');
  await createJobSet(hook, NS, PROBE, [{ name: 'worker', replicas: 1, gpus: 1 }]);
  await expect.poll(async () => (await apiRows(baseURL!, `namespace=${NS}`)).rows.find((r) => r.name === PROBE)?.gpus.allocated ?? 0, { timeout: 60_000 }).toBe(1);
});

test('the nodes page groups the demo GPU nodes by product and pool, and filters on free GPUs', async ({ page, baseURL }) => {
  await page.goto('/nodes');
  await expect(page.getByRole('link', { name: 'Nodes', exact: true })).toHaveAttribute('aria-current', 'page');
  // The demo's pools: H100 on p5.48xlarge, A100 (with the MIG node) on p4de.24xlarge, L4 on g6.12xlarge.
  await expect(page.getByRole('heading', { name: 'NVIDIA-H100-80GB-HBM3 · p5.48xlarge' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'NVIDIA-A100-SXM4-80GB · p4de.24xlarge' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'NVIDIA-L4 · g6.12xlarge' })).toBeVisible();
  const api = await apiNodes(baseURL!);
  expect(allNodes(api).some((n) => n.name.startsWith('cpu-')), 'CPU nodes are no GPU nodes').toBe(false);
  // The MIG node shows its layout.
  const mig = page.locator('[data-testid="node-row"][data-node="gpu-a100-mig-00"]');
  await expect(mig.getByRole('list', { name: 'MIG layout of gpu-a100-mig-00' })).toContainText('1g.10gb × 14');
  await expect(mig.getByRole('list', { name: 'MIG layout of gpu-a100-mig-00' })).toContainText('3g.40gb × 4');
  // Every GPU node the API reports is shown.
  await expect.poll(async () => JSON.stringify(await shownNodes(page))).toBe(JSON.stringify(allNodes(await apiNodes(baseURL!)).map((n) => n.name).sort()));
  await page.screenshot({ path: test.info().outputPath('nodes.png'), fullPage: true });

  await page.getByLabel('Minimum free GPUs').fill('8');
  await expect(page).toHaveURL(/minFree=8/);
  // The demo keeps changing: compare with the API until a moment where both agree.
  await expect
    .poll(async () => {
      const [want, shown] = await Promise.all([apiNodes(baseURL!).then((p) => allNodes(p).filter((n) => (n.total.free ?? -1) >= 8).map((n) => n.name).sort()), shownNodes(page)]);
      return JSON.stringify(shown) === JSON.stringify(want) ? 'equal' : `${JSON.stringify(shown)} vs ${JSON.stringify(want)}`;
    })
    .toBe('equal');
  for (const free of await page.getByTestId('node-free').allTextContents()) expect(Number(free)).toBeGreaterThanOrEqual(8);
  // The filter survives a reload.
  await page.reload();
  await expect(page.getByLabel('Minimum free GPUs')).toHaveValue('8');
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(page).not.toHaveURL(/minFree/);
});

test("the totals strip shows the cluster's GPU capacity, equal to the sum GET /api/nodes reports", async ({ page, baseURL }) => {
  await page.goto('/');
  await expect(page.getByTestId('connection')).toHaveText(/Live/);
  const strip = page.getByTestId('totals');
  await expect(strip.getByTestId('cluster-capacity')).toBeVisible();
  // Shown as the dashboard shows GPU amounts: at most two decimals (MIG slices are fractions of a GPU).
  const sum = (p: NodesPayload, k: 'capacity' | 'allocatable') => Math.round(p.clusters.reduce((a, c) => a + (c.total?.[k] ?? 0), 0) * 100) / 100;
  await expect
    .poll(async () => {
      const api = await apiNodes(baseURL!);
      const shown = { capacity: Number(await strip.getByTestId('cluster-capacity-total').textContent()), allocatable: Number(await strip.getByTestId('cluster-allocatable').textContent()) };
      const want = { capacity: sum(api, 'capacity'), allocatable: sum(api, 'allocatable') };
      return JSON.stringify(shown) === JSON.stringify(want) && want.capacity > 0 ? 'equal' : `${JSON.stringify(shown)} vs ${JSON.stringify(want)}`;
    })
    .toBe('equal');
  // Allocated and free are numbers too (the pods can be listed), and free never exceeds allocatable.
  const free = Number(await strip.getByTestId('cluster-free').textContent());
  expect(free).toBeGreaterThanOrEqual(0);
  expect(free).toBeLessThanOrEqual(Number(await strip.getByTestId('cluster-allocatable').textContent()));
});

test("a workload page links each pod's node to the nodes view, which shows that node and the workload on it", async ({ page, baseURL }) => {
  const row = (await apiRows(baseURL!, `namespace=${NS}`)).rows.find((r) => r.name === PROBE)!;
  await page.goto(`/workloads/${encodeURIComponent(row.cluster)}/${NS}/JobSet.jobset.x-k8s.io/${PROBE}`);
  const link = page.getByRole('table', { name: 'Pods' }).getByRole('link').first();
  await expect(link).toBeVisible();
  const nodeName = (await link.textContent())!.trim();
  await link.click();
  await expect(page).toHaveURL(new RegExp(`/nodes\\?node=${nodeName}`));
  await expect(page.getByTestId('node-filter-chip')).toContainText(nodeName);
  await expect.poll(async () => JSON.stringify(await shownNodes(page))).toBe(JSON.stringify([nodeName]));
  await expect(page.getByTestId('node-row').getByRole('link', { name: `${NS}/${PROBE}` })).toBeVisible();
  await page.getByRole('button', { name: 'Show every node' }).click();
  await expect.poll(async () => (await shownNodes(page)).length).toBeGreaterThan(1);
});
