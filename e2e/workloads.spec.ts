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
  await expect(page.getByLabel('CEL')).toHaveAttribute('aria-invalid', 'true');

  // Typing a new draft: the old error leaves at once; after a pause the draft itself is checked.
  await page.getByLabel('CEL').press('End');
  await page.getByLabel('CEL').pressSequentially(' 8', { delay: 30 });
  await expect(page.getByTestId('cel-help').getByRole('alert')).toHaveCount(0);
  await expect(page.getByTestId('cel-help')).toContainText('Enter applies this expression in place of the current one.');
  await expect(page.getByLabel('CEL')).toHaveAttribute('aria-invalid', 'false');
  await page.getByLabel('CEL').fill('gpus.allocated >= 8 &&');
  await expect(page.getByTestId('cel-help').getByRole('alert')).toContainText('This draft is not valid');
});

test('the CEL help example on gpus.byResource filters as the API does, failing on no row', async ({ page, baseURL }) => {
  await page.goto(`/?namespace=${NS}`);
  await expect(rowByName(page, 'e2e-train')).toBeVisible();
  await page.getByRole('button', { name: 'CEL filter' }).click();
  const example = 'gpus.byResource.allocated[?"nvidia.com/gpu"].orValue(0) > 2';
  await expect(page.getByTestId('cel-help')).toContainText(example);
  await page.getByLabel('CEL').fill(example);
  await page.getByLabel('CEL').press('Enter');
  await expect(page).toHaveURL(/cel=/);
  const expected = (await apiRows(baseURL!, `namespace=${NS}`)).rows.filter((r) => (r.gpus.byResource.allocated['nvidia.com/gpu'] ?? 0) > 2).map((r) => r.name);
  expect(expected).toContain('e2e-train');
  await expect.poll(async () => (await table(page).locator('[data-row-id]').getByRole('link').allTextContents()).sort().join(',')).toBe(expected.sort().join(','));
  await expect(page.getByTestId('cel-help')).not.toContainText('Left out');
});

test('GPU presets are one choice: picking one replaces the other, All clears it', async ({ page }) => {
  await page.goto('/');
  await expect(table(page).locator('[data-row-id]').first()).toBeVisible();
  const presets = page.getByRole('group', { name: 'GPU preset' });
  await expect(presets.getByRole('radio')).toHaveCount(5);
  await expect(presets.getByRole('radio', { name: 'All' })).toBeChecked();
  await presets.getByText('Idle GPUs').click();
  await expect(page).toHaveURL(/preset=idle/);
  await expect(presets.getByRole('radio', { name: 'Idle GPUs' })).toBeChecked();
  await presets.getByText('Underused (< 30%)').click();
  await expect(page).toHaveURL(/preset=underused/);
  await expect(presets.getByRole('radio', { name: 'Idle GPUs' })).not.toBeChecked();
  await expect(presets.getByRole('radio', { checked: true })).toHaveCount(1);
  // Arrow keys move within the one choice, as in any radio group.
  await presets.getByRole('radio', { name: 'Underused (< 30%)' }).focus();
  await page.keyboard.press('ArrowLeft');
  await expect(page).toHaveURL(/preset=idle/);
  await presets.getByText('All').click();
  await expect(page).not.toHaveURL(/preset=/);
});

test('a negative GPU bound is shown invalid and not applied; min above max says so', async ({ page }) => {
  await page.goto(`/?namespace=${NS}`);
  await expect(rowByName(page, 'e2e-train')).toBeVisible();
  const max = page.getByLabel('Maximum GPUs');
  await max.fill('8');
  await expect(page).toHaveURL(/maxGpus=8/);
  await max.fill('-3');
  await expect(max).toHaveAttribute('aria-invalid', 'true');
  await expect(max).toHaveAccessibleDescription(/Maximum GPUs: -3 is below 0, so it is not applied \(8 is still in use\)/);
  await expect(page.getByTestId('filter-problems')).toHaveText('Maximum GPUs: -3 is below 0, so it is not applied (8 is still in use).');
  await expect(page).toHaveURL(/maxGpus=8/);
  await page.screenshot({ path: test.info().outputPath('invalid-max.png') });
  await max.fill('4');
  await expect(max).toHaveAttribute('aria-invalid', 'false');
  await expect(page.getByTestId('filter-problems')).toHaveCount(0);
  await expect(page).toHaveURL(/maxGpus=4/);

  await page.getByLabel('Minimum GPUs').fill('10');
  await expect(page).toHaveURL(/minGpus=10/);
  await expect(page.getByTestId('filter-problems')).toHaveText('GPU range: the minimum 10 is above the maximum 4, so no workload can match.');
  await expect(page.getByLabel('Minimum GPUs')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByTestId('table-placeholder')).toContainText('This range is empty');
  await expect(page.getByTestId('table-placeholder')).toContainText('the minimum 10 is above the maximum 4');
  await page.screenshot({ path: test.info().outputPath('empty-range.png') });
});

test('Back undoes a filter, one typed word at a time, and never leaves the app', async ({ page }) => {
  await page.goto(`/?namespace=${NS}`);
  await expect(rowByName(page, 'e2e-train')).toBeVisible();
  const search = page.getByLabel('Search workloads');
  await search.pressSequentially('e2e-train', { delay: 40 });
  await expect(page).toHaveURL(/q=e2e-train/);
  await page.getByRole('group', { name: 'GPU preset' }).getByText('Using GPUs').click();
  await expect(page).toHaveURL(/preset=using/);

  await page.goBack();
  await expect(page).toHaveURL(/q=e2e-train/);
  await expect(page).not.toHaveURL(/preset=/);
  await expect(page.getByRole('radio', { name: 'All' })).toBeChecked();
  // The whole word was one entry.
  await page.goBack();
  await expect(page).toHaveURL(new RegExp(`/\\?namespace=${NS}$`));
  await expect(search).toHaveValue('');
  await expect(rowByName(page, 'e2e-small')).toBeVisible();
  await page.goForward();
  await expect(search).toHaveValue('e2e-train');
  await expect(page.getByTestId('total-workloads')).toHaveText('1');
});

test('the header link returns to the filtered view', async ({ page }) => {
  await page.goto(`/?namespace=${NS}&q=e2e-train`);
  await expect(page.getByTestId('total-workloads')).toHaveText('1');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Definitions' }).click();
  await expect(page).toHaveURL(/\/definitions$/);
  const link = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Workloads' });
  await expect(link).toHaveAttribute('href', `/?q=e2e-train&namespace=${NS}`);
  await link.click();
  await expect(page).toHaveURL(new RegExp(`/\\?q=e2e-train&namespace=${NS}$`));
  await expect(page.getByLabel('Search workloads')).toHaveValue('e2e-train');
  await expect(page.getByTestId('total-workloads')).toHaveText('1');
});

test('Back from a workload page focuses the row it was opened from, scrolled into view', async ({ page }) => {
  await page.goto('/');
  const grid = table(page);
  await expect(grid.locator('[data-row-id]').first()).toBeVisible();
  await grid.focus();
  await page.keyboard.press('End');
  const last = grid.locator('[aria-selected="true"]');
  await expect(last).toHaveCount(1);
  const id = await last.getAttribute('data-row-id');
  expect(await grid.evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/workloads\//);
  await expect(page.getByTestId('workload-name')).toBeVisible();

  await page.goBack();
  const row = grid.locator(`[data-row-id="${id}"]`);
  await expect(row).toHaveAttribute('aria-selected', 'true');
  await expect(row).toBeInViewport();
  await expect(grid).toBeFocused();
  // Still the keyboard's place: one up from there is the row above.
  await page.keyboard.press('ArrowUp');
  await expect(row).toHaveAttribute('aria-selected', 'false');
});

test('a completed Job shows its pods as done, not as not ready; a pending one says why', async ({ page, baseURL }) => {
  const hook = hooks(baseURL!);
  const done = `e2e-done-${Date.now().toString(36)}`;
  const pending = `e2e-pending-${Date.now().toString(36)}`;
  await hook('create', {
    object: {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: done, namespace: NS },
      spec: {
        completions: 4,
        parallelism: 4,
        backoffLimit: 0,
        template: {
          metadata: { annotations: { 'sim.workload-map.io/duration': '1s' } },
          spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox:1.36', command: ['true'], resources: { requests: { cpu: '10m', memory: '16Mi' } } }] },
        },
      },
    },
  });
  // More GPUs than any node has: the scheduler cannot place it.
  await createJobSet(hook, NS, pending, [{ name: 'worker', replicas: 1, gpus: 64 }]);
  try {
    await expect.poll(async () => (await apiRows(baseURL!, `namespace=${NS}`)).rows.find((r) => r.name === done)?.pods.done ?? 0, { timeout: 60_000 }).toBe(4);
    await expect.poll(async () => (await apiRows(baseURL!, `namespace=${NS}`)).rows.find((r) => r.name === pending)?.why?.kind ?? null, { timeout: 60_000 }).toBe('unschedulable');

    await page.goto(`/?namespace=${NS}`);
    const doneRow = rowByName(page, done);
    await expect(doneRow.getByTestId('cell-pods')).toHaveText('4 done');
    await expect(doneRow.getByTestId('cell-pods')).toHaveAttribute('title', '0 ready of 4 pods, 4 finished successfully');
    await expect(doneRow.getByTestId('cell-pods').locator('.text-amber-800')).toHaveCount(0);
    await page.screenshot({ path: test.info().outputPath('done-and-pending.png') });

    const status = rowByName(page, pending).getByRole('gridcell').nth(4);
    await expect(status).toHaveAccessibleDescription(/^1 pod Unschedulable: 0\/\d+ nodes are available: /);
    await expect(status.locator('[title]').first()).toHaveAttribute('title', /^Why: 1 pod Unschedulable: 0\/\d+ nodes are available/);
  } finally {
    await hook('delete', { apiVersion: 'batch/v1', kind: 'Job', namespace: NS, name: done });
    await hook('delete', { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', namespace: NS, name: pending });
  }
});

test('presets: waiting for GPUs shows only workloads asking for more than they hold', async ({ page, baseURL }) => {
  await page.goto('/?preset=waiting');
  await expect(page.getByRole('radio', { name: 'Waiting for GPUs' })).toBeChecked();
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
    // What is shown is not live any more: dimmed, and said so.
    await expect(page.getByTestId('view-stale')).toContainText('Not live: the connection to the server was lost');
    await page.screenshot({ path: test.info().outputPath('stale.png') });
    await expect(table(page)).toHaveAttribute('data-stale', 'true');
    await expect(table(page)).toHaveAccessibleDescription(/Not live/);
    await page.screenshot({ path: test.info().outputPath('reconnecting.png') });
    // While the browser is cut off, the cluster changes.
    const name = `e2e-missed-${Date.now().toString(36)}`;
    await createJobSet(hooks(baseURL!), NS, name, [{ name: 'worker', replicas: 1, gpus: 1 }]);
    await page.waitForTimeout(1500);
    await expect(rowByName(page, name)).toHaveCount(0);

    proxy.restore();
    await expect(indicator).toHaveText(/Live/, { timeout: 30_000 });
    await expect(page.getByTestId('view-stale')).toHaveCount(0);
    await expect(table(page)).not.toHaveAttribute('data-stale', 'true');
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
