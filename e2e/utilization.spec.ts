/**
 * GPU utilization in the dashboard, on the demo scenario: the simulated cluster runs NVIDIA's DCGM
 * exporter on every GPU node, and `npm start --demo` a real Prometheus scraping them when the binary is
 * installed (source "Prometheus", with history); without it the server reads the exporters directly
 * (source "DCGM exporters", no history). The tests ask the server which and expect accordingly.
 * The demo holds an idle notebook (`research/notebook-alice`) and a disaggregated inference workload
 * whose decode role is saturated while prefill idles (`dynamo/vllm-disagg`); playwright.config.ts
 * makes readings refresh every 2 s and GPUs idle after 30 s. A workload on a GPU node that runs no
 * exporter shows "n/a", never 0.
 */
import type { Page } from '@playwright/test';
import type { ClusterInfo, ClusterUsage, NodesPayload, UsageHistory, WorkloadDetail } from '../contract/index.ts';
import { SOURCE_LABEL, utilizationTotals } from '../components/usage/usage-text.ts';
import { expect, test } from './fixtures.ts';
import { apiRows } from './seed.ts';
import { hooks, jobSet, ensureNamespace } from './sim.ts';

const NS = 'e2e-usage';
const DARK_NODE = 'e2e-dark-0';
const DARK = 'e2e-dark';
const NOTEBOOK = 'notebook-alice';
const DISAGG = 'vllm-disagg';
const DISAGG_PAGE = `/workloads/wmap-sim/dynamo/DynamoGraphDeployment.nvidia.com/${DISAGG}`;
const DECODE = 'VllmDecodeWorker';
const PREFILL = 'VllmPrefillWorker';

const table = (page: Page) => page.getByTestId('workload-table');
const rowByName = (page: Page, name: string) => table(page).getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });
const shownIds = (page: Page) => table(page).locator('[data-row-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-row-id') ?? '').sort());
async function clusterUsage(baseURL: string): Promise<ClusterUsage> {
  const clusters = (await (await fetch(`${baseURL}/api/clusters`)).json()) as ClusterInfo[];
  const u = clusters.find((c) => c.name === 'wmap-sim')?.usage;
  if (!u) throw new Error('the demo cluster reports no utilization');
  return u;
}
/** The title of a figure without readings, as the cluster's source words it. */
const noReadings = async (baseURL: string) => `No readings for its GPU pod (source: ${SOURCE_LABEL[(await clusterUsage(baseURL)).source]})`;
const apiIds = async (baseURL: string, query: string) => (await apiRows(baseURL, query)).rows.map((r) => r.id).sort();

test.beforeAll(async ({ baseURL }) => {
  // The server finds the exporters when it starts and looks again every few minutes: exporter pods
  // that were still starting then are read from the next look on. Wait for the demo's marked workloads.
  test.setTimeout(480_000);
  const hook = hooks(baseURL!);
  // A GPU node without `nvidia.com/gpu.present`, so no exporter runs there; tainted, so only our workload lands on it.
  try {
    await hook('create', {
      object: {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: DARK_NODE, labels: { 'kubernetes.io/hostname': DARK_NODE } },
        spec: { taints: [{ key: 'e2e/dark', value: 'true', effect: 'NoSchedule' }] },
        status: {
          capacity: { cpu: '16', memory: '64Gi', pods: '110', 'nvidia.com/gpu': '1' },
          allocatable: { cpu: '16', memory: '64Gi', pods: '110', 'nvidia.com/gpu': '1' },
          conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }],
        },
      },
    });
  } catch (e) {
    if (!/already exists|AlreadyExists|conflict/i.test(String(e))) throw e;
  }
  await ensureNamespace(hook, NS);
  const dark = jobSet(NS, DARK, [{ name: 'worker', replicas: 1, gpus: 1 }]) as { spec: { replicatedJobs: Array<{ template: { spec: { template: { spec: Record<string, unknown> } } } }> } };
  Object.assign(dark.spec.replicatedJobs[0].template.spec.template.spec, { nodeSelector: { 'kubernetes.io/hostname': DARK_NODE }, tolerations: [{ key: 'e2e/dark', operator: 'Exists', effect: 'NoSchedule' }] });
  try {
    await hook('create', { object: dark });
  } catch (e) {
    if (!/already exists|AlreadyExists|conflict/i.test(String(e))) throw e;
  }
  await expect
    .poll(
      async () => {
        const { rows } = await apiRows(baseURL!);
        const by = (name: string) => rows.find((r) => r.name === name);
        const ready = [
          (by(NOTEBOOK)?.usage?.idle ?? 0) > 0,
          by(DISAGG)?.usage?.utilization != null && (by(DISAGG)?.usage?.idle ?? 0) > 0,
          by(DARK)?.gpus.allocated === 1,
        ];
        return ready.every(Boolean) ? 'ready' : `waiting: notebook idle ${ready[0]}, disagg measured and idle ${ready[1]}, dark workload placed ${ready[2]}`;
      },
      { timeout: 450_000, intervals: [2000] },
    )
    .toBe('ready');
});

test('the table shows utilization, GPU memory and idle GPUs; a dash without GPUs, n/a without readings', async ({ page, baseURL }) => {
  await page.goto(`/?q=${NOTEBOOK}`);
  const notebook = rowByName(page, NOTEBOOK);
  await expect(notebook.getByTestId('cell-util')).toHaveText('0%');
  await expect(notebook.getByTestId('cell-memory')).toHaveText(/^\d+(\.\d)?\/\d+(\.\d)?Gi$/);
  // Idle is highlighted, with since when.
  await expect(notebook.getByTestId('cell-idle')).toHaveAccessibleName(/^1 idle GPU for \d+/);

  await page.goto('/?q=jupyter-hub');
  const cpuOnly = rowByName(page, 'jupyter-hub');
  await expect(cpuOnly.getByRole('gridcell', { name: 'Holds no allocated GPUs' })).toHaveCount(3);

  // No exporter on its node: unknown, never 0 — and the title says why.
  await page.goto(`/?q=${DARK}`);
  const dark = rowByName(page, DARK);
  await expect(dark.getByTestId('util-na')).toHaveCount(3);
  await expect(dark.getByTestId('util-na').first()).toHaveAttribute('title', await noReadings(baseURL!));
  await page.screenshot({ path: test.info().outputPath('dark.png') });
});

test('the idle and underused presets and the utilization range filter as the API does, from the URL', async ({ page, baseURL }) => {
  await page.goto('/');
  await expect(table(page).locator('[data-row-id]').first()).toBeVisible();

  // The presets are one choice (radio buttons, workloads.spec.ts checks their behaviour).
  const presets = page.getByRole('group', { name: 'GPU preset' });
  await presets.getByText('Idle GPUs').click();
  await expect(page).toHaveURL(/preset=idle/);
  await expect(presets.getByRole('radio', { name: 'Idle GPUs' })).toBeChecked();
  await expect.poll(async () => JSON.stringify(await shownIds(page)) === JSON.stringify(await apiIds(baseURL!, 'preset=idle'))).toBe(true);
  await expect(rowByName(page, NOTEBOOK)).toBeVisible();
  await expect(rowByName(page, DISAGG)).toBeVisible();
  // Unknown is not idle.
  await expect(rowByName(page, DARK)).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('idle.png') });

  await presets.getByText('Underused (< 30%)').click();
  await expect(page).toHaveURL(/preset=underused/);
  await expect(presets.getByRole('radio', { name: 'Idle GPUs' })).not.toBeChecked();
  await expect.poll(async () => JSON.stringify(await shownIds(page)) === JSON.stringify(await apiIds(baseURL!, 'preset=underused'))).toBe(true);
  await expect(rowByName(page, NOTEBOOK)).toBeVisible();
  await presets.getByText('All').click();
  await expect(page).not.toHaveURL(/preset=/);

  await page.getByLabel('Minimum utilization %').fill('90');
  await expect(page).toHaveURL(/minUtil=90/);
  await expect.poll(async () => JSON.stringify(await shownIds(page)) === JSON.stringify(await apiIds(baseURL!, 'minUtil=90'))).toBe(true);
  await expect(rowByName(page, NOTEBOOK)).toHaveCount(0);
  // Beyond 100 % is no percentage: not applied.
  await page.getByLabel('Maximum utilization %').fill('150');
  await expect(page).not.toHaveURL(/maxUtil/);
  await page.getByLabel('Maximum utilization %').fill('100');
  await expect(page).toHaveURL(/maxUtil=100/);

  await page.reload();
  await expect(page.getByLabel('Minimum utilization %')).toHaveValue('90');
  await expect(page.getByLabel('Maximum utilization %')).toHaveValue('100');
});

test('the Util and Idle headers sort the rows, unknown last', async ({ page, baseURL }) => {
  await page.goto('/');
  const header = table(page).getByRole('row').first();
  await header.getByRole('button', { name: 'Idle', exact: true }).click();
  await expect(page).toHaveURL(/sort=idle/);
  await expect(header.getByRole('columnheader', { name: 'Idle' })).toHaveAttribute('aria-sort', 'descending');
  // Most idle GPUs first: the first row is one with idle GPUs.
  await expect(table(page).locator('[data-row-id]').first().getByTestId('cell-idle')).toHaveAccessibleName(/idle GPU/);

  await header.getByRole('button', { name: 'Util', exact: true }).click();
  await expect(page).toHaveURL(/sort=utilization/);
  await expect(header.getByRole('columnheader', { name: 'Util' })).toHaveAttribute('aria-sort', 'ascending');
  const firstIds = async (query: string) => (await apiRows(baseURL!, query)).rows.slice(0, 5).map((r) => r.id);
  await expect
    .poll(async () => {
      const shown = await table(page).locator('[data-row-id]').evaluateAll((rows) => rows.map((r) => ({ id: r.getAttribute('data-row-id'), top: parseFloat((r as HTMLElement).style.top) })).sort((a, b) => a.top - b.top).slice(0, 5).map((r) => r.id));
      return JSON.stringify(shown) === JSON.stringify(await firstIds('sort=utilization'));
    })
    .toBe(true);
});

test('the totals strip says how much of what is allocated is used, and how many GPUs idle', async ({ page, baseURL }) => {
  await page.goto('/');
  await expect(page.getByTestId('total-utilization')).toHaveText(/^used \d+(\.\d)? of \d+(\.\d+)? (allocated|measured) GPUs \(\d+(\.\d)?%\)( · \d+(\.\d+)? idle)?$/);
  // The same words the API's totals give, at a moment both agree (the demo keeps changing).
  await expect
    .poll(async () => {
      const res = await fetch(`${baseURL}/api/workloads?limit=1`);
      const api = utilizationTotals(((await res.json()) as { totals: Parameters<typeof utilizationTotals>[0] }).totals).text;
      const shown = await page.getByTestId('total-utilization').textContent();
      return shown === api ? 'equal' : `${shown} vs ${api}`;
    })
    .toBe('equal');

  await page.goto(`/?q=${NOTEBOOK}`);
  await expect(page.getByTestId('total-utilization')).toHaveText('used 0 of 1 allocated GPUs (0%) · 1 idle');
  // Some GPUs without readings: used is out of what is measured.
  await page.goto(`/?cel=${encodeURIComponent(`name == "${NOTEBOOK}" || name == "${DARK}"`)}`);
  await expect(page.getByTestId('total-workloads')).toHaveText('2');
  await expect(page.getByTestId('total-utilization')).toHaveText('used 0 of 1 measured GPUs (0%) · 1 idle');
  await page.goto('/?q=jupyter-hub');
  await expect(page.getByTestId('total-utilization')).toHaveText('utilization n/a');
});

test('the header lists each cluster with its utilization source, freshness, coverage and idle rule', async ({ page, baseURL }) => {
  const api = await clusterUsage(baseURL!);
  await page.goto('/');
  await page.getByTestId('clusters-button').click();
  const item = page.getByRole('listitem', { name: 'Cluster wmap-sim' });
  await expect(item).toContainText('connected');
  const usage = item.getByTestId('cluster-usage');
  await expect(usage.getByTestId('usage-source')).toHaveText(`Utilization: ${SOURCE_LABEL[api.source]}`);
  expect(api.source, 'the demo has a source').not.toBe('none');
  await expect(usage.getByTestId('usage-source')).toHaveAttribute('title', api.detail);
  await expect(usage.getByTestId('usage-freshness')).toHaveText(/^readings \d+ s old$/);
  await expect(usage).toHaveAttribute('data-stale', 'false');
  await expect(usage.getByTestId('usage-coverage')).toHaveText(/^\d+ of \d+ GPU pods measured$/);
  await expect(usage.getByTestId('usage-idle-rule')).toHaveText('idle: < 5 % for 30 s');
  if (!api.history) await expect(usage).toContainText('current values only (no history)');
  await page.screenshot({ path: test.info().outputPath('clusters.png') });
  await page.keyboard.press('Escape');
  await expect(item).toBeHidden();
});

test('the workload page shows utilization per role, decode saturated and prefill idle, and the last hour', async ({ page, baseURL }) => {
  const api = await clusterUsage(baseURL!);
  await page.goto(DISAGG_PAGE);
  const panel = page.getByTestId('usage-panel');
  await expect(panel.getByTestId('cluster-usage')).toHaveAttribute('data-source', api.source);
  await expect(panel.getByTestId('workload-usage')).toContainText(/\d+(\.\d+)? idle for/);
  const roles = panel.getByRole('table', { name: 'Utilization by role' });
  const decode = roles.getByRole('row', { name: new RegExp(DECODE) });
  const prefill = roles.getByRole('row', { name: new RegExp(PREFILL) });
  await expect(decode.getByLabel(`Utilization of ${DECODE}`)).toHaveText(/^(9[5-9]|100)%$/);
  await expect(prefill.getByLabel(`Utilization of ${PREFILL}`)).toHaveText('0%');
  await expect(prefill.getByTestId('idle-gpus')).toHaveText(/^2 idle for/);
  if (api.history) {
    // Prometheus: one line per GPU role over the last hour, drawn under the page's CSP (the fixture fails on a violation).
    const chart = panel.getByTestId('usage-history');
    await expect(chart.locator('.recharts-line')).toHaveCount(2);
    await expect(chart.getByTestId('usage-history-summary')).toContainText(`${DECODE}: now`);
    await expect(chart.getByTestId('usage-history-summary')).toContainText(`${PREFILL}: now 0%`);
  } else {
    // No Prometheus: the endpoint's reason instead of a chart.
    await expect(panel.getByTestId('usage-history-reason')).toContainText('the DCGM exporters are read directly');
  }

  // The structure graph: utilization on the nodes that show GPUs, idle marks on prefill.
  const graph = page.getByTestId('structure-graph');
  await expect(graph.getByTestId('node-workload').getByTestId('node-util')).toHaveText(/^\d+(\.\d)?%$/);
  await expect(graph.locator('[data-node-type="pod"]').getByTestId('node-idle')).toHaveCount(2);
  await expect(graph.locator('[data-node-type="pod"]').getByTestId('node-util').filter({ hasText: /^(9[5-9]|100)%$/ })).toHaveCount(2);

  // The pods list: per pod, with each GPU in the title.
  const pods = page.getByRole('table', { name: 'Pods' });
  await expect(pods.getByTestId('pod-util')).toHaveCount(4);
  await expect(pods.getByTestId('pod-idle')).toHaveCount(2);
  await expect(pods.getByTestId('pod-util').first()).toHaveAttribute('title', /^GPU \d+.*: \d+%, /);
  await page.screenshot({ path: test.info().outputPath('disagg.png'), fullPage: true });
});

test('a workload without readings says n/a on its page', async ({ page, baseURL }) => {
  await page.goto(`/workloads/wmap-sim/${NS}/JobSet.jobset.x-k8s.io/${DARK}`);
  const panel = page.getByTestId('usage-panel');
  await expect(panel.getByTestId('workload-usage').getByTestId('util-na')).toHaveAttribute('title', await noReadings(baseURL!));
  await expect(panel.getByRole('table', { name: 'Utilization by role' }).getByRole('row', { name: /worker/ })).toContainText('n/a');
  await page.goto('/workloads/wmap-sim/research/Deployment.apps/jupyter-hub');
  await expect(page.getByTestId('usage-none')).toBeVisible();
});

test('the history chart draws one line per role and a gap where there were no readings (history stubbed)', async ({ page }) => {
  const end = Math.floor(Date.now() / 1000 / 30) * 30;
  const start = end - 3600;
  const points = (f: (i: number) => number | null): Array<[number, number | null]> => Array.from({ length: 121 }, (_, i) => [start + i * 30, f(i)]);
  const history: UsageHistory = {
    available: true,
    reason: null,
    start,
    end,
    stepSeconds: 30,
    series: [
      { role: DECODE, points: points(() => 99) },
      // A gap in the middle: no readings then.
      { role: PREFILL, points: points((i) => (i > 40 && i < 60 ? null : 2)) },
    ],
  };
  let historyCalls = 0;
  await page.route(
    (url) => url.pathname.endsWith(`/${DISAGG}/usage/history`),
    (route) => {
      historyCalls++;
      return route.fulfill({ json: history });
    },
  );
  await page.route(
    (url) => url.pathname === `/api${DISAGG_PAGE}`,
    async (route) => {
      const res = await route.fetch();
      const body = (await res.json()) as WorkloadDetail;
      if (body.usage) body.usage.history = true;
      await route.fulfill({ response: res, json: body });
    },
  );
  await page.goto(DISAGG_PAGE);
  const chart = page.getByTestId('usage-history');
  await expect(chart).toBeVisible();
  await expect(chart.locator('.recharts-line')).toHaveCount(2);
  await expect(chart.getByRole('img', { name: /^Utilization per role over the last hour/ })).toHaveAttribute('aria-label', `Utilization per role over the last hour: ${DECODE} now 99%, average 99%; ${PREFILL} now 2.0%, average 2.0%`);
  await expect(chart.getByTestId('usage-history-summary')).toContainText(`${PREFILL}: now 2.0%, hour average 2.0%`);
  // The gap is no line to 0: the prefill line is drawn in two pieces.
  await expect.poll(() => chart.locator('.recharts-line').nth(1).locator('path.recharts-curve').getAttribute('d').then((d) => (d?.match(/M/g) ?? []).length)).toBe(2);
  expect(historyCalls).toBeGreaterThan(0);
  await chart.screenshot({ path: test.info().outputPath('history.png') });
});

test('the nodes page shows every GPU: utilization, memory, MIG profile, holder and idle mark', async ({ page, baseURL }) => {
  const api = (await (await fetch(`${baseURL}/api/nodes`)).json()) as NodesPayload;
  const nodes = api.clusters.flatMap((c) => c.groups.flatMap((g) => g.nodes));
  const notebookNode = nodes.find((n) => n.gpuReadings?.some((g) => g.pod?.startsWith(`research/${NOTEBOOK}`)));
  expect(notebookNode, 'the notebook’s GPU is read').toBeTruthy();

  await page.goto('/nodes');
  const gpus = page.locator(`[data-testid="node-gpu-row"][data-node="${notebookNode!.name}"]`).getByRole('list', { name: `GPUs of ${notebookNode!.name}` });
  const notebookGpu = gpus.getByTestId('gpu-cell').filter({ hasText: NOTEBOOK });
  await expect(notebookGpu).toHaveAttribute('data-idle', 'true');
  await expect(notebookGpu).toContainText('0%');
  await expect(notebookGpu).toContainText('idle');
  await expect(notebookGpu).toHaveAttribute('aria-label', /^GPU \d+ .*: 0%, \d+(\.\d)?\/\d+(\.\d)?Gi, idle for .* · pod research\/notebook-alice/);
  await expect(gpus.getByTestId('gpu-cell')).toHaveCount(notebookNode!.gpuReadings!.length);

  // The MIG node lists its instances by profile.
  const mig = page.locator('[data-testid="node-gpu-row"][data-node="gpu-a100-mig-00"]');
  await expect(mig.getByTestId('gpu-cell').filter({ hasText: '1g.10gb' }).first()).toBeVisible();
  // No exporter on the dark node: n/a, not a grid of zeros.
  await expect(page.locator(`[data-testid="node-gpu-row"][data-node="${DARK_NODE}"]`).getByTestId('node-gpus-na')).toHaveText(`GPU utilization n/a: no readings for this node (source: ${SOURCE_LABEL[(await clusterUsage(baseURL!)).source]})`);
  await page.locator(`[data-testid="node-gpu-row"][data-node="${notebookNode!.name}"]`).screenshot({ path: test.info().outputPath('node-gpus.png') });
});
