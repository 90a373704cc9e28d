/** Helpers for the simulator's conformance tests: run kubectl against a sim, raw HTTPS requests. */

import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SimHandle } from '../index.ts';
import { kubeconfigYaml } from './kubeconfig.ts';

export const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';

const tempDirs: string[] = [];

function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(d);
  return d;
}

/** Removes the cache dirs and kubeconfigs these helpers created. */
export function cleanupTempDirs(): void {
  for (const d of tempDirs.splice(0)) rmSync(d, { recursive: true, force: true });
}
export const hasKubectl = existsSync(KUBECTL);
export const kubectlSkip = hasKubectl ? false : `kubectl not found at ${KUBECTL} (set KUBECTL to run these conformance tests)`;

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A kubectl bound to one simulator, with its own cache dir (kubectl caches discovery per host:port for 6 h). */
export class Kubectl {
  readonly env: NodeJS.ProcessEnv;
  constructor(kubeconfigPath: string) {
    this.env = { ...process.env, KUBECONFIG: kubeconfigPath, KUBECACHEDIR: tempDir('wmap-kubecache-'), HOME: process.env.HOME ?? tmpdir() };
  }

  run(args: string[], input?: string): Promise<KubectlResult> {
    return new Promise((resolve) => {
      const child = execFile(KUBECTL, args, { env: this.env, timeout: 20_000, maxBuffer: 512 * 1024 * 1024 }, (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
        resolve({ code, stdout, stderr });
      });
      if (input !== undefined) {
        child.stdin?.end(input);
      }
    });
  }

  /** Runs and expects success; returns stdout. */
  async ok(args: string[], input?: string): Promise<string> {
    const r = await this.run(args, input);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}${r.stdout}`);
    return r.stdout;
  }

  spawn(args: string[]): ChildProcess {
    return spawn(KUBECTL, args, { env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
  }
}

/** A kubeconfig for the same simulator with another token. */
export function kubeconfigFor(sim: SimHandle, token: string): string {
  const path = join(tempDir('wmap-kc-'), 'kubeconfig');
  writeFileSync(path, kubeconfigYaml({ server: sim.url, token, caPem: sim.caPem }), { mode: 0o600 });
  return path;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTPS request to the simulator (admin token unless another is given). */
export function raw(sim: SimHandle, method: string, path: string, opts: { body?: unknown; contentType?: string; token?: string | null; accept?: string; headers?: Record<string, string | string[]> } = {}): Promise<RawResponse> {
  const url = new URL(path, sim.url);
  const body = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | string[]> = { ...(opts.headers ?? {}) };
    const token = opts.token === undefined ? sim.adminToken : opts.token;
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) {
      headers['Content-Type'] = opts.contentType ?? 'application/json';
      // Node sends DELETE bodies without framing unless told the length.
      headers['Content-Length'] = String(Buffer.byteLength(body));
    }
    if (opts.accept) headers.Accept = opts.accept;
    const req = request(url, { method, headers, ca: sim.caPem }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export interface WatchStream {
  /** Parsed events so far. */
  events: Array<{ type: string; object: Record<string, unknown> }>;
  status: Promise<number>;
  /** Resolves when the server ends the stream (`clean`) or it breaks (`error`). */
  ended: Promise<'clean' | 'error'>;
  /** Waits until `n` events arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Opens a watch and collects its newline-delimited JSON events. */
export function openWatch(sim: SimHandle, path: string, opts: { token?: string; accept?: string } = {}): WatchStream {
  const url = new URL(path, sim.url);
  const events: WatchStream['events'] = [];
  const waiters: Array<() => void> = [];
  let resolveStatus!: (n: number) => void;
  let resolveEnd!: (v: 'clean' | 'error') => void;
  const status = new Promise<number>((r) => (resolveStatus = r));
  const ended = new Promise<'clean' | 'error'>((r) => (resolveEnd = r));
  const headers: Record<string, string> = { Authorization: `Bearer ${opts.token ?? sim.adminToken}` };
  if (opts.accept) headers.Accept = opts.accept;
  const req = request(url, { method: 'GET', headers, ca: sim.caPem }, (res) => {
    resolveStatus(res.statusCode ?? 0);
    let buf = '';
    res.on('data', (c: Buffer) => {
      buf += c.toString('utf8');
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (line.trim()) events.push(JSON.parse(line) as WatchStream['events'][number]);
      }
      for (const w of waiters.splice(0)) w();
    });
    res.on('end', () => resolveEnd('clean'));
    res.on('error', () => resolveEnd('error'));
    res.on('aborted', () => resolveEnd('error'));
  });
  req.on('error', () => {
    resolveStatus(0);
    resolveEnd('error');
  });
  req.end();
  return {
    events,
    status,
    ended,
    async waitFor(n, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (events.length < n) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${n} watch events, got ${events.length}: ${JSON.stringify(events.map((e) => e.type))}`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 50);
        });
      }
    },
    close() {
      req.destroy();
    },
  };
}

export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 5000, message = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${message}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
