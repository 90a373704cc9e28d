import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../bin/wmap.cjs', import.meta.url));

test('wmap sim runs in the foreground, prints its kubeconfig, and kubectl talks to it', async () => {
  const p = spawn(process.execPath, [bin, 'sim', '--scenario', 'empty'], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let out = '';
    const kubeconfig = await new Promise<string>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no kubeconfig line in 60 s: ${out}`)), 60_000);
      p.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /^kubeconfig: (.+)$/m.exec(out);
        if (m) {
          clearTimeout(t);
          resolve(m[1].trim());
        }
      });
      p.on('exit', (code) => reject(new Error(`wmap sim exited with ${code}: ${out}`)));
    });
    assert.ok(existsSync(kubeconfig));
    assert.match(out, /simulated cluster at https?:\/\/127\.0\.0\.1:\d+/);
    if (existsSync('/usr/bin/kubectl')) {
      const ns = await new Promise<string>((resolve) => {
        const k = spawn('/usr/bin/kubectl', ['get', 'namespaces', '-o', 'name'], { env: { ...process.env, KUBECONFIG: kubeconfig } });
        let s = '';
        k.stdout.on('data', (d: Buffer) => { s += d.toString(); });
        k.on('close', () => resolve(s));
      });
      assert.match(ns, /namespace\/default/);
    }
  } finally {
    p.kill('SIGTERM');
    await new Promise((r) => p.once('exit', r));
  }
});

test('wmap sim rejects an unknown scenario and malformed faults', async () => {
  const run = (args: string[]) => new Promise<{ code: number | null; err: string }>((resolve) => {
    const p = spawn(process.execPath, [bin, 'sim', ...args]);
    let err = '';
    p.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    p.on('close', (code) => resolve({ code, err }));
  });
  const a = await run(['--scenario', 'huge']);
  assert.equal(a.code, 1);
  assert.match(a.err, /unknown scenario "huge"/);
  const b = await run(['--scenario', 'empty', '--faults', '{nope']);
  assert.equal(b.code, 1);
  assert.match(b.err, /--faults must be JSON/);
});
