import { expect, test } from './fixtures.ts';
import type { Page } from '@playwright/test';
import { NS, apiRows, seed } from './seed.ts';
import { createJobSet, hooks } from './sim.ts';
import { startProxy } from './tcp-proxy.ts';

test.beforeAll(async ({ baseURL }) => {
  await seed(baseURL!);
});

const table = (page: Page) => page.getByTestId('workload-table');
const rowByName = (page: Page, name: string) => table(page).getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });

async function shownTotals(page: Page) {
  const t = page.getByTestId('totals');
  return {
    workloads: Number(await t.getByTestId('total-workloads').textContent()),
    allocated: Number(await t.getByTestId('total-allocated').textContent()),
    requested: Number(await t.getByTestId('total-requested').textContent()),
    desired: Number(await t.getByTestId('total-desired').textContent()),
  };
}

function sums(rows: Array<{ gpus: { allocated: number; requested: number; desired: number } }>) {
  const r = (n: number) => Math.round(n * 100) / 100;
  return {
    workloads: rows.length,
    allocated: r(rows.reduce((a, x) => a + x.gpus.allocated, 0)),
    requested: r(rows.reduce((a, x) => a + x.gpus.requested, 0)),
    desired: r(rows.reduce((a, x) => a + x.gpus.desired, 0)),
  };
}

test('the table shows the workloads with the GPU totals the API reports', async ({ page, baseURL }) => {
  await page.goto('/');
  await expect(page.getByTestId('connection')).toHaveText(/Live/);
  await expect(rowByName(page, 'e2e-train')).toBeVisible();
  // The demo keeps changing: compare until a moment where both agree.
  await expect
    .poll(async () => {
      const [api, shown] = await Promise.all([apiRows(baseURL!), shownTotals(page)]);
      return JSON.stringify(shown) === JSON.stringify(sums(api.rows)) && api.total === shown.workloads ? 'equal' : `${JSON.stringify(shown)} vs ${JSON.stringify(sums(api.rows))}`;
    })
    .toBe('equal');
  const train = rowByName(page, 'e2e-train');
  await expect(train).toContainText('JobSet');
  await expect(train).toContainText('1 leader · 2 workers');
  await expect(train.getByRole('gridcell').nth(5)).toContainText('/ 12 / 12');
  await page.screenshot({ path: test.info().outputPath('workloads.png') });
});

test('the GPU range filter and a CEL filter narrow the rows and survive a reload', async ({ page, baseURL }) => {
  await page.goto('/');
  await expect(rowByName(page, 'e2e-train')).toBeVisible();

  await page.getByLabel('Minimum GPUs').fill('8');
  await expect(page).toHaveURL(/minGpus=8/);
  await expect
    .poll(async () => {
      const api = await apiRows(baseURL!, 'minGpus=8');
      return (await shownTotals(page)).workloads === api.total;
    })
    .toBe(true);
  await expect(rowByName(page, 'e2e-small')).toHaveCount(0);

  await page.getByLabel('GPU field for the range').selectOption('requested');
  await expect(page).toHaveURL(/gpuField=requested/);
  await page.getByRole('button', { name: 'CEL filter' }).click();
  await page.getByLabel('CEL').fill(`ns == "${NS}" && gpus.desired == 12 && name.startsWith("e2e-")`);
  await page.getByLabel('CEL').press('Enter');
  await expect(page).toHaveURL(/cel=/);
  await expect(page.getByTestId('total-workloads')).toHaveText('1');
  await expect(rowByName(page, 'e2e-train')).toBeVisible();
  await expect(table(page).getByRole('row')).toHaveCount(2); // header + one row

  await page.reload();
  await expect(page.getByLabel('Minimum GPUs')).toHaveValue('8');
  await expect(page.getByLabel('GPU field for the range')).toHaveValue('requested');
  await expect(page.getByLabel('CEL')).toHaveValue(`ns == "${NS}" && gpus.desired == 12 && name.startsWith("e2e-")`);
  await expect(page.getByTestId('total-workloads')).toHaveText('1');
  await expect(rowByName(page, 'e2e-train')).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('filtered.png') });

  // A broken expression says what is wrong and filters nothing.
  await page.getByLabel('CEL').fill('gpus.allocated >=');
  await page.getByLabel('CEL').press('Enter');
  await expect(page.getByRole('alert').filter({ hasText: 'not applied' })).toContainText('Unexpected token');
});

test('presets: waiting for GPUs shows only workloads asking for more than they hold', async ({ page, baseURL }) => {
  await page.goto('/?preset=waiting');
  await expect(page.getByRole('button', { name: 'Waiting for GPUs' })).toHaveAttribute('aria-pressed', 'true');
  await expect
    .poll(async () => {
      const api = await apiRows(baseURL!);
      return (await shownTotals(page)).workloads === api.rows.filter((r) => r.gpus.requested > r.gpus.allocated).length;
    })
    .toBe(true);
});

test('a change in the simulated cluster appears without a reload', async ({ page, baseURL }) => {
  const hook = hooks(baseURL!);
  const name = `e2e-live-${Date.now().toString(36)}`;
  await page.goto(`/?namespace=${NS}&sort=age`);
  await expect(rowByName(page, 'e2e-train')).toBeVisible();
  await page.evaluate(() => ((window as unknown as { __marker: number }).__marker = 42));

  await createJobSet(hook, NS, name, [{ name: 'worker', replicas: 1, gpus: 2 }]);
  const row = rowByName(page, name);
  await expect(row).toBeVisible();
  await expect(row.getByRole('gridcell').nth(5)).toContainText('/ 2 / 2');

  await hook('merge', { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', namespace: NS, name, set: { spec: { suspend: true } } });
  await expect(row.getByRole('gridcell').nth(4)).toHaveText(/Suspend/);

  await hook('delete', { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', namespace: NS, name });
  await expect(row).toHaveCount(0);
  // Same document all along: nothing reloaded.
  expect(await page.evaluate(() => (window as unknown as { __marker?: number }).__marker)).toBe(42);
});

test('rows inserted above do not move what the user is reading', async ({ page, baseURL }) => {
  const hook = hooks(baseURL!);
  await page.goto('/');
  await expect(rowByName(page, 'e2e-train')).toBeVisible();
  const grid = table(page);
  const box = (await grid.boundingBox())!;
  const topRow = () => page.evaluate(([x, y]) => (document.elementFromPoint(x, y)?.closest('[data-row-id]') as HTMLElement | null)?.dataset.rowId ?? null, [box.x + 300, box.y + 36 + 10]);
  await grid.evaluate((el) => (el.scrollTop = 44 * 5 + 10));
  await expect.poll(topRow).not.toBeNull();
  const before = await topRow();
  const count = Number(await grid.getAttribute('data-rows'));
  // Sorted by name, "a-…" lands above everything on screen.
  const name = `a-e2e-${Date.now().toString(36)}`;
  await createJobSet(hook, NS, name, [{ name: 'worker', replicas: 1, gpus: 0 }]);
  await expect(grid).toHaveAttribute('data-rows', String(count + 1));
  expect(await topRow()).toBe(before);
  await hook('delete', { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', namespace: NS, name });
  await expect(grid).toHaveAttribute('data-rows', String(count));
  expect(await topRow()).toBe(before);
});

test('a dropped stream shows "reconnecting" and then recovers to the server state', async ({ page, baseURL }) => {
  // The server lets this port's Host in (WMAP_ALLOWED_HOSTS in playwright.config.ts): a proxy is another authority.
  const proxy = await startProxy(new URL(baseURL!), Number(process.env.WMAP_E2E_PROXY_PORT));
  try {
    await page.goto(`${proxy.url}/?namespace=${NS}`);
    const indicator = page.getByTestId('connection');
    await expect(indicator).toHaveText(/Live/);
    await expect(rowByName(page, 'e2e-train')).toBeVisible();

    proxy.drop({ refuse: true });
    await expect(indicator).toHaveText(/reconnecting/i);
    await page.screenshot({ path: test.info().outputPath('reconnecting.png') });
    // While the browser is cut off, the cluster changes.
    const name = `e2e-missed-${Date.now().toString(36)}`;
    await createJobSet(hooks(baseURL!), NS, name, [{ name: 'worker', replicas: 1, gpus: 1 }]);
    await page.waitForTimeout(1500);
    await expect(rowByName(page, name)).toHaveCount(0);

    proxy.restore();
    await expect(indicator).toHaveText(/Live/, { timeout: 30_000 });
    await expect(rowByName(page, name)).toBeVisible();
    await hooks(baseURL!)('delete', { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', namespace: NS, name });
    await expect(rowByName(page, name)).toHaveCount(0);
  } finally {
    await proxy.close();
  }
});

test('keyboard: / focuses the search, arrows move, Enter opens', async ({ page }) => {
  await page.goto(`/?namespace=${NS}`);
  await expect(rowByName(page, 'e2e-train')).toBeVisible();
  await page.locator('body').press('/');
  await expect(page.getByLabel('Search workloads')).toBeFocused();
  await page.keyboard.type('e2e-train');
  await expect(page).toHaveURL(/q=e2e-train/);
  await expect(page.getByTestId('total-workloads')).toHaveText('1');
  await table(page).focus();
  await page.keyboard.press('ArrowDown');
  await expect(rowByName(page, 'e2e-train')).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/workloads\/[^/]+\/e2e\/JobSet\.jobset\.x-k8s\.io\/e2e-train$/);
  await expect(page.getByTestId('workload-name')).toHaveText('e2e-train');

  // Back to the table, by the page's link and by the browser: the filtered view is still there.
  await page.getByRole('link', { name: '← Workloads' }).click();
  await expect(page).toHaveURL(/q=e2e-train/);
  await expect(page.getByTestId('total-workloads')).toHaveText('1');
  await rowByName(page, 'e2e-train').getByRole('link').click();
  await expect(page.getByTestId('workload-name')).toHaveText('e2e-train');
  await page.goBack();
  await expect(page).toHaveURL(/q=e2e-train/);
  await expect(page.getByLabel('Search workloads')).toHaveValue('e2e-train');
  await expect(page.getByTestId('total-workloads')).toHaveText('1');
});

test('the theme follows the system and can be switched, and the choice is kept', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/definitions');
  const html = page.locator('html');
  await expect(html).toHaveClass(/dark/);
  const toggle = page.getByRole('button', { name: /theme/ });
  await expect(toggle).toHaveAccessibleName(/System theme/);
  await toggle.click();
  await expect(toggle).toHaveAccessibleName(/Light theme/);
  await expect(html).not.toHaveClass(/dark/);
  await page.reload();
  await expect(html).not.toHaveClass(/dark/);
  await page.getByRole('button', { name: /theme/ }).click();
  await expect(html).toHaveClass(/dark/);
  await page.getByRole('button', { name: /theme/ }).click();
  await expect(page.getByRole('button', { name: /theme/ })).toHaveAccessibleName(/System theme/);
});

// Keep this test last: the server waits two minutes before it asks again for a kind it was denied.
test('a kind the credentials may not list is a notice, not a silently shorter table', async ({ page, baseURL }) => {
  const hook = hooks(baseURL!);
  await page.goto('/');
  await expect(rowByName(page, 'e2e-train')).toBeVisible();
  try {
    await hook('faults', { errorRate: 1, errorCodes: [403], errorPathContains: '/statefulsets' });
    await hook('dropWatches');
    await expect(page.getByTestId('cluster-notices')).toContainText(/not allowed to list [^.]*statefulsets/, { timeout: 30_000 });
    await expect(rowByName(page, 'e2e-train')).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('forbidden.png') });
  } finally {
    await hook('faults', { errorRate: null, errorCodes: null, errorPathContains: null });
  }
});
