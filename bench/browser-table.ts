/**
 * Browser benchmark of the workloads table with 10,000 workloads, in Debian's Chromium:
 * time to first row, time to fully loaded (every row in the table, totals shown), and the latency
 * of filtering and sorting (input event → DOM updated, and → next frame painted).
 *
 *   node --import tsx bench/browser-table.ts [--workloads 10000] [--source scale|pods] [--url http://127.0.0.1:3000]
 *
 * `--source scale` (default) runs the simulated cluster's `scale` scenario and serves the app
 * against it; `--source pods` (fallback while no scale scenario exists) starts the demo with test
 * hooks and creates that many bare pods, each a workload. `--url` measures an already running app.
 */
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GIVEN_URL, arg, cleanup, freePort, run, waitFor } from './app-process.ts';
import { chromium } from '@playwright/test';

const WORKLOADS = Number(arg('workloads', '10000'));
const SOURCE = arg('source', 'scale');


async function total(url: string): Promise<number> {
  const r = await fetch(`${url}/api/workloads?limit=1`);
  return ((await r.json()) as { total: number }).total;
}

async function startScale(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'wmap-bench-'));
  const kubeconfig = join(dir, 'kubeconfig');
  run(['bin/wmap.cjs', 'sim', '--scenario', 'scale', '--workloads', String(WORKLOADS), '--pods', String(WORKLOADS * 10), '--nodes', String(Math.max(10, WORKLOADS / 5)), '--churn', '0', '--kubeconfig', kubeconfig]);
  await waitFor('the scale scenario', async () => (existsSync(kubeconfig) && readFileSync(kubeconfig, 'utf8').includes('server:') ? true : null), 120_000);
  const port = await freePort();
  run(['scripts/start.mjs', '--port', String(port), '--kubeconfig', kubeconfig]);
  return `http://127.0.0.1:${port}`;
}

async function startPods(): Promise<string> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  run(['scripts/start.mjs', '--demo', '--port', String(port)], { WMAP_TEST_HOOKS: '1' });
  await waitFor('the server', async () => ((await fetch(`${url}/api/clusters`)).ok ? true : null), 240_000);
  const hook = async (action: string, args: Record<string, unknown>) => {
    const r = await fetch(`${url}/api/test-hooks`, { method: 'POST', headers: { 'content-type': 'application/json', origin: url }, body: JSON.stringify({ action, args }) });
    if (!r.ok && r.status !== 409) throw new Error(`${action}: ${r.status} ${await r.text()}`);
  };
  const namespaces = 40;
  for (let n = 0; n < namespaces; n++) await hook('create', { object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `bench-${n}` } } }).catch(() => undefined);
  const t0 = Date.now();
  const gpus = [0, 1, 2, 4, 8];
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= WORKLOADS) return;
      const g = gpus[i % gpus.length];
      await hook('create', {
        object: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: `bench-${i}`, namespace: `bench-${i % namespaces}`, labels: { app: `bench-${i % 97}` } },
          spec: { containers: [{ name: 'main', image: 'busybox', resources: g ? { limits: { 'nvidia.com/gpu': g } } : { requests: { cpu: '10m' } } }] },
        },
      });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  console.log(`created ${WORKLOADS} pods in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return url;
}

async function main() {
  const tStart = Date.now();
  const url = GIVEN_URL ?? (SOURCE === 'pods' ? await startPods() : await startScale());
  const rows = await waitFor(
    `${WORKLOADS} workloads in the API`,
    async () => {
      const n = await total(url);
      return n >= WORKLOADS ? n : null;
    },
    600_000,
  );
  // Rows appear before all their pods are listed: wait until the pod count stops moving.
  let lastPods = -1;
  await waitFor(
    'the pod count to settle',
    async () => {
      const rs = ((await (await fetch(`${url}/api/workloads?limit=50000`)).json()) as { rows: Array<{ pods: { total: number } }> }).rows;
      const pods = rs.reduce((a, r) => a + r.pods.total, 0);
      const settled = pods > 0 && pods === lastPods;
      lastPods = pods;
      return settled ? pods : null;
    },
    600_000,
  );
  console.log(`server ready with ${rows} workloads and ${lastPods} pods after ${((Date.now() - tStart) / 1000).toFixed(1)} s (${url})`);
  // What the data looks like, so the filter cases below narrow to something.
  const all = ((await (await fetch(`${url}/api/workloads?limit=50000`)).json()) as { rows: Array<{ namespace: string; gpus: { allocated: number; requested: number } }> }).rows;
  const byNs = new Map<string, number>();
  for (const r of all) byNs.set(r.namespace, (byNs.get(r.namespace) ?? 0) + 1);
  const term = [...byNs.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'a';
  const gpuRows = all.filter((r) => r.gpus.allocated > 0).length;
  console.log(`  ${byNs.size} namespaces; ${gpuRows} workloads hold GPUs (${all.reduce((a, r) => a + r.gpus.allocated, 0)} allocated, ${all.reduce((a, r) => a + r.gpus.requested, 0)} requested)`);

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  try {
    const results: Array<[string, string]> = [];
    for (let round = 0; round < 2; round++) {
      const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      const page = await ctx.newPage();
      // Record, in page time (ms since navigation start), when the first row and all rows show.
      await page.addInitScript((expected: number) => {
        const w = window as unknown as { __firstRow?: number; __allRows?: number };
        const obs = new MutationObserver(() => {
          if (w.__firstRow === undefined && document.querySelector('[data-row-id]')) w.__firstRow = performance.now();
          const grid = document.querySelector('[data-testid="workload-table"]');
          if (w.__allRows === undefined && grid && Number(grid.getAttribute('data-rows')) >= expected) {
            w.__allRows = performance.now();
            obs.disconnect();
          }
        });
        document.addEventListener('DOMContentLoaded', () => obs.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-rows'] }));
      }, rows);
      await page.goto(url);
      await page.waitForFunction(() => (window as unknown as { __allRows?: number }).__allRows !== undefined, null, { timeout: 120_000 });
      const t = await page.evaluate(() => {
        const w = window as unknown as { __firstRow: number; __allRows: number };
        const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
        const marks = Object.fromEntries(performance.getEntriesByType('mark').filter((m) => m.name.startsWith('wmap:')).map((m) => [m.name.slice(5), Math.round(m.startTime)]));
        return { first: w.__firstRow, all: w.__allRows, dcl: nav.domContentLoadedEventEnd, marks };
      });
      // Each round is a fresh browser context (empty cache); the second one meets a warmed-up server.
      const label = round === 0 ? 'first visit' : 'second visit';
      results.push([`time to first row (${label})`, `${t.first.toFixed(0)} ms`]);
      results.push([`time to fully loaded, ${rows} rows (${label})`, `${t.all.toFixed(0)} ms`]);
      results.push([`  where (${label}, ms since navigation start)`, `DOMContentLoaded ${t.dcl.toFixed(0)}, ${Object.entries(t.marks).map(([k, v]) => `${k} ${v}`).join(', ')}`]);

      if (round === 1) {
        // Filter and sort latency: the event, then React's render, then the next painted frame.
        // Plain source text: the bundler that runs this script would wrap named functions in helpers
        // that do not exist inside the page.
        const MEASURE = `async (a) => {
          const set = function (el, v) {
            const proto = el instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
            Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, v);
            el.dispatchEvent(new Event(el instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }));
          };
          const t0 = performance.now();
          const i = a.indexOf(':');
          const kind = a.slice(0, i);
          const value = a.slice(i + 1);
          if (kind === 'q') set(document.querySelector('#workload-search'), value);
          else if (kind === 'min') set(document.querySelector('input[aria-label="Minimum GPUs"]'), value);
          else if (kind === 'sort') Array.from(document.querySelectorAll('[role="columnheader"] button')).find((b) => b.textContent.trim().startsWith(value)).click();
          else if (kind === 'cel') {
            set(document.querySelector('#cel-input'), value);
            document.querySelector('#cel-filter form').requestSubmit();
          }
          const rendered = performance.now() - t0;
          await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
          const painted = performance.now() - t0;
          const shown = document.querySelector('[data-testid="total-workloads"]').textContent;
          return { rendered, painted, shown };
        }`;
        const measure = (action: string) => page.evaluate(`(${MEASURE})(${JSON.stringify(action)})`) as Promise<{ rendered: number; painted: number; shown: string }>;
        const cases: Array<[string, string]> = [
          [`text filter "${term}"`, `q:${term}`],
          ['text filter cleared', 'q:'],
          ['GPU range min 1', 'min:1'],
          ['GPU range cleared', 'min:'],
          ['sort by name (desc)', 'sort:Name'],
          ['sort by GPUs allocated', 'sort:alloc'],
          ['sort by age', 'sort:Age'],
        ];
        for (const [name, action] of cases) {
          const m = await measure(action);
          results.push([`${name} → ${m.shown} rows`, `${m.rendered.toFixed(0)} ms render, ${m.painted.toFixed(0)} ms to next frame`]);
        }
        await page.getByRole('button', { name: 'CEL filter' }).click();
        for (const expr of ['gpus.requested >= 2 && status == "Running"', 'gpus.requested > gpus.allocated || age < 600']) {
          const m = await measure(`cel:${expr}`);
          results.push([`CEL ${expr} → ${m.shown} rows`, `${m.rendered.toFixed(0)} ms render, ${m.painted.toFixed(0)} ms to next frame`]);
        }
        // Scrolling the virtualized table: time per step to the next frame (an idle frame is ~16.7 ms).
        for (const step of [100, 2000]) {
          const sc = (await page.evaluate(`(async (step) => {
            const g = document.querySelector('[data-testid="workload-table"]');
            g.scrollTop = 0;
            const ts = [];
            for (let i = 0; i < 40; i++) {
              const t0 = performance.now();
              g.scrollTop += step;
              await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
              ts.push(performance.now() - t0);
            }
            ts.sort((a, b) => a - b);
            return { median: ts[20], p95: ts[38], dom: g.querySelectorAll('[data-row-id]').length };
          })(${step})`)) as { median: number; p95: number; dom: number };
          results.push([`scroll by ${step} px per frame (virtualized)`, `median ${sc.median.toFixed(0)} ms, p95 ${sc.p95.toFixed(0)} ms per step, ${sc.dom} rows in the DOM`]);
        }
      }
      await ctx.close();
    }
    console.log('');
    for (const [k, v] of results) console.log(`${k.padEnd(72)} ${v}`);
  } finally {
    await browser.close();
    cleanup();
  }
}

main().catch((e) => {
  console.error(e);
  cleanup();
  process.exit(1);
});
