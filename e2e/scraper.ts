/**
 * A real Prometheus (Debian's package; `npm test` installs it when missing) scraping one target's
 * `/metrics` every second, for the observability tests. Its absence is a failure, not a skip.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export interface Scraper {
  url: string;
  /** An instant query's result vector. */
  query(q: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>>;
  stop(): Promise<void>;
}

function prometheusBinary(): string {
  for (const d of (process.env.PATH ?? '').split(delimiter)) if (d && existsSync(join(d, 'prometheus'))) return join(d, 'prometheus');
  if (existsSync('/usr/bin/prometheus')) return '/usr/bin/prometheus';
  throw new Error('prometheus is not installed (Debian: apt-get install prometheus; `npm test` installs it)');
}

function freePort(): Promise<number> {
  return new Promise((ok) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => ok(p));
    });
  });
}

/** Scrapes `target` (host:port) as job `wmap`; `bearer` is sent as Prometheus sends a service account's token. */
export async function startScraper(o: { target: string; bearer?: string }): Promise<Scraper> {
  const dir = mkdtempSync(join(tmpdir(), 'wmap-scraper-'));
  const lines = [
    'global:',
    '  scrape_interval: 1s',
    '  scrape_timeout: 1s',
    'scrape_configs:',
    '  - job_name: wmap',
    '    metrics_path: /metrics',
  ];
  if (o.bearer) {
    writeFileSync(join(dir, 'token'), o.bearer);
    lines.push('    authorization:', '      type: Bearer', `      credentials_file: ${JSON.stringify(join(dir, 'token'))}`);
  }
  lines.push('    static_configs:', `      - targets: [${JSON.stringify(o.target)}]`);
  writeFileSync(join(dir, 'prometheus.yml'), `${lines.join('\n')}\n`);
  const port = await freePort();
  const child = spawn(prometheusBinary(), [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=error'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => { stderr = (stderr + c.toString()).slice(-4000); });
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}: ${stderr}`);
    const ready = await fetch(`${url}/-/ready`).then((r) => r.ok, () => false);
    if (ready) break;
    if (Date.now() > until) throw new Error(`prometheus did not become ready: ${stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    async query(q) {
      const r = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(q)}`);
      const body = (await r.json()) as { status: string; error?: string; data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
      if (body.status !== 'success') throw new Error(`query ${q}: ${body.error}`);
      return body.data.result;
    },
    async stop() {
      if (child.exitCode === null) {
        const gone = new Promise((ok) => child.once('exit', ok));
        child.kill('SIGTERM');
        await Promise.race([gone, new Promise((ok) => setTimeout(ok, 5000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
