/**
 * Shared mode end to end: a second server, started here in shared mode against its own simulated
 * cluster (e2e/shared-cluster.ts) with the product's service account, three users with real RBAC
 * (alice edits team-llm, bob views team-vision, carol views everything) and a real OIDC provider.
 * - the security matrix: every route × (no credentials, a wrong token, another user's session, a
 *   foreign Origin, a wrong Host, a cross-site text/plain POST) → the expected status;
 * - each user sees only their rows, totals and stream;
 * - signing in with a token and with OIDC in the browser, acting as alice, refused as carol.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { createInterface } from 'node:readline';
import type { WorkloadRow } from '../contract/index.ts';
import { rawRequest, type Answer, type RawRequest } from '../server/auth/test-http.ts';
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from './fixtures.ts';
import { startScraper } from './scraper.ts';

interface Cluster {
  serverKubeconfig: string;
  tokens: { alice: string; bob: string; carol: string; prometheus: string };
  oidc: { issuer: string; clientId: string; clientSecret: string };
}

let cluster: ChildProcess | null = null;
let server: ChildProcess | null = null;
let base = '';
let port = 0;
let info: Cluster;
const sessions: Record<string, string> = {};

function freePort(): Promise<number> {
  return new Promise((ok) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => ok(p));
    });
  });
}

/** One request exactly as given to the shared-mode server. */
function raw(o: RawRequest): Promise<Answer> {
  return rawRequest(port, { ...o, headers: { host: `127.0.0.1:${port}`, ...o.headers } });
}

async function signIn(token: string): Promise<string> {
  const body = JSON.stringify({ token });
  const a = await raw({ method: 'POST', path: '/auth/signin', headers: { origin: base, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }, body });
  if (a.status !== 200) throw new Error(`sign-in: ${a.status} ${a.body}`);
  return `wmap_session=${/wmap_session=([^;]+)/.exec(String(a.headers['set-cookie']))![1]}`;
}

async function rowsOf(cookie: string): Promise<{ total: number; rows: WorkloadRow[]; totals: { allocated: number } }> {
  return JSON.parse((await raw({ path: '/api/workloads?limit=5000', headers: { cookie } })).body) as never;
}

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  port = await freePort();
  base = `http://127.0.0.1:${port}`;
  cluster = spawn(process.execPath, ['--import', 'tsx', 'e2e/shared-cluster.ts', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  info = await new Promise<Cluster>((ok, fail) => {
    const lines = createInterface({ input: cluster!.stdout! });
    lines.once('line', (l) => ok(JSON.parse(l) as Cluster));
    cluster!.once('exit', (code) => fail(new Error(`the shared-mode cluster exited with ${code}`)));
  });
  server = spawn(process.execPath, ['bin/wmap.cjs', 'serve', '--kubeconfig', info.serverKubeconfig, '--shared', '--allow-writes', '--port', String(port), '--oidc-issuer', info.oidc.issuer, '--oidc-client-id', info.oidc.clientId], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1', WMAP_DEMO_PROMETHEUS: 'off', WMAP_TEST_HOOKS: '1', WMAP_OIDC_CLIENT_SECRET: info.oidc.clientSecret, WMAP_PROXY_SECRET: 'proxy-secret', WMAP_LOG_LEVEL: 'warn' },
  });
  await expect.poll(async () => (await raw({ path: '/signin' }).catch(() => ({ status: 0 }))).status, { timeout: 120_000 }).toBe(200);
  for (const u of ['alice', 'bob', 'carol'] as const) sessions[u] = await signIn(info.tokens[u]);
  // The first lists are in once alice sees her workload.
  await expect.poll(async () => (await rowsOf(sessions.alice)).rows.some((r) => r.name === 'llama-finetune'), { timeout: 60_000 }).toBe(true);
});

test.afterAll(async () => {
  for (const p of [server, cluster]) {
    if (!p || p.exitCode !== null) continue;
    const gone = new Promise((ok) => p.once('exit', ok));
    p.kill('SIGTERM');
    await Promise.race([gone, new Promise((ok) => setTimeout(ok, 10_000))]);
    if (p.exitCode === null) p.kill('SIGKILL');
  }
});

const W = '/api/workloads/wmap-sim/team-llm/JobSet.jobset.x-k8s.io/llama-finetune';

test('the security matrix: every route against every kind of unwelcome request', async () => {
  // A pod whose container has started (a log to read): just after start-up some are still being created.
  let running: string | undefined;
  await expect.poll(async () => {
    const detail = JSON.parse((await raw({ path: W, headers: { cookie: sessions.alice, origin: base } })).body) as { tree: { pods: Array<{ name: string; phase: string; ready: boolean }> } };
    running = detail.tree.pods.find((p) => p.phase === 'Running' && p.ready)?.name;
    return running;
  }, { timeout: 60_000 }).toBeTruthy();
  const pod = `/api/pods/wmap-sim/team-llm/${running!}`;
  const json = (v: unknown) => JSON.stringify(v);
  interface Route {
    method: 'GET' | 'POST';
    path: string;
    page?: boolean;
    body?: string;
    /** A same-origin request is required (writes and what reaches through to the API server). */
    guarded?: boolean;
    /** alice's own answer, and bob's (who may see only team-vision). */
    alice: number;
    bob: number;
  }
  const routes: Route[] = [
    { method: 'GET', path: '/', page: true, alice: 200, bob: 200 },
    { method: 'GET', path: '/nodes', page: true, alice: 200, bob: 200 },
    { method: 'GET', path: '/audit', page: true, alice: 200, bob: 200 },
    { method: 'GET', path: '/definitions', page: true, alice: 200, bob: 200 },
    { method: 'GET', path: '/studio', page: true, alice: 200, bob: 200 },
    { method: 'GET', path: '/workloads/wmap-sim/team-llm/JobSet.jobset.x-k8s.io/llama-finetune', page: true, alice: 200, bob: 200 },
    { method: 'GET', path: '/api/workloads', alice: 200, bob: 200 },
    { method: 'GET', path: '/api/stream', alice: 200, bob: 200 },
    { method: 'GET', path: '/api/clusters', alice: 200, bob: 200 },
    { method: 'GET', path: '/api/definitions', alice: 200, bob: 200 },
    { method: 'GET', path: '/api/me', alice: 200, bob: 200 },
    { method: 'GET', path: '/api/audit', alice: 200, bob: 200 },
    // Neither may list nodes, or every pod of the cluster.
    { method: 'GET', path: '/api/nodes', alice: 403, bob: 403 },
    { method: 'GET', path: '/api/accounting', alice: 403, bob: 403 },
    { method: 'GET', path: W, alice: 200, bob: 404 },
    { method: 'GET', path: `${W}/events`, guarded: true, alice: 200, bob: 404 },
    { method: 'GET', path: `${W}/actions`, alice: 200, bob: 404 },
    { method: 'GET', path: `${W}/usage/history`, alice: 200, bob: 404 },
    { method: 'GET', path: pod, guarded: true, alice: 200, bob: 404 },
    { method: 'GET', path: `${pod}/log?tailLines=5`, guarded: true, alice: 200, bob: 404 },
    { method: 'POST', path: `${W}/actions`, body: json({ mode: 'preview', actions: [{ action: 'suspend' }] }), guarded: true, alice: 200, bob: 404 },
    { method: 'POST', path: '/api/definitions/validate', body: json({ text: 'apiVersion: run.ai/v1alpha1\nkind: Karta\nmetadata: {name: x}\nspec: {}\n' }), guarded: true, alice: 200, bob: 200 },
    { method: 'GET', path: `/api/studio/draft?row=${encodeURIComponent('wmap-sim/team-llm/JobSet.jobset.x-k8s.io/llama-finetune')}`, guarded: true, alice: 200, bob: 404 },
    { method: 'POST', path: '/api/studio/trial', body: json({ text: 'apiVersion: run.ai/v1alpha1\nkind: Karta\nmetadata: {name: x}\nspec: {}\n', rows: ['wmap-sim/team-llm/JobSet.jobset.x-k8s.io/llama-finetune'] }), guarded: true, alice: 200, bob: 404 },
    { method: 'GET', path: '/api/studio/registry?cluster=wmap-sim', guarded: true, alice: 200, bob: 200 },
    // Neither may create Kartas (cluster-scoped): the API server refuses the dry run, as them.
    { method: 'POST', path: '/api/studio/register', body: json({ cluster: 'wmap-sim', mode: 'preview', text: 'apiVersion: run.ai/v1alpha1\nkind: Karta\nmetadata: {name: x}\nspec:\n  structureDefinition:\n    rootComponent: {name: r, kind: {group: a.io, version: v1, kind: A}, statusDefinition: {statusMappings: {}}}\n' }), guarded: true, alice: 422, bob: 422 },
    // Test hooks exist only for a loopback server started by the tests in local mode.
    { method: 'POST', path: '/api/test-hooks', body: json({ action: 'list', args: { apiVersion: 'v1', kind: 'Pod' } }), guarded: true, alice: 404, bob: 404 },
  ];
  const cases: Array<{ name: string; headers(r: Route): Record<string, string>; want(r: Route): number[] }> = [
    { name: 'as alice', headers: () => ({ cookie: sessions.alice, origin: base }), want: (r) => [r.alice] },
    { name: 'no credentials', headers: (r) => ({ origin: base, ...(r.page ? { accept: 'text/html', 'sec-fetch-mode': 'navigate' } : {}) }), want: (r) => [r.page ? 303 : 401] },
    { name: 'a wrong token', headers: () => ({ origin: base, authorization: 'Bearer not-a-token' }), want: () => [401] },
    { name: "another user's session", headers: () => ({ cookie: sessions.bob, origin: base }), want: (r) => [r.bob] },
    { name: 'a foreign Origin', headers: () => ({ cookie: sessions.alice, origin: 'https://evil.example' }), want: (r) => (r.guarded || r.method === 'POST' ? [403] : [r.alice]) },
    { name: 'a wrong Host', headers: () => ({ cookie: sessions.alice, origin: base, host: `evil.example:${port}` }), want: () => [421] },
    { name: 'a cross-site text/plain POST', headers: () => ({ cookie: sessions.alice, origin: 'https://evil.example', 'content-type': 'text/plain' }), want: () => [403, 415] },
  ];
  const failures: string[] = [];
  let checked = 0;
  for (const r of routes) {
    for (const c of cases) {
      const crossPost = c.name === 'a cross-site text/plain POST';
      const method = crossPost ? 'POST' : r.method;
      const body = crossPost ? 'token=x' : r.body;
      const headers: Record<string, string> = { ...c.headers(r) };
      if (body !== undefined) {
        headers['content-type'] ??= 'application/json';
        headers['content-length'] = String(Buffer.byteLength(body));
      }
      const a = await raw({ method, path: r.path, headers, body });
      checked++;
      if (!c.want(r).includes(a.status)) failures.push(`${method} ${r.path} ${c.name}: ${a.status} (want ${c.want(r).join(' or ')}) ${a.body.slice(0, 160)}`);
      if (a.status >= 400 && a.status !== 404 && !r.page && a.status !== 303) expect(a.headers['content-type'], `${r.path} ${c.name}`).toMatch(/application\/json/);
      if (c.name === 'no credentials' && r.page) expect(a.headers.location).toMatch(/^\/signin\?next=/);
    }
  }
  const summary = `security matrix: ${routes.length} routes × ${cases.length} cases = ${checked} requests, ${failures.length} unexpected`;
  test.info().annotations.push({ type: "security-matrix", description: summary });
  process.stdout.write(`${summary}\n`);
  expect(failures).toEqual([]);
});

test('each user sees only the rows they may list: rows, totals, filters and the stream differ', async () => {
  const [alice, bob, carol] = await Promise.all([rowsOf(sessions.alice), rowsOf(sessions.bob), rowsOf(sessions.carol)]);
  const namespaces = (x: { rows: WorkloadRow[] }) => [...new Set(x.rows.map((r) => r.namespace))].sort();
  expect(namespaces(alice)).toEqual(['team-llm']);
  expect(namespaces(bob)).toEqual(['team-vision']);
  expect(namespaces(carol).length).toBeGreaterThan(2);
  expect(alice.totals.allocated).toBe(alice.rows.reduce((n, r) => n + r.gpus.allocated, 0));
  expect(carol.total).toBeGreaterThan(alice.total + bob.total);
  // The stream's snapshot holds the same rows as the list.
  const snapshot = async (cookie: string) =>
    new Promise<WorkloadRow[]>((ok, fail) => {
      const req = http.request({ host: '127.0.0.1', port, path: '/api/stream', headers: { cookie } }, (res) => {
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          buf += c;
          const m = /event: snapshot\ndata: (.*)\n\n/.exec(buf);
          if (m) {
            ok((JSON.parse(m[1]) as { rows: WorkloadRow[] }).rows);
            req.destroy();
          }
        });
      });
      req.on('error', fail);
      req.end();
    });
  expect((await snapshot(sessions.alice)).map((r) => r.id).sort()).toEqual(alice.rows.map((r) => r.id).sort());
  expect((await snapshot(sessions.bob)).map((r) => r.id).sort()).toEqual(bob.rows.map((r) => r.id).sort());
  // A namespace filter cannot reach around it.
  expect((await raw({ path: '/api/workloads?namespace=team-vision', headers: { cookie: sessions.alice } })).body).toContain('"total":0');
});

test('sign in with a Kubernetes token in the browser, act as alice; carol is offered nothing she may not do', async ({ page }) => {
  await page.goto(`${base}/`);
  await expect(page).toHaveURL(/\/signin\?next=/);
  await page.getByLabel(/Sign in with a Kubernetes bearer token/).fill(info.tokens.alice);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('workload-table').getByRole('row').nth(1)).toBeVisible();
  await expect(page.getByTestId('user-name')).toContainText('alice');
  const links = await page.getByTestId('workload-table').locator('a[href^="/workloads/"]').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
  expect(links.length).toBeGreaterThan(0);
  for (const href of links) expect(href).toContain('/team-llm/');
  await page.goto(`${base}/workloads/wmap-sim/team-llm/JobSet.jobset.x-k8s.io/llama-finetune`);
  await page.getByTestId('action-annotations').click();
  const dialog = page.getByTestId('action-dialog');
  await dialog.getByTestId('action-lines').fill('owner=alice');
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await expect(dialog.getByTestId('action-result')).toHaveAttribute('data-result', 'dry-run');
  await dialog.getByTestId('action-apply').click();
  await expect(dialog.getByTestId('action-result')).toHaveAttribute('data-result', 'applied');
  await dialog.getByRole('button', { name: 'Close' }).click();
  await page.getByTestId('sign-out').click();
  await expect(page).toHaveURL(/\/signin/);
  expect((await raw({ path: '/api/me', headers: { cookie: (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ') } })).status).toBe(401);

  // carol may view team-llm but not change it: every write is disabled with the reason, and a write sent anyway is refused and audited.
  await page.getByLabel(/Sign in with a Kubernetes bearer token/).fill(info.tokens.carol);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.goto(`${base}/workloads/wmap-sim/team-llm/JobSet.jobset.x-k8s.io/llama-finetune`);
  await expect(page.getByTestId('action-labels')).toBeDisabled();
  await expect(page.getByTestId('action-delete')).toHaveAttribute('title', 'carol may not delete jobsets.jobset.x-k8s.io in namespace team-llm');
  const refused = await raw({ method: 'POST', path: `${W}/actions`, headers: { cookie: sessions.carol, origin: base, 'content-type': 'application/json' }, body: JSON.stringify({ mode: 'apply', actions: [{ action: 'delete', propagation: 'Background' }] }) });
  expect(refused.status).toBe(403);
  const audit = JSON.parse((await raw({ path: '/api/audit', headers: { cookie: sessions.alice } })).body) as { items: Array<{ who: string; action: string; result: string }> };
  expect(audit.items.some((i) => i.who === 'carol' && i.action === 'delete' && i.result === 'forbidden')).toBe(true);
  expect(audit.items.some((i) => i.who === 'alice' && i.action === 'annotations' && i.result === 'applied')).toBe(true);
});

test('sign in with OIDC on the provider\'s own pages; the identity provider\'s user sees what RBAC gives her', async ({ page }) => {
  await page.goto(`${base}/signin`);
  await page.getByRole('link', { name: 'Sign in with your identity provider' }).click();
  await page.getByLabel('Username').fill('alice');
  await page.getByLabel('Password').fill('password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('user-name')).toContainText('alice@example.com');
  await expect(page.getByTestId('workload-table').getByRole('row').nth(1)).toBeVisible();
  const links = await page.getByTestId('workload-table').locator('a[href^="/workloads/"]').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
  expect(links.length).toBeGreaterThan(0);
  for (const href of links) expect(href).toContain('/team-llm/');
});

test('the sign-in page has no accessibility violation, with and without an error', async ({ page }) => {
  for (const path of ['/signin', '/auth/oidc/callback?state=nope&code=x']) {
    await page.goto(`${base}${path}`);
    const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']).analyze();
    expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), path).toEqual([]);
  }
});

test('an authenticating proxy\'s headers count only with its secret', async () => {
  const as = (h: Record<string, string>) => raw({ path: '/api/me', headers: h });
  const trusted = await as({ 'x-wmap-proxy-secret': 'proxy-secret', 'x-remote-user': 'bob', 'x-remote-group': 'vision' });
  expect(JSON.parse(trusted.body)).toMatchObject({ user: 'bob', groups: ['vision'], via: 'proxy' });
  expect((await as({ 'x-remote-user': 'bob' })).status).toBe(401);
  // Impersonated from the server's account, bob sees what bob may see.
  const rows = JSON.parse((await raw({ path: '/api/workloads', headers: { 'x-wmap-proxy-secret': 'proxy-secret', 'x-remote-user': 'bob' } })).body) as { rows: WorkloadRow[] };
  expect([...new Set(rows.rows.map((r) => r.namespace))]).toEqual(['team-vision']);
});

test('shared mode: the probes answer anyone on any Host; /metrics needs a token allowed to get /metrics, and a real Prometheus scrapes with its own', async () => {
  test.setTimeout(120_000);
  const podHost = { host: '10.0.0.7:8080' };
  expect((await raw({ path: '/healthz', headers: podHost })).body).toBe('ok\n');
  expect((await raw({ path: '/readyz', headers: podHost })).status).toBe(200);
  const none = await raw({ path: '/metrics', headers: podHost });
  expect(none.status).toBe(401);
  expect(none.body).not.toContain('wmap_');
  // alice is a user, not a monitoring system: her token is valid, but she may not get /metrics.
  const alice = await raw({ path: '/metrics', headers: { ...podHost, authorization: `Bearer ${info.tokens.alice}` } });
  expect(alice.status).toBe(403);
  expect(alice.body).not.toContain('wmap_');
  expect((await raw({ path: '/metrics', headers: { ...podHost, authorization: 'Bearer not-a-token' } })).status).toBe(401);
  const ok = await raw({ path: '/metrics', headers: { ...podHost, authorization: `Bearer ${info.tokens.prometheus}` } });
  expect(ok.status).toBe(200);
  expect(ok.body).toMatch(/^wmap_gpus_allocated\{/m);

  const prom = await startScraper({ target: `127.0.0.1:${port}`, bearer: info.tokens.prometheus });
  try {
    await expect.poll(async () => (await prom.query('up{job="wmap"}'))[0]?.value[1], { timeout: 30_000 }).toBe('1');
    expect((await prom.query('wmap_cluster_synced'))[0]?.value[1]).toBe('1');
    // Every namespace's allocation, whoever may see it: carol (view everywhere) sees the same total.
    // (The rows' figures, not the rounded totals strip.)
    await expect.poll(async () => {
      const rows = (await rowsOf(sessions.carol)).rows.reduce((n, r) => n + r.gpus.allocated, 0);
      const scraped = Number((await prom.query('sum(wmap_gpus_allocated)'))[0]?.value[1]);
      return Math.abs(scraped - rows) < 1e-6 ? 'equal' : `${scraped} scraped, ${rows} in the rows`;
    }, { timeout: 20_000 }).toBe('equal');
  } finally {
    await prom.stop();
  }
});
