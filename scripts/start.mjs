#!/usr/bin/env node
// `npm start`: builds the app once if needed, then serves it on 127.0.0.1 (PORT or --port to change).
import { spawnSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const flag = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const port = flag('--port') ?? flag('-p') ?? process.env.PORT ?? '3000';
const host = flag('--host') ?? flag('-H') ?? process.env.HOST ?? '127.0.0.1';
const next = join(root, 'node_modules', '.bin', 'next');
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };

if (!existsSync(join(root, '.next', 'BUILD_ID')) || args.includes('--rebuild')) {
  console.log('building the app (first start only)...');
  const b = spawnSync(next, ['build'], { cwd: root, stdio: 'inherit', env });
  if (b.status !== 0) process.exit(b.status ?? 1);
}
const child = spawn(next, ['start', '-H', host, '-p', port], { cwd: root, stdio: 'inherit', env });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('close', (code) => process.exit(code ?? 0));
