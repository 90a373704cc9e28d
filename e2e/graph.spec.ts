/**
 * The structure graph on the demo cluster: LWS groups (leader and workers together), natural
 * order, a big list that pages and a search that finds a pod in it, and pod selection by click
 * and by keyboard (the page marks it in its URL; the graph highlights the node).
 */
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { NS, apiRows, seed } from './seed.ts';
import { workloadHref } from '../components/workloads/workload-href.ts';

test.beforeAll(async ({ baseURL }) => {
  await seed(baseURL!);
});

async function pageOf(baseURL: string, namespace: string, name: string): Promise<string> {
  // The demo's workloads appear once the server has listed them.
  await expect.poll(async () => (await apiRows(baseURL, `namespace=${namespace}`)).rows.some((r) => r.name === name), { timeout: 60_000 }).toBe(true);
  const row = (await apiRows(baseURL, `namespace=${namespace}`)).rows.find((r) => r.name === name)!;
  return workloadHref(row);
}

async function box(l: Locator) {
  const b = await l.boundingBox();
  if (!b) throw new Error('not laid out');
  return b;
}

/** The pods drawn, in the order the graph lists them (React Flow keeps the model's order in the DOM). */
const podOrder = (page: Page) => page.getByTestId('structure-graph').locator('[data-node-type="pod"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-pod') ?? ''));

test('a LeaderWorkerSet shows each group as its leader with its workers, named by their StatefulSets', async ({ page, baseURL }) => {
  await page.goto(await pageOf(baseURL!, 'team-llm', 'vllm-405b'));
  const graph = page.getByTestId('structure-graph');
  const g0 = graph.getByTestId('node-g:c:group/0');
  const g1 = graph.getByTestId('node-g:c:group/1');
  await expect(g0).toContainText('group 0');
  await expect(g0).toContainText('StatefulSets vllm-405b, vllm-405b-0');
  await expect(g1).toContainText('StatefulSets vllm-405b, vllm-405b-1');
  // Group 0 holds the leader vllm-405b-0 and its worker vllm-405b-0-1, drawn inside it, leader first.
  const outer = await box(g0);
  const leader = await box(graph.getByTestId('node-p:team-llm/vllm-405b-0'));
  const worker = await box(graph.getByTestId('node-p:team-llm/vllm-405b-0-1'));
  for (const b of [leader, worker]) {
    expect(b.x).toBeGreaterThanOrEqual(outer.x);
    expect(b.y).toBeGreaterThanOrEqual(outer.y);
    expect(b.x + b.width).toBeLessThanOrEqual(outer.x + outer.width + 1);
    expect(b.y + b.height).toBeLessThanOrEqual(outer.y + outer.height + 1);
  }
  expect(leader.y).toBeLessThan(worker.y);
  await expect(graph.getByTestId('node-p:team-llm/vllm-405b-0')).toContainText('leader');
  await expect(graph.getByTestId('node-p:team-llm/vllm-405b-0-1')).toContainText('worker');
  // Groups in order, 0 above 1; the leader and worker StatefulSets are not drawn beside the groups.
  expect((await box(g0)).y).toBeLessThan((await box(g1)).y);
  expect(await podOrder(page)).toEqual(['vllm-405b-0', 'vllm-405b-0-1', 'vllm-405b-1', 'vllm-405b-1-1']);
  await expect(graph.getByTestId('node-c:leader')).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('lws-groups.png') });
});

test('pods are in natural order: worker 2 before worker 10, the leader first', async ({ page, baseURL }) => {
  await page.goto(await pageOf(baseURL!, NS, 'e2e-mid'));
  const graph = page.getByTestId('structure-graph');
  await graph.getByRole('button', { name: 'Show 20 pods' }).click();
  const names = await podOrder(page);
  expect(names).toHaveLength(21);
  const index = (n: string) => Number(/-worker-(\d+)-/.exec(n)?.[1] ?? -1);
  expect(names[0]).toMatch(/-leader-0-/);
  expect(names.slice(1).map(index)).toEqual(Array.from({ length: 20 }, (_, i) => i));
});

test('a big list pages through its pods, the search finds one anywhere, and a click selects it', async ({ page, baseURL }) => {
  await page.goto(await pageOf(baseURL!, NS, 'e2e-wide'));
  const graph = page.getByTestId('structure-graph');
  const list = graph.getByTestId('node-pods:i:replicatedjob/worker');
  await expect(list).toContainText('1,000 pods');
  await expect(list).toContainText('Running');
  await graph.getByRole('button', { name: 'Show 1,000 pods' }).click();
  await expect(list.getByTestId('page-position')).toHaveText('1–24 of 1,000');
  // The leader, and one page of the workers: the DOM holds what is shown, not 1,000 pods.
  await expect(graph.locator('[data-node-type="pod"]')).toHaveCount(25);
  const first = await podOrder(page);
  await list.getByRole('button', { name: /^Next page/ }).click();
  await expect(list.getByTestId('page-position')).toHaveText('25–48 of 1,000');
  const second = await podOrder(page);
  expect(second).toHaveLength(25);
  expect(second.slice(1).some((n) => first.includes(n))).toBe(false);
  await list.getByRole('button', { name: /^Previous page/ }).click();
  await expect(list.getByTestId('page-position')).toHaveText('1–24 of 1,000');

  const search = page.getByTestId('graph-search');
  await search.fill('worker-617-');
  await expect(page.getByTestId('graph-search-result')).toHaveText('1 pod matches');
  const found = graph.locator('[data-node-type="pod"]');
  await expect(found).toHaveCount(1);
  const name = (await found.getAttribute('data-pod'))!;
  expect(name).toMatch(/^e2e-wide-worker-617-/);
  await found.click();
  await expect(page).toHaveURL(new RegExp(`[?&]pod=${name}`));
  await expect(graph.getByTestId(`node-p:${NS}/${name}`)).toHaveAttribute('data-selected', 'true');
  // Clearing the search keeps the selected pod in view: its page opens.
  await search.fill('');
  await expect(graph.getByTestId(`node-p:${NS}/${name}`)).toHaveAttribute('data-selected', 'true');
  await expect(list.getByTestId('page-position')).toHaveText(/of 1,000$/);
});

test('pod nodes are buttons with accessible names, reached and activated from the keyboard', async ({ page, baseURL }) => {
  await page.goto(await pageOf(baseURL!, 'team-llm', 'vllm-405b'));
  const graph = page.getByTestId('structure-graph');
  // The name starts with what the node shows (label, then its role and phase), then says which pod it is.
  const leader = graph.getByRole('button', { name: /^vllm-405b-1 leader · .*; pod vllm-405b-1(,|$)/ });
  const worker = graph.getByRole('button', { name: /^vllm-405b-1-1 worker · .*; pod vllm-405b-1-1(,|$)/ });
  await expect(worker).toBeVisible();
  // Every node is a tab stop: from the leader, Tab reaches another node.
  await leader.focus();
  await page.keyboard.press('Tab');
  await expect(page.locator('.react-flow__node:focus')).toHaveCount(1);
  await expect(page.locator('.react-flow__node:focus')).not.toHaveAttribute('data-id', 'p:team-llm/vllm-405b-1');
  // Enter or Space on a pod selects it.
  await worker.focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/[?&]pod=vllm-405b-1-1(&|$)/);
  await expect(worker).toHaveAttribute('aria-pressed', 'true');
  await expect(graph.getByTestId('node-p:team-llm/vllm-405b-1-1')).toHaveAttribute('data-selected', 'true');
  await leader.focus();
  await page.keyboard.press(' ');
  await expect(page).toHaveURL(/[?&]pod=vllm-405b-1(&|$)/);
  await expect(leader).toHaveAttribute('aria-pressed', 'true');
  await expect(worker).toHaveAttribute('aria-pressed', 'false');
});
