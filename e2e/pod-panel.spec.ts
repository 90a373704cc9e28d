import { expect, test } from './fixtures.ts';
import { NS, apiRows, seed } from './seed.ts';
import { createJobSet, hooks } from './sim.ts';
import { startProxy } from './tcp-proxy.ts';

const PENDING = 'e2e-toolarge';

test.beforeAll(async ({ baseURL }) => {
  await seed(baseURL!);
  // 16 GPUs per pod on nodes of 8: the scheduler can never place it.
  await createJobSet(hooks(baseURL!), NS, PENDING, [{ name: 'worker', replicas: 1, gpus: 16 }]);
});

async function pageOf(baseURL: string, name: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const { rows } = await apiRows(baseURL, `namespace=${NS}`);
    const r = rows.find((x) => x.name === name && x.pods.total > 0);
    if (r) return `/workloads/${encodeURIComponent(r.cluster)}/${NS}/JobSet.jobset.x-k8s.io/${name}`;
    await new Promise((res) => setTimeout(res, 300));
  }
  throw new Error(`no row ${name}`);
}

test('a pod opens a panel with its containers and its live log, which keeps growing while followed', async ({ page, baseURL }) => {
  await page.goto(await pageOf(baseURL!, 'e2e-train'));
  await page.getByTestId('pod-open').first().click();
  const panel = page.getByTestId('pod-panel');
  await expect(panel).toBeVisible();
  await expect(page).toHaveURL(/[?&]pod=e2e-train-/);
  await expect(panel.getByTestId('pod-phase')).toContainText('Running');
  await expect(panel.getByTestId('pod-containers')).toContainText('main');
  await panel.getByTestId('pod-tab-logs').click();
  const log = panel.getByTestId('log-text');
  await expect(log).not.toBeEmpty();
  await expect(panel.getByTestId('log-follow')).toBeChecked();
  await expect(panel.getByTestId('log-status')).toContainText('following');
  const count = async () => ((await log.textContent()) ?? '').split('\n').filter(Boolean).length;
  const before = await count();
  await expect.poll(count, { timeout: 20_000 }).toBeGreaterThan(before);
  // YAML of the pod, then Back closes the panel.
  await panel.getByTestId('pod-tab-yaml').click();
  await expect(panel.getByTestId('pod-yaml')).toContainText('kind: Pod');
  await page.goBack();
  await expect(page.getByTestId('pod-panel')).toHaveCount(0);
});

test('a pending workload says why, in the scheduler\'s words, on the page, in the pod panel and in its events', async ({ page, baseURL }) => {
  await page.goto(await pageOf(baseURL!, PENDING));
  await expect(page.getByTestId('workload-why')).toContainText(/1 pod Unschedulable: 0\/\d+ nodes are available: .*Insufficient nvidia\.com\/gpu/);
  await expect(page.getByTestId('role-why')).toContainText('1 Unschedulable');
  // The timeline: FailedScheduling as a warning.
  const warning = page.getByRole('region', { name: /^Events/ }).locator('[data-testid="event"][data-type="Warning"]', { hasText: 'FailedScheduling' });
  await expect(warning.first()).toBeVisible({ timeout: 20_000 });
  await page.getByTestId('pod-open').first().click();
  const panel = page.getByTestId('pod-panel');
  await expect(panel.getByTestId('why-note')).toContainText('Unschedulable');
  await expect(panel.getByTestId('why-note')).toContainText('Insufficient nvidia.com/gpu');
  await panel.getByTestId('pod-tab-events').click();
  await expect(panel.getByTestId('event').filter({ hasText: 'FailedScheduling' }).first()).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('pod-panel')).toHaveCount(0);
});

test('the workload page dims what it shows while the stream is down, says so, and recovers', async ({ page, baseURL }) => {
  const proxy = await startProxy(new URL(baseURL!), Number(process.env.WMAP_E2E_PROXY_PORT));
  try {
    await page.goto(`${proxy.url}${await pageOf(baseURL!, 'e2e-train')}`);
    await expect(page.getByTestId('workload-name')).toHaveText('e2e-train');
    await expect(page.getByTestId('workload-body')).not.toHaveAttribute('data-stale', 'true');
    proxy.drop({ refuse: true });
    await expect(page.getByTestId('workload-stale')).toContainText('Not live: the connection to the server was lost', { timeout: 20_000 });
    await expect(page.getByTestId('workload-body')).toHaveAttribute('data-stale', 'true');
    proxy.restore();
    await expect(page.getByTestId('workload-stale')).toHaveCount(0, { timeout: 30_000 });
    await expect(page.getByTestId('workload-body')).not.toHaveAttribute('data-stale', 'true');
  } finally {
    await proxy.close();
  }
});
