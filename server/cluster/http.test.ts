/**
 * kubeconfig fidelity of the HTTP layer: a cluster's `proxy-url` (CONNECT tunnels for https servers,
 * absolute-form forwarding for plain http ones, proxy credentials) and server URLs with a path
 * prefix (Rancher's `/k8s/clusters/c-abc`) hold for reads, watches and writes. Real loopback proxies
 * in front of the simulated cluster.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { startSim, type SimHandle } from '../sim/index.ts';
import { ApiError, apiRequest, closeConnections, getJson, proxyOf, serverUrl, streamLines } from './http.ts';
import { loadClusterConfigs } from './kubeconfig.ts';
import { kubeconfigText, startForwardProxy, startPrefixProxy, type ForwardProxy, type PrefixProxy } from './test-proxies.ts';

const dir = mkdtempSync(join(tmpdir(), 'wmap-http-test-'));
let n = 0;

function kcOf(text: string): KubeConfig {
  const file = join(dir, `kubeconfig-${n++}`);
  writeFileSync(file, text, { mode: 0o600 });
  return loadClusterConfigs({ kubeconfig: file })[0].kc;
}

interface List { items: Array<{ metadata: { name: string } }>; metadata: { resourceVersion: string } }

/** Opens a watch on config maps in `ns` and resolves with the first ADDED object's name. */
function firstAdded(kc: KubeConfig, ns: string, rv: string, onOpen: () => void): { name: Promise<string>; stop(): void } {
  const abort = new AbortController();
  const name = new Promise<string>((resolve, reject) => {
    streamLines(kc, `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${rv}`, (line) => {
      const ev = line as { type: string; object: { metadata: { name: string } } };
      if (ev.type === 'ADDED') {
        resolve(ev.object.metadata.name);
        abort.abort();
      }
    }, abort.signal, onOpen).catch(reject);
  });
  return { name, stop: () => abort.abort() };
}

/** A list, a watch that sees a create, and the create itself (a write), all with `kc`. */
async function listWatchWrite(kc: KubeConfig, ns: string, name: string): Promise<void> {
  const list = await getJson<List>(kc, `/api/v1/namespaces/${ns}/configmaps`);
  let opened!: () => void;
  const open = new Promise<void>((r) => { opened = r; });
  const w = firstAdded(kc, ns, list.metadata.resourceVersion, () => opened());
  try {
    await open;
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data: { a: '1' } });
    const created = await apiRequest(kc, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { body });
    assert.equal(created.status, 201);
    assert.equal(await w.name, name);
  } finally {
    w.stop();
  }
  const again = await getJson<List>(kc, `/api/v1/namespaces/${ns}/configmaps`);
  assert.ok(again.items.some((i) => i.metadata.name === name));
}

describe('server URLs with a path prefix', () => {
  it('keeps the prefix and appends the path and query', () => {
    assert.equal(serverUrl('https://rancher.example/k8s/clusters/c-abc', '/api/v1/pods?limit=500').href, 'https://rancher.example/k8s/clusters/c-abc/api/v1/pods?limit=500');
    assert.equal(serverUrl('https://rancher.example/k8s/clusters/c-abc/', '/apis').href, 'https://rancher.example/k8s/clusters/c-abc/apis');
    assert.equal(serverUrl('https://10.0.0.1:6443', '/version').href, 'https://10.0.0.1:6443/version');
    assert.equal(serverUrl('https://[::1]:6443/', '/api').href, 'https://[::1]:6443/api');
    assert.equal(serverUrl('https://h/p', 'api/v1').href, 'https://h/p/api/v1');
  });

  it('proxy-url: none, http(s), and the schemes it does not follow refused by name', () => {
    assert.equal(proxyOf({}), null);
    assert.equal(proxyOf({ proxyUrl: 'http://127.0.0.1:3128' })?.host, '127.0.0.1:3128');
    assert.equal(proxyOf({ proxyUrl: 'https://proxy.example' })?.protocol, 'https:');
    assert.throws(() => proxyOf({ proxyUrl: 'socks5://127.0.0.1:1080' }), (e: unknown) => e instanceof ApiError && e.reason === 'UnsupportedProxy' && /socks5/.test(e.message));
    assert.throws(() => proxyOf({ proxyUrl: 'not a url' }), (e: unknown) => e instanceof ApiError && e.reason === 'BadProxy');
  });
});

describe('a kubeconfig with proxy-url and a prefixed server URL, against the simulated cluster', { timeout: 60_000 }, () => {
  let sim: SimHandle;
  let plain: SimHandle;
  let proxy: ForwardProxy;
  let authProxy: ForwardProxy;
  let prefix: PrefixProxy;

  before(async () => {
    sim = await startSim({ controllers: false });
    plain = await startSim({ controllers: false, tls: false });
    proxy = await startForwardProxy();
    authProxy = await startForwardProxy({ auth: 'wmap:s3cret' });
    prefix = await startPrefixProxy({ prefix: '/k8s/clusters/c-test', upstream: sim.url, upstreamCa: sim.caPem });
    for (const s of [sim, plain]) for (const ns of ['via-proxy', 'via-prefix', 'via-both', 'plain']) s.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns }, status: { phase: 'Active' } });
  });

  after(async () => {
    await Promise.all([proxy?.close(), authProxy?.close(), prefix?.close()]);
    await Promise.all([sim?.stop(), plain?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('an https server through an http proxy: every request in CONNECT tunnels, pooled', async () => {
    const kc = kcOf(kubeconfigText({ server: sim.url, token: sim.adminToken, caPem: sim.caPem, proxyUrl: proxy.url }));
    const before = proxy.tunnels;
    const simPort = new URL(sim.url).port;
    for (let i = 0; i < 10; i++) await getJson(kc, '/api/v1/namespaces');
    // Keep-alive: ten requests one after another share one tunnel.
    assert.equal(proxy.tunnels - before, 1);
    assert.equal(proxy.connects.at(-1), `127.0.0.1:${simPort}`);
    await listWatchWrite(kc, 'via-proxy', 'through-the-tunnel');
    // The watch held one connection while the create needed another.
    assert.ok(proxy.tunnels - before >= 2, `tunnels: ${proxy.tunnels - before}`);
    assert.equal(proxy.forwarded, 0, 'https requests are tunnelled, never forwarded in the clear');
    closeConnections(kc);
  });

  it('the proxy credentials in proxy-url are sent; wrong ones fail with the proxy\'s answer', async () => {
    const [, port] = authProxy.url.split('://')[1].split(':');
    const good = kcOf(kubeconfigText({ server: sim.url, token: sim.adminToken, caPem: sim.caPem, proxyUrl: `http://wmap:s3cret@127.0.0.1:${port}` }));
    const list = await getJson<List>(good, '/api/v1/namespaces');
    assert.ok(list.items.some((i) => i.metadata.name === 'via-proxy'));
    const bad = kcOf(kubeconfigText({ server: sim.url, token: sim.adminToken, caPem: sim.caPem, proxyUrl: `http://wmap:wrong@127.0.0.1:${port}` }));
    await assert.rejects(getJson(bad, '/api/v1/namespaces'), (e: unknown) => e instanceof ApiError && /407/.test(e.message) && /CONNECT/.test(e.message));
    closeConnections(good);
    closeConnections(bad);
  });

  it('a plain http server through an http proxy: requests forwarded in absolute form', async () => {
    const kc = kcOf(kubeconfigText({ server: plain.url, token: plain.adminToken, proxyUrl: proxy.url }));
    const before = proxy.forwarded;
    const tunnels = proxy.tunnels;
    await listWatchWrite(kc, 'plain', 'forwarded');
    assert.ok(proxy.forwarded - before >= 4, `forwarded: ${proxy.forwarded - before}`);
    assert.equal(proxy.tunnels, tunnels);
  });

  it('a server URL with a path prefix: lists, watches and writes keep it', async () => {
    const kc = kcOf(kubeconfigText({ server: prefix.url, token: sim.adminToken, caPem: prefix.caPem }));
    const before = prefix.paths.length;
    await listWatchWrite(kc, 'via-prefix', 'behind-rancher');
    const paths = prefix.paths.slice(before);
    assert.ok(paths.length >= 4);
    assert.ok(paths.every((p) => p.startsWith('/k8s/clusters/c-test/api/v1/namespaces/via-prefix/configmaps')), paths.join('\n'));
    assert.equal(prefix.unprefixed, 0);
    closeConnections(kc);
  });

  it('both: a prefixed server reached through an http proxy', async () => {
    const kc = kcOf(kubeconfigText({ server: prefix.url, token: sim.adminToken, caPem: prefix.caPem, proxyUrl: proxy.url }));
    const tunnels = proxy.tunnels;
    const before = prefix.paths.length;
    await listWatchWrite(kc, 'via-both', 'both');
    assert.ok(proxy.tunnels > tunnels);
    assert.equal(proxy.connects.at(-1), new URL(prefix.url).host);
    assert.ok(prefix.paths.slice(before).every((p) => p.startsWith('/k8s/clusters/c-test/')));
    assert.equal(prefix.unprefixed, 0);
    closeConnections(kc);
  });

  it('an unreachable proxy is an error naming it (never a silent direct connection)', async () => {
    const kc = kcOf(kubeconfigText({ server: sim.url, token: sim.adminToken, caPem: sim.caPem, proxyUrl: 'http://127.0.0.1:1' }));
    await assert.rejects(getJson(kc, '/api/v1/namespaces'), (e: unknown) => e instanceof ApiError && e.reason === 'Unreachable' && /proxy 127\.0\.0\.1:1/.test(e.message));
    closeConnections(kc);
  });
});
