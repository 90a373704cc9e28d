/**
 * Accessibility: axe-core (WCAG 2.0–2.2 A and AA rules) on every page of the dashboard, in the light
 * and the dark theme, once the page has settled (live data shown, graph laid out). A violation fails
 * the test with a readable list: the rule, why, and each offending element with axe's own summary
 * (for colour contrast: the colours and the ratio).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { NS, apiRows, seed } from './seed.ts';

test.beforeAll(async ({ baseURL }) => {
  await seed(baseURL!);
});

interface AxeNode {
  target: unknown[];
  html: string;
  failureSummary?: string;
}
interface AxeViolation {
  id: string;
  impact?: string | null;
  help: string;
  helpUrl: string;
  nodes: AxeNode[];
}

/**
 * One block per rule; within it, elements grouped by what axe says is wrong with them (for colour
 * contrast: the colours and the ratio), each group with a few of its selectors and one element's HTML.
 */
function report(violations: AxeViolation[]): string {
  return violations
    .map((v) => {
      const groups = new Map<string, AxeNode[]>();
      for (const n of v.nodes) {
        const why = (n.failureSummary ?? '').replace(/^Fix (any|all) of the following:\s*/gm, '').replace(/\s+/g, ' ').trim();
        groups.set(why, [...(groups.get(why) ?? []), n]);
      }
      const lines = [...groups].map(([why, nodes]) => {
        const targets = nodes.slice(0, 4).map((n) => `      ${n.target.map(String).join(' ')}`);
        const more = nodes.length > 4 ? [`      … and ${nodes.length - 4} more`] : [];
        return [`  ${nodes.length} × ${why}`, ...targets, ...more, `      e.g. ${nodes[0].html.slice(0, 240)}`].join('\n');
      });
      return [`${v.id} (${v.impact ?? 'n/a'}): ${v.help}, ${v.nodes.length} element(s) — ${v.helpUrl}`, ...lines].join('\n');
    })
    .join('\n\n');
}

type Theme = 'light' | 'dark';

/**
 * Documented temporary exclusions for parts of a page that another part of the product owns: each
 * names the rule, the theme(s) and a CSS selector that the offending elements match (checked on the
 * element itself, in the page), so that everything else on the page stays checked and a new
 * violation there still fails. Remove an entry once its elements pass.
 */
interface Exclusion {
  page: string;
  rule: string;
  themes: Theme[];
  selector: string;
  why: string;
}
const EXCLUSIONS: Exclusion[] = [];

/** The violations left once the exclusions for this page and theme are taken out. */
async function withoutExclusions(page: Page, pageName: string, theme: Theme, violations: AxeViolation[]): Promise<AxeViolation[]> {
  const out: AxeViolation[] = [];
  for (const v of violations) {
    const rules = EXCLUSIONS.filter((e) => e.page === pageName && e.rule === v.id && e.themes.includes(theme));
    if (rules.length === 0) {
      out.push(v);
      continue;
    }
    const excluded = await page.evaluate(
      ({ targets, selectors }) => targets.map((t) => selectors.some((sel) => document.querySelector(t)?.matches(sel) ?? false)),
      { targets: v.nodes.map((n) => String(n.target[n.target.length - 1])), selectors: rules.map((e) => e.selector) },
    );
    const nodes = v.nodes.filter((_, i) => !excluded[i]);
    if (nodes.length > 0) out.push({ ...v, nodes });
  }
  return out;
}

async function expectNoViolations(page: Page, pageName: string, theme: Theme) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']).analyze();
  const violations = await withoutExclusions(page, pageName, theme, results.violations as AxeViolation[]);
  // The whole answer next to the test's output, for whoever fixes what it found.
  if (violations.length > 0) {
    const file = test.info().outputPath('axe-violations.json');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(violations, null, 2));
  }
  expect(violations.map((v) => `${v.id}: ${v.nodes.length}`), `${pageName}: axe found violations\n\n${report(violations)}\n`).toEqual([]);
}

async function workloadPath(baseURL: string, name: string): Promise<string> {
  const { rows } = await apiRows(baseURL, `namespace=${NS}`);
  const r = rows.find((x) => x.name === name);
  if (!r) throw new Error(`no row ${name}`);
  return `/workloads/${encodeURIComponent(r.cluster)}/${NS}/JobSet.jobset.x-k8s.io/${name}`;
}

/** A pod of a seeded workload, from the workload's own API. */
async function firstPod(baseURL: string, name: string): Promise<string> {
  const path = await workloadPath(baseURL, name);
  const res = await fetch(`${baseURL}/api${path}`);
  const d = (await res.json()) as { tree: { pods: Array<{ name: string }> } };
  return d.tree.pods[0].name;
}

const PAGES: Array<{ name: string; path: (baseURL: string) => Promise<string>; settled(page: Page): Promise<void> }> = [
  {
    name: 'workloads',
    path: async () => '/',
    settled: async (page) => {
      await expect(page.getByTestId('connection')).toHaveText(/Live|Stale/);
      await expect(page.getByTestId('workload-table').getByRole('row').nth(1)).toBeVisible();
    },
  },
  {
    name: 'workloads, filtered (active chips, CEL box)',
    path: async () => `/?namespace=${NS}&preset=using&cel=${encodeURIComponent('gpus.allocated > 0')}`,
    settled: async (page) => {
      await expect(page.getByTestId('workload-table').getByRole('row').nth(1)).toBeVisible();
    },
  },
  {
    name: 'workload',
    path: (baseURL) => workloadPath(baseURL, 'e2e-train'),
    settled: async (page) => {
      await expect(page.getByTestId('workload-name')).toHaveText('e2e-train');
      await expect(page.getByTestId('structure-graph').locator('[data-node-type="pod"]').first()).toBeVisible();
    },
  },
  {
    // 1,001 pods: the pods list and the panels scroll.
    name: 'workload, large',
    path: (baseURL) => workloadPath(baseURL, 'e2e-wide'),
    settled: async (page) => {
      await expect(page.getByTestId('workload-name')).toHaveText('e2e-wide');
      await expect(page.getByTestId('structure-graph')).toBeVisible();
    },
  },
  {
    // The pod panel over the page: its overview, then its live log.
    name: 'workload, pod panel',
    path: async (baseURL) => `${await workloadPath(baseURL, 'e2e-train')}?pod=${encodeURIComponent(await firstPod(baseURL, 'e2e-train'))}`,
    settled: async (page) => {
      await expect(page.getByTestId('pod-panel').getByTestId('pod-containers')).toBeVisible();
    },
  },
  {
    name: 'workload, pod logs',
    path: async (baseURL) => `${await workloadPath(baseURL, 'e2e-train')}?pod=${encodeURIComponent(await firstPod(baseURL, 'e2e-train'))}`,
    settled: async (page) => {
      await page.getByTestId('pod-panel').getByTestId('pod-tab-logs').click();
      await expect(page.getByTestId('log-text')).not.toBeEmpty();
    },
  },
  {
    // An action's dialog over the page, with its preview (diff and the server dry run).
    name: 'workload, action dialog',
    path: (baseURL) => workloadPath(baseURL, 'e2e-train'),
    settled: async (page) => {
      await page.getByTestId('action-labels').click();
      const dialog = page.getByTestId('action-dialog');
      await dialog.getByTestId('action-lines').fill('team=a11y');
      await dialog.getByRole('button', { name: 'Preview' }).click();
      await expect(dialog.getByTestId('action-diff')).toBeVisible();
    },
  },
  {
    // The studio with a copy of the JobSet definition tried on a live JobSet: the editor, the form, the trial.
    name: 'studio',
    path: async (baseURL) => {
      const { rows } = await apiRows(baseURL, `namespace=${NS}`);
      const id = rows.find((r) => r.name === 'e2e-train')!.id;
      return `/studio?definition=jobset-x-k8s-io-jobset-v1alpha2&source=catalog&row=${encodeURIComponent(id)}`;
    },
    settled: async (page) => {
      await expect(page.getByTestId('trial-result').getByTestId('trial-verdict')).toBeVisible();
      await expect(page.getByTestId('studio-validity')).toContainText('Valid');
    },
  },
  {
    name: 'studio, start',
    path: async () => '/studio',
    settled: async (page) => {
      await expect(page.getByTestId('studio-start')).toBeVisible();
    },
  },
  {
    name: 'audit',
    path: async () => '/audit',
    settled: async (page) => {
      await expect(page.getByTestId('audit-table').or(page.getByTestId('audit-empty'))).toBeVisible();
    },
  },
  {
    name: 'definitions',
    path: async () => '/definitions',
    settled: async (page) => {
      await expect(page.getByRole('link', { name: 'jobset-x-k8s-io-jobset-v1alpha2' })).toBeVisible();
    },
  },
  {
    name: 'definition',
    path: async () => '/definitions/jobset-x-k8s-io-jobset-v1alpha2',
    settled: async (page) => {
      await expect(page.getByTestId('definition-yaml')).toBeVisible();
    },
  },
  {
    name: 'nodes',
    path: async () => '/nodes',
    settled: async (page) => {
      await expect(page.getByTestId('node-row').first()).toBeVisible();
    },
  },
];

for (const theme of ['light', 'dark'] as const) {
  for (const p of PAGES) {
    test(`axe: ${p.name} page, ${theme} theme`, async ({ page, baseURL }) => {
      // The theme follows the system unless one was chosen (components/ui/theme.ts): emulate the system.
      await page.emulateMedia({ colorScheme: theme, reducedMotion: 'reduce' });
      await page.goto(await p.path(baseURL!));
      if (theme === 'dark') await expect(page.locator('html')).toHaveClass(/dark/);
      else await expect(page.locator('html')).not.toHaveClass(/dark/);
      await p.settled(page);
      // Transitions and the graph's fit finish before axe reads colours.
      await page.waitForTimeout(500);
      await expectNoViolations(page, p.name.split(',')[0], theme);
    });
  }
}
