/**
 * Acting on a workload from its page, in local mode (the kubeconfig's identity): every action is
 * previewed as a diff and a server dry run, then applied with the previewed resourceVersion; a
 * workload changed in between is "changed since you looked" and shows the new diff; the Audit page
 * lists every attempt, the refused one too.
 */
import { expect, test } from './fixtures.ts';
import { createJobSet, hooks } from './sim.ts';

const NS = 'e2e-act';
const page = (cluster: string, name: string) => `/workloads/${encodeURIComponent(cluster)}/${NS}/JobSet.jobset.x-k8s.io/${name}`;

async function clusterName(baseURL: string): Promise<string> {
  const r = (await (await fetch(`${baseURL}/api/clusters`)).json()) as Array<{ name: string }>;
  return r[0].name;
}

async function rootObject(baseURL: string, cluster: string, name: string): Promise<{ metadata: { resourceVersion: string; annotations?: Record<string, string> }; spec: { suspend?: boolean; replicatedJobs: Array<{ name: string; template: { spec: { template: { metadata?: { labels?: Record<string, string> }; spec: { containers: Array<{ name: string; image: string }> } } } } }> } }> {
  const res = await fetch(`${baseURL}/api/workloads/${encodeURIComponent(cluster)}/${NS}/JobSet.jobset.x-k8s.io/${name}`);
  return ((await res.json()) as { object: never }).object;
}

test('labels: preview shows the diff and the server dry run; apply writes them to every role\'s pod template', async ({ page: p, baseURL }) => {
  const hook = hooks(baseURL!);
  await createJobSet(hook, NS, 'act-labels', [{ name: 'leader', replicas: 1, gpus: 1 }, { name: 'worker', replicas: 2, gpus: 1 }]);
  const cluster = await clusterName(baseURL!);
  await p.goto(page(cluster, 'act-labels'));
  const bar = p.getByTestId('workload-actions');
  await expect(bar.getByTestId('action-labels')).toBeEnabled();
  // Not suspended: resume is offered disabled, saying why.
  await expect(bar.getByTestId('action-resume')).toBeDisabled();
  await expect(bar.getByTestId('action-resume')).toHaveAttribute('title', 'not suspended');
  await bar.getByTestId('action-labels').click();
  const dialog = p.getByTestId('action-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId('action-apply')).toBeDisabled();
  await dialog.getByTestId('action-lines').fill('team=e2e\n');
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await expect(dialog.getByTestId('action-summary')).toContainText('team=e2e');
  await expect(dialog.getByTestId('action-result')).toHaveAttribute('data-result', 'dry-run');
  await expect(dialog.getByTestId('action-diff')).toContainText(/\+\s+team: e2e/);
  await dialog.getByTestId('action-apply').click();
  await expect(dialog.getByTestId('action-result')).toHaveAttribute('data-result', 'applied');
  const o = await rootObject(baseURL!, cluster, 'act-labels');
  for (const rj of o.spec.replicatedJobs) expect(rj.template.spec.template.metadata?.labels?.team).toBe('e2e');
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
});

test('a workload changed between preview and apply is "changed since you looked": nothing is written, the new diff is shown', async ({ page: p, baseURL }) => {
  const hook = hooks(baseURL!);
  await createJobSet(hook, NS, 'act-conflict', [{ name: 'worker', replicas: 1, gpus: 1 }]);
  const cluster = await clusterName(baseURL!);
  await p.goto(page(cluster, 'act-conflict'));
  await p.getByTestId('workload-actions').getByTestId('action-image').click();
  const dialog = p.getByTestId('action-dialog');
  await dialog.getByTestId('action-image').fill('registry.example/trainer:v2');
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await expect(dialog.getByTestId('action-result')).toHaveAttribute('data-result', 'dry-run');
  const before = await rootObject(baseURL!, cluster, 'act-conflict');
  // Someone else changes the JobSet meanwhile.
  await hook('merge', { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', namespace: NS, name: 'act-conflict', set: { metadata: { annotations: { 'changed-by': 'someone-else' } } } });
  await expect.poll(async () => (await rootObject(baseURL!, cluster, 'act-conflict')).metadata.resourceVersion).not.toBe(before.metadata.resourceVersion);
  await dialog.getByTestId('action-apply').click();
  await expect(dialog.getByTestId('action-result')).toHaveAttribute('data-result', 'conflict');
  await expect(dialog.getByTestId('action-result')).toContainText('changed since you looked');
  expect((await rootObject(baseURL!, cluster, 'act-conflict')).spec.replicatedJobs[0].template.spec.template.spec.containers[0].image).not.toBe('registry.example/trainer:v2');
  // The preview is of the workload as it is now; applying it now works.
  await expect(dialog.getByTestId('action-result')).toHaveAttribute('data-result', 'conflict');
  await expect(dialog.getByTestId('action-apply')).toBeEnabled();
  await dialog.getByTestId('action-apply').click();
  await expect(dialog.getByTestId('action-result')).toHaveAttribute('data-result', 'applied');
  expect((await rootObject(baseURL!, cluster, 'act-conflict')).spec.replicatedJobs[0].template.spec.template.spec.containers[0].image).toBe('registry.example/trainer:v2');
  await p.keyboard.press('Escape');
  // The audit page lists both attempts.
  await p.goto('/audit');
  const table = p.getByTestId('audit-table');
  const attempts = (result: string) => table.getByRole('row').filter({ hasText: 'act-conflict' }).filter({ has: p.getByTestId('audit-result').getByText(result, { exact: true }) });
  await expect(attempts('conflict')).toHaveCount(1);
  await expect(attempts('applied')).toHaveCount(1);
});

test('suspend, then resume is offered; delete asks for the name and removes the workload with its pods', async ({ page: p, baseURL }) => {
  const hook = hooks(baseURL!);
  await createJobSet(hook, NS, 'act-suspend', [{ name: 'worker', replicas: 2, gpus: 1 }]);
  const cluster = await clusterName(baseURL!);
  await p.goto(page(cluster, 'act-suspend'));
  const bar = p.getByTestId('workload-actions');
  await bar.getByTestId('action-suspend').click();
  const dialog = p.getByTestId('action-dialog');
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await expect(dialog.getByTestId('action-diff')).toContainText(/\+\s+suspend: true/);
  await dialog.getByTestId('action-apply').click();
  await expect(dialog.getByTestId('action-result')).toHaveAttribute('data-result', 'applied');
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(p.getByTestId('workload-status')).toContainText(/Suspend/, { timeout: 30_000 });
  await expect(bar.getByTestId('action-resume')).toBeEnabled({ timeout: 40_000 });

  await bar.getByTestId('action-delete').click();
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await expect(dialog.getByRole('alert')).toContainText('type the workload\'s name (act-suspend) to confirm');
  await dialog.getByTestId('action-confirm').fill('act-suspend');
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await expect(dialog.getByTestId('action-preview')).toContainText('Deletes JobSet act-suspend');
  await dialog.getByTestId('action-apply').click();
  await expect(dialog.getByTestId('action-result')).toHaveAttribute('data-result', 'applied');
  await expect.poll(async () => (await fetch(`${baseURL}/api/workloads/${encodeURIComponent(cluster)}/${NS}/JobSet.jobset.x-k8s.io/act-suspend`)).status, { timeout: 30_000 }).toBe(404);
});
