/**
 * Browser benchmark of the workload page's structure graph at 2,000 and 10,000 pods, in Debian's
 * Chromium: time from the workload's detail data arriving to the graph being interactive, time to
 * expand its big list (median of 5), to turn a page and to find a pod with the search box, and the
 * DOM size after expanding (the whole page's and the graph's own).
 *
 *   node --import tsx bench/browser-graph.ts [--sizes 2000,10000] [--runs 5] [--url http://127.0.0.1:3000]
 *
 * Starts the app on the demo cluster with test hooks, adds GPU nodes, and creates in namespace
 * `bench-graph` a PyTorchJob of 2,000 pods (a master and 1,999 workers: one list of pods) and a
 * JobSet of 10,000 pods (2,500 Jobs of 4: a list of replica groups), 1 GPU each. Other sizes: a
 * size up to 5,000 is a PyTorchJob (its pods and their Services stay under the simulator's 10,000
 * children per owner), larger a JobSet of 4-pod Jobs. `--url` measures an already running app
 * (started with WMAP_TEST_HOOKS=1).
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GIVEN_URL, arg, cleanup, freePort, run, waitFor } from './app-process.ts';
import { chromium, type Page } from '@playwright/test';
import { workloadHref } from '../components/workloads/workload-href.ts';
import type { WorkloadRow } from '../contract/index.ts';

const SIZES = arg('sizes', '2000,10000').split(',').map(Number);
const RUNS = Number(arg('runs', '5'));
const NS = 'bench-graph';
const GPUS_PER_NODE = 8;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (n: number) => `${n.toFixed(0)} ms`;

type Hook = (action: string, args: Record<string, unknown>) => Promise<void>;

function hooks(url: string): Hook {
  return async (action, args) => {
    const r = await fetch(`${url}/api/test-hooks`, { method: 'POST', headers: { 'content-type': 'application/json', origin: url }, body: JSON.stringify({ action, args }) });
    if (!r.ok && r.status !== 409) {
      const body = await r.text();
      if (!/already exists|AlreadyExists/i.test(body)) throw new Error(`${action}: ${r.status} ${body}`);
    }
  };
}

async function parallel(n: number, count: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    for (let i = next++; i < count; i = next++) await fn(i);
  }));
}

const container = (name: string) => ({ name, image: 'busybox:1.36', command: ['sleep', 'infinity'], resources: { limits: { cpu: '1', memory: '1Gi', 'nvidia.com/gpu': 1 } } });

/** The workload of a size: a PyTorchJob up to 5,000 pods, else a JobSet of 4-pod Jobs. */
function workloadOf(pods: number): { name: string; kind: string; object: Record<string, unknown> } {
  if (pods <= 5000) {
    const name = `torch-${pods}`;
    const template = { spec: { containers: [container('pytorch')] } };
    return {
      name,
      kind: 'PyTorchJob',
      object: {
        apiVersion: 'kubeflow.org/v1',
        kind: 'PyTorchJob',
        metadata: { name, namespace: NS },
        spec: { runPolicy: { cleanPodPolicy: 'None' }, pytorchReplicaSpecs: { Master: { replicas: 1, restartPolicy: 'OnFailure', template }, Worker: { replicas: pods - 1, restartPolicy: 'OnFailure', template } } },
      },
    };
  }
  const name = `jobset-${pods}`;
  return {
    name,
    kind: 'JobSet',
    object: {
      apiVersion: 'jobset.x-k8s.io/v1alpha2',
      kind: 'JobSet',
      metadata: { name, namespace: NS },
      spec: {
        replicatedJobs: [
          {
            name: 'workers',
            replicas: Math.ceil(pods / 4),
            template: { spec: { backoffLimit: 0, completions: 4, parallelism: 4, completionMode: 'Indexed', template: { spec: { restartPolicy: 'Never', containers: [container('main')] } } } },
          },
        ],
      },
    },
  };
}

async function rows(url: string): Promise<WorkloadRow[]> {
  return ((await (await fetch(`${url}/api/workloads?limit=50000&namespace=${NS}`)).json()) as { rows: WorkloadRow[] }).rows;
}

async function startDemo(): Promise<string> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  run(['scripts/start.mjs', '--demo', '--port', String(port)], { WMAP_TEST_HOOKS: '1' });
  await waitFor('the server', async () => ((await fetch(`${url}/api/clusters`)).ok ? true : null), 240_000, 1000);
  return url;
}

// In-page measurements, as plain source text: the bundler that runs this script would wrap named
// functions in helpers that do not exist inside the page.
const INIT = `(() => {
  const w = window;
  // When the workload's detail (GET /api/workloads/{cluster}/{ns}/{kind}/{name}) finished arriving.
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const p = new URL(e.name).pathname;
      if (w.__detailAt === undefined && /^\\/api\\/workloads\\/[^/]+\\/[^/]+\\/[^/]+\\/[^/]+$/.test(p)) w.__detailAt = e.responseEnd;
    }
  }).observe({ type: 'resource', buffered: true });
  // Interactive: the big list's toggle drawn and visible, then a frame painted with the main thread free.
  const check = () => {
    const b = Array.from(document.querySelectorAll('[data-testid="structure-graph"] button')).find((x) => /^Show [\\d,]+ (pods|groups)$/.test(x.textContent.trim()));
    const n = b && b.closest('.react-flow__node');
    if (n && getComputedStyle(n).visibility !== 'hidden') requestAnimationFrame(() => setTimeout(() => { w.__interactive = performance.now(); }, 0));
    else requestAnimationFrame(check);
  };
  document.addEventListener('DOMContentLoaded', check);
})()`;

/** Clicks a graph button (by its text) and waits until `done()` holds in the DOM, then for the next painted frame. */
const ACT = `async (a) => {
  const graph = document.querySelector('[data-testid="structure-graph"]');
  const button = (re) => Array.from(graph.querySelectorAll('button')).find((b) => re.test(b.textContent.trim()) || re.test(b.getAttribute('aria-label') || ''));
  const visible = () => {
    const pods = graph.querySelectorAll('[data-node-type="pod"]');
    const last = pods[pods.length - 1];
    return last && getComputedStyle(last.closest('.react-flow__node')).visibility !== 'hidden';
  };
  const position = () => (graph.querySelector('[data-testid="page-position"]') || {}).textContent || '';
  const before = position();
  let done;
  const t0 = performance.now();
  if (a.kind === 'expand') { button(/^Show [\\d,]+ (pods|groups)$/).click(); done = () => position() !== '' && visible(); }
  else if (a.kind === 'collapse') { button(/^Collapse (pods|groups)$/).click(); done = () => position() === ''; }
  else if (a.kind === 'next') { button(/^Next page/).click(); done = () => position() !== before && visible(); }
  else if (a.kind === 'search') {
    const input = document.querySelector('[data-testid="graph-search"]');
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(input, a.value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
    const want = a.value ? /^1 pod matches$/ : /^$/;
    done = () => want.test(document.querySelector('[data-testid="graph-search-result"]').textContent) && (a.value === '' || visible());
  }
  await new Promise((r) => {
    if (done()) return r();
    const obs = new MutationObserver(() => { if (done()) { obs.disconnect(); r(); } });
    obs.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
  const rendered = performance.now() - t0;
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const painted = performance.now() - t0;
  return { rendered, painted, dom: document.getElementsByTagName('*').length, graphDom: graph.getElementsByTagName('*').length, flowNodes: graph.querySelectorAll('.react-flow__node').length, position: position() };
}`;

interface Act {
  rendered: number;
  painted: number;
  dom: number;
  graphDom: number;
  flowNodes: number;
  position: string;
}
const act = (page: Page, a: { kind: string; value?: string }) => page.evaluate(`(${ACT})(${JSON.stringify(a)})`) as Promise<Act>;

async function main() {
  const tStart = Date.now();
  const url = GIVEN_URL ?? (await startDemo());
  const hook = hooks(url);
  const need = SIZES.reduce((a, b) => a + b, 0);
  const nodes = Math.ceil((need * 1.05) / GPUS_PER_NODE);
  await hook('create', { object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } });
  await parallel(8, nodes, (i) =>
    hook('create', {
      object: {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: `bench-gpu-${i}`, labels: { 'kubernetes.io/hostname': `bench-gpu-${i}`, 'nvidia.com/gpu.present': 'true' } },
        status: {
          capacity: { cpu: '128', memory: '2Ti', pods: '110', 'nvidia.com/gpu': String(GPUS_PER_NODE) },
          allocatable: { cpu: '128', memory: '2Ti', pods: '110', 'nvidia.com/gpu': String(GPUS_PER_NODE) },
          conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }],
        },
      },
    }),
  );
  const workloads = SIZES.map((s) => ({ size: s, ...workloadOf(s) }));
  for (const w of workloads) await hook('create', { object: w.object });
  console.log(`${nodes} GPU nodes and ${workloads.map((w) => `${w.kind} ${w.name}`).join(', ')} created after ${((Date.now() - tStart) / 1000).toFixed(0)} s (${url})`);
  // Wait until every pod exists and the count stops moving (the scheduler binds them meanwhile).
  const last = new Map<string, number>();
  await waitFor(
    'the workloads to settle',
    async () => {
      const rs = await rows(url);
      let settled = true;
      for (const w of workloads) {
        const r = rs.find((x) => x.name === w.name);
        const n = r ? r.pods.total * 1000 + r.pods.ready : -1;
        if (!r || r.pods.total < w.size || last.get(w.name) !== n) settled = false;
        last.set(w.name, n);
      }
      return settled ? true : null;
    },
    900_000,
    // "Stops moving" means unchanged over a second.
    1000,
  );
  const rs = await rows(url);
  for (const w of workloads) {
    const r = rs.find((x) => x.name === w.name)!;
    console.log(`  ${w.kind} ${w.name}: ${r.pods.total} pods, ${r.pods.ready} ready, status ${r.status}`);
  }
  console.log(`ready after ${((Date.now() - tStart) / 1000).toFixed(0)} s`);

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  const results: Array<[string, string]> = [];
  try {
    for (const w of workloads) {
      const row = rs.find((x) => x.name === w.name)!;
      const href = `${url}${workloadHref(row)}`;
      const interactive: number[] = [];
      const detailBytes: number[] = [];
      // A fresh context each visit (empty cache); the first one warms the server and is not counted.
      for (let visit = 0; visit <= RUNS; visit++) {
        const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
        const page = await ctx.newPage();
        await page.addInitScript(INIT);
        await page.goto(href);
        await page.waitForFunction(() => (window as unknown as { __interactive?: number }).__interactive !== undefined, null, { timeout: 120_000 });
        const t = (await page.evaluate(`(() => {
          const e = performance.getEntriesByType('resource').find((x) => x.responseEnd === window.__detailAt);
          return { detail: window.__detailAt, interactive: window.__interactive, bytes: e ? e.encodedBodySize : 0 };
        })()`)) as { detail: number; interactive: number; bytes: number };
        if (visit > 0) {
          interactive.push(t.interactive - t.detail);
          detailBytes.push(t.bytes);
        }
        if (visit === RUNS) {
          const expand: Act[] = [];
          const collapse: Act[] = [];
          for (let i = 0; i < RUNS; i++) {
            expand.push(await act(page, { kind: 'expand' }));
            collapse.push(await act(page, { kind: 'collapse' }));
          }
          const opened = await act(page, { kind: 'expand' });
          const next: Act[] = [];
          for (let i = 0; i < RUNS; i++) next.push(await act(page, { kind: 'next' }));
          await page.screenshot({ path: join(tmpdir(), `bench-graph-${w.size}.png`) });
          // A pod far down the list: the search finds it wherever it is.
          const target = w.kind === 'PyTorchJob' ? `${w.name}-worker-${w.size - 7}` : `${w.name}-workers-${Math.floor(w.size / 4) - 3}-2-`;
          const search: Act[] = [];
          for (let i = 0; i < RUNS; i++) {
            search.push(await act(page, { kind: 'search', value: target }));
            await act(page, { kind: 'search', value: '' });
          }
          const label = `${w.size.toLocaleString('en-US')} pods (${w.kind}${w.kind === 'JobSet' ? `, ${Math.ceil(w.size / 4).toLocaleString('en-US')} Jobs of 4` : ''})`;
          results.push([`${label}: detail data → graph interactive (median of ${RUNS})`, `${ms(median(interactive))} (min ${ms(Math.min(...interactive))}, max ${ms(Math.max(...interactive))}; detail ${(median(detailBytes) / 1024).toFixed(0)} KiB on the wire)`]);
          results.push([`${label}: expand the big list (median of ${RUNS})`, `${ms(median(expand.map((x) => x.rendered)))} to DOM, ${ms(median(expand.map((x) => x.painted)))} to next frame`]);
          results.push([`${label}: collapse it again (median of ${RUNS})`, `${ms(median(collapse.map((x) => x.painted)))} to next frame`]);
          results.push([`${label}: next page (median of ${RUNS})`, `${ms(median(next.map((x) => x.rendered)))} to DOM, ${ms(median(next.map((x) => x.painted)))} to next frame (${next.at(-1)!.position})`]);
          results.push([`${label}: search finds "${target}" (median of ${RUNS})`, `${ms(median(search.map((x) => x.painted)))} to next frame`]);
          results.push([`${label}: DOM after expanding`, `${opened.dom.toLocaleString('en-US')} elements in the page, ${opened.graphDom.toLocaleString('en-US')} in the graph, ${opened.flowNodes} graph nodes (${opened.position})`]);
        }
        await ctx.close();
      }
    }
    console.log('');
    for (const [k, v] of results) console.log(`${k.padEnd(88)} ${v}`);
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
