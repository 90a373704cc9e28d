import { expect, test } from './fixtures.ts';
import { NS, apiRows, seed } from './seed.ts';
import { createJobSet, hooks } from './sim.ts';

test.beforeAll(async ({ baseURL }) => {
  await seed(baseURL!);
});

async function pageOf(baseURL: string, name: string): Promise<string> {
  const { rows } = await apiRows(baseURL, `namespace=${NS}`);
  const r = rows.find((x) => x.name === name);
  if (!r) throw new Error(`no row ${name}`);
  return `/workloads/${encodeURIComponent(r.cluster)}/${NS}/JobSet.jobset.x-k8s.io/${name}`;
}

test('the JobSet page shows the leader and worker structure with the right GPU count', async ({ page, baseURL }) => {
  await page.goto(await pageOf(baseURL!, 'e2e-train'));
  await expect(page.getByTestId('workload-name')).toHaveText('e2e-train');
  const graph = page.getByTestId('structure-graph');
  await expect(graph.getByTestId('node-workload')).toContainText('12 GPU');
  await expect(graph.getByTestId('node-i:replicatedjob/leader')).toContainText('1/1 pods');
  await expect(graph.getByTestId('node-i:replicatedjob/leader')).toContainText('4 GPU');
  await expect(graph.getByTestId('node-i:replicatedjob/worker')).toContainText('2/2 pods');
  await expect(graph.getByTestId('node-i:replicatedjob/worker')).toContainText('8 GPU');
  await expect(graph.locator('[data-node-type="pod"]')).toHaveCount(3);
  // Owners left of what they own.
  const x = async (id: string) => (await graph.getByTestId(id).boundingBox())!.x;
  expect(await x('node-workload')).toBeLessThan(await x('node-c:replicatedjob'));
  expect(await x('node-c:replicatedjob')).toBeLessThan(await x('node-i:replicatedjob/worker'));

  await expect(page.getByTestId('gpus-desired')).toHaveText('12');
  await expect(page.getByTestId('gpus-requested')).toHaveText('12');
  const roles = page.getByTestId('roles-table');
  await expect(roles.getByRole('row', { name: /leader/ })).toContainText('1 / 1');
  await expect(roles.getByRole('row', { name: /worker/ })).toContainText('2 / 2');
  await expect(page.getByTestId('gpu-table')).toContainText('12');
  await expect(page.getByRole('link', { name: 'jobset-x-k8s-io-jobset-v1alpha2' })).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('jobset.png'), fullPage: true });
});

test('a workload with 1,000 pods renders its big role collapsed', async ({ page, baseURL }) => {
  await page.goto(await pageOf(baseURL!, 'e2e-wide'));
  const graph = page.getByTestId('structure-graph');
  const group = graph.getByTestId('node-pods:i:replicatedjob/worker');
  await expect(group).toContainText('1,000 pods');
  await expect(graph.locator('[data-node-type="pod"]')).toHaveCount(1); // just the leader
  await expect(page.getByRole('heading', { name: /Pods \(1001\)/ })).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('wide.png') });
});

test('a collapsed role expands on click and collapses again', async ({ page, baseURL }) => {
  await page.goto(await pageOf(baseURL!, 'e2e-mid'));
  const graph = page.getByTestId('structure-graph');
  await expect(graph.getByTestId('node-pods:i:replicatedjob/worker')).toContainText('20 pods');
  await graph.getByRole('button', { name: 'Show 20 pods' }).click();
  await expect(graph.locator('[data-node-type="pod"]')).toHaveCount(21);
  await graph.getByRole('button', { name: 'Collapse pods' }).click();
  await expect(graph.locator('[data-node-type="pod"]')).toHaveCount(1);
});

test('the workload page follows the cluster live: suspended, then deleted', async ({ page, baseURL }) => {
  const hook = hooks(baseURL!);
  const name = `e2e-detail-${Date.now().toString(36)}`;
  await createJobSet(hook, NS, name, [{ name: 'worker', replicas: 2, gpus: 1 }]);
  await expect.poll(async () => (await apiRows(baseURL!, `namespace=${NS}`)).rows.find((r) => r.name === name)?.pods.total ?? 0).toBe(2);
  await page.goto(await pageOf(baseURL!, name));
  const graph = page.getByTestId('structure-graph');
  await expect(graph.getByTestId('node-c:replicatedjob')).toContainText('2/2 pods');
  await expect(graph.locator('[data-node-type="pod"]')).toHaveCount(2);

  await hook('merge', { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', namespace: NS, name, set: { spec: { suspend: true } } });
  await expect(page.getByTestId('workload-status')).toHaveText(/Suspend/);
  await expect(graph.locator('[data-node-type="pod"]')).toHaveCount(0);
  await expect(page.getByTestId('gpus-requested')).toHaveText('0');

  await hook('delete', { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', namespace: NS, name });
  await expect(page.getByRole('alert').filter({ hasText: 'was deleted' })).toBeVisible();
});

test('the definitions page lists the catalog and links to a definition with its components', async ({ page }) => {
  await page.goto('/definitions');
  const table = page.getByTestId('definitions-table');
  const jobset = table.getByRole('row', { name: /jobset-x-k8s-io-jobset-v1alpha2/ });
  await expect(jobset).toContainText('valid');
  await jobset.getByRole('link', { name: 'jobset-x-k8s-io-jobset-v1alpha2' }).click();
  await expect(page.getByRole('heading', { name: 'jobset-x-k8s-io-jobset-v1alpha2' })).toBeVisible();
  await expect(page.getByTestId('definition-yaml')).toContainText('kind: Karta');
  await expect(page.getByTestId('node-d:replicatedjob')).toBeVisible();
});
