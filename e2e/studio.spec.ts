/**
 * The definition studio end to end: a kind no definition describes (a TrainingRun of a CRD the tests
 * install, with its pods) is one row without roles; from its page the studio drafts a definition,
 * tries it on the live object (agreeing with kubectl's raw view), registers it in the cluster as a
 * Karta through the write path, and the table's row switches to it live.
 */
import type { WorkloadRow } from '../contract/index.ts';
import { expect, test } from './fixtures.ts';
import { apiRows } from './seed.ts';
import { ensureGpuNodes, ensureNamespace, hooks } from './sim.ts';

const NS = 'e2e-studio';
const ROLE = 'ml.example.com/role';

function template(container: string, gpus: number) {
  return { metadata: { labels: { app: 'tr-1' } }, spec: { containers: [{ name: container, image: 'registry.example/train:1', resources: gpus ? { limits: { 'nvidia.com/gpu': String(gpus) } } : { requests: { cpu: '1' } } }] } };
}

async function install(baseURL: string): Promise<void> {
  const hook = hooks(baseURL);
  await ensureGpuNodes(hook, 1, 8, 'e2e-studio-gpu');
  await ensureNamespace(hook, NS);
  const create = async (o: Record<string, unknown>) => {
    try {
      return (await hook('create', { object: o })) as { metadata: { uid: string } };
    } catch (e) {
      if (/already exists|AlreadyExists|conflict/i.test(String(e))) return null;
      throw e;
    }
  };
  await create({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'trainingruns.ml.example.com' },
    spec: {
      group: 'ml.example.com',
      names: { kind: 'TrainingRun', plural: 'trainingruns', singular: 'trainingrun', listKind: 'TrainingRunList' },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }, subresources: { status: {} } }],
    },
  });
  await expect.poll(async () => {
    try {
      await hook('list', { apiVersion: 'ml.example.com/v1', kind: 'TrainingRun' });
      return true;
    } catch {
      return false;
    }
  }).toBe(true);
  const run = await create({
    apiVersion: 'ml.example.com/v1',
    kind: 'TrainingRun',
    metadata: { name: 'tr-1', namespace: NS },
    spec: { launcher: { replicas: 1, template: template('launcher', 0) }, workers: { replicas: 2, template: template('trainer', 2) } },
    status: { conditions: [{ type: 'Running', status: 'True', reason: 'AllPodsRunning' }] },
  });
  if (!run) return;
  const owner = [{ apiVersion: 'ml.example.com/v1', kind: 'TrainingRun', name: 'tr-1', uid: run.metadata.uid, controller: true, blockOwnerDeletion: true }];
  const pod = (name: string, role: string, container: string, gpus: number) =>
    create({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: NS, labels: { [ROLE]: role, 'ml.example.com/run': 'tr-1' }, ownerReferences: owner }, spec: { ...template(container, gpus).spec, nodeSelector: { 'kubernetes.io/hostname': 'e2e-studio-gpu-0' } } });
  await pod('tr-1-launcher-0', 'launcher', 'launcher', 0);
  await pod('tr-1-worker-0', 'worker', 'trainer', 2);
  await pod('tr-1-worker-1', 'worker', 'trainer', 2);
}

const rowOf = async (baseURL: string): Promise<WorkloadRow | undefined> => (await apiRows(baseURL, `namespace=${NS}`)).rows.find((r) => r.name === 'tr-1');

test('a kind no definition describes: draft a definition in the studio, try it, register it, and the row uses it', async ({ page, baseURL }) => {
  test.setTimeout(150_000);
  await install(baseURL!);
  const t0 = Date.now();
  await expect.poll(async () => (await rowOf(baseURL!))?.definition.source, { timeout: 90_000 }).toBe('none');
  test.info().annotations.push({ type: 'row-after-ms', description: String(Date.now() - t0) });
  const row = (await rowOf(baseURL!))!;
  expect(row.pods.total).toBe(3);
  await page.goto(`/workloads/${encodeURIComponent(row.cluster)}/${NS}/TrainingRun.ml.example.com/tr-1`);
  await page.getByTestId('draft-definition').click();
  await expect(page).toHaveURL(/\/studio\?draft=/);
  await expect(page.getByTestId('studio-origin')).toContainText('a draft from');
  await expect(page.getByTestId('studio-validity')).toContainText('Valid: TrainingRun');
  await expect(page.getByTestId('studio-guesses')).toBeVisible();
  // The draft, tried on the live object, agrees with what kubectl shows.
  const trial = page.getByTestId('trial-result');
  await expect(trial.getByTestId('trial-verdict')).toHaveText('agrees with kubectl');
  await expect(trial.getByTestId('trial-gpus')).toContainText('requested 4');
  await expect(trial.getByTestId('raw-gpus')).toContainText('3 pods · GPUs requested 4');

  // An error typed into the definition is marked at its line, and the trial says so.
  const editor = page.getByRole('textbox', { name: 'Definition YAML' });
  await editor.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('\nbogus: [');
  await expect(page.getByTestId('studio-validity')).toContainText(/error/);
  await expect(page.getByTestId('studio-errors')).toContainText(/line \d+/);
  for (let i = 0; i < '\nbogus: ['.length; i++) await page.keyboard.press('Backspace');
  await expect(page.getByTestId('studio-validity')).toContainText('Valid: TrainingRun');

  const reg = page.getByTestId('studio-register');
  await expect(reg.getByTestId('crd-state')).toContainText('current');
  await reg.getByTestId('register-preview-button').click();
  await expect(reg.getByTestId('register-result')).toHaveAttribute('data-result', 'dry-run');
  await expect(reg.getByTestId('register-preview')).toContainText(/create|Karta/);
  await reg.getByTestId('register-apply').click();
  await expect(reg.getByTestId('register-result')).toHaveAttribute('data-result', 'applied');

  // The server picks the new Karta up from the cluster, and the row switches to it.
  await expect.poll(async () => (await rowOf(baseURL!))?.definition.source, { timeout: 30_000 }).toBe('cluster');
  const served = (await rowOf(baseURL!))!;
  expect(served.gpus.desired).toBe(4);
  expect(served.roles).not.toBe(row.roles);
  await page.goto('/definitions');
  await expect(page.getByTestId('cluster-registry').first()).toContainText(served.definition.name);
});
