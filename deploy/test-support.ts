/**
 * Helpers for the deployment tests: the manifests as objects, RBAC rules evaluated the way the
 * API server's RBAC authorizer matches them, kubectl run asynchronously (the simulated cluster runs
 * in the test's own process, so a blocking child would stall it), free ports.
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import type { WorkloadRow } from '../contract/index.ts';
import type { SimHandle } from '../server/sim/index.ts';

export const GPU = 'nvidia.com/gpu';

export const DEPLOY = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(DEPLOY, '..');
export const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';
export const kubectlSkip = existsSync(KUBECTL) ? false : `kubectl not found at ${KUBECTL} (set KUBECTL)`;

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [k: string]: unknown;
}

export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export function yamlDocs(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS() as Manifest).filter(Boolean);
}

/**
 * Every object a kustomization directory lists, read from its files (resources that are folders are
 * read as kustomizations in turn; components too). Patches are not applied: for the files as written.
 */
export function kustomizationObjects(dir: string): Manifest[] {
  const k = yamlDocs(join(dir, 'kustomization.yaml'))[0] as unknown as { resources?: string[]; components?: string[] };
  const out: Manifest[] = [];
  for (const r of [...(k.resources ?? []), ...(k.components ?? [])]) {
    const p = resolve(dir, r);
    if (statSync(p).isDirectory()) out.push(...kustomizationObjects(p));
    else out.push(...yamlDocs(p));
  }
  return out;
}

/** Does one of `rules` allow `verb` on `resource` (`pods`, `pods/log`) of `group`, for the object `name`? */
export function allows(rules: readonly PolicyRule[], a: { group: string; resource: string; verb: string; name?: string }): boolean {
  return rules.some((r) => {
    if (!(r.verbs.includes(a.verb) || r.verbs.includes('*'))) return false;
    if (!(r.apiGroups ?? []).some((g) => g === a.group || g === '*')) return false;
    if (!(r.resources ?? []).some((x) => x === a.resource || x === '*')) return false;
    if (r.resourceNames && r.resourceNames.length > 0) return a.name !== undefined && r.resourceNames.includes(a.name);
    return true;
  });
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** kubectl with its own discovery cache (kubectl caches per host:port for 6 h) and HOME. */
export class Kubectl {
  readonly env: NodeJS.ProcessEnv;
  constructor(kubeconfig: string) {
    const home = mkdtempSync(join(tmpdir(), 'wmap-deploy-kubectl-'));
    this.env = { ...process.env, KUBECONFIG: kubeconfig, KUBECACHEDIR: join(home, 'cache'), HOME: home };
  }

  run(args: string[]): Promise<RunResult> {
    return new Promise((ok) => {
      execFile(KUBECTL, args, { env: this.env, cwd: ROOT, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (e, stdout, stderr) => {
        const code = e ? (typeof (e as { code?: unknown }).code === 'number' ? (e as { code: number }).code : 1) : 0;
        ok({ code, stdout, stderr });
      });
    });
  }

  async ok(args: string[]): Promise<string> {
    const r = await this.run(args);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}${r.stdout}`);
    return r.stdout;
  }
}

export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = net.createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => ok(p));
    });
  });
}

export async function until<T>(what: string, fn: () => Promise<T | undefined | null | false> | T | undefined | null | false, ms: number, every = 250): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}${last ? `: ${last instanceof Error ? last.message : String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, every));
  }
}

interface PodLike {
  spec?: { nodeName?: string; containers?: Array<{ resources?: { requests?: Record<string, string | number>; limits?: Record<string, string | number> } }>; initContainers?: Array<{ resources?: { requests?: Record<string, string | number>; limits?: Record<string, string | number> } }>; overhead?: Record<string, string | number> };
  status?: { phase?: string };
  metadata: { deletionTimestamp?: string };
}

/** One pod's effective request of `nvidia.com/gpu`, by Kubernetes rules (limit-only means request = limit). */
export function podGpus(p: PodLike): number {
  const of = (c: { resources?: { requests?: Record<string, string | number>; limits?: Record<string, string | number> } }) => Number(c.resources?.requests?.[GPU] ?? c.resources?.limits?.[GPU] ?? 0);
  const main = (p.spec?.containers ?? []).reduce((a, c) => a + of(c), 0);
  const init = Math.max(0, ...(p.spec?.initContainers ?? []).map(of));
  return Math.max(main, init) + Number(p.spec?.overhead?.[GPU] ?? 0);
}

/** The cluster's own figures, counted from its pods (independently of the engine). */
export function groundTruth(sim: SimHandle): { requested: number; allocated: number } {
  let requested = 0;
  let allocated = 0;
  for (const p of sim.store.list('v1', 'Pod') as unknown as PodLike[]) {
    const phase = p.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') continue;
    const n = podGpus(p);
    requested += n;
    if (p.spec?.nodeName) allocated += n;
  }
  return { requested, allocated };
}

export function sumRows(rows: WorkloadRow[], field: 'requested' | 'allocated'): number {
  return rows.reduce((a, r) => a + (r.gpus.byResource[field][GPU] ?? 0), 0);
}

/** A GET as the kubelet's probe sends it: to the pod's port with the pod IP as Host (fetch cannot set Host). */
export function probe(port: number, path: string, host = '10.244.0.17:3000'): Promise<{ status: number; body: string }> {
  return new Promise((ok, fail) => {
    const req = http.request({ host: '127.0.0.1', port, path, headers: { host, 'user-agent': 'kube-probe/1.32' }, timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => { body += d; });
      res.on('end', () => ok({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('probe timed out')));
    req.on('error', fail);
    req.end();
  });
}
