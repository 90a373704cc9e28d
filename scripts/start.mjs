#!/usr/bin/env node
// `npm start`: builds the app once if needed, then runs `wmap serve` (127.0.0.1:3000 by default;
// PORT or --port to change; --demo forces the embedded simulated cluster). Other flags pass through.
import { spawnSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };
// The compiled CLI, (re)built when missing or older than its sources; without it `wmap` runs through tsx.
await (await import('./build-cli.mjs')).buildCliIfStale({ soft: true });

if (!existsSync(join(root, '.next', 'BUILD_ID')) || args.includes('--rebuild')) {
  console.log('building the app (first start only)...');
  const b = spawnSync(join(root, 'node_modules', '.bin', 'next'), ['build'], { cwd: root, stdio: 'inherit', env });
  if (b.status !== 0) process.exit(b.status ?? 1);
}
const passed = args.filter((a) => a !== '--rebuild');
const child = spawn(process.execPath, [join(root, 'bin', 'wmap.cjs'), 'serve', ...passed], { cwd: root, stdio: 'inherit', env: { ...env, NODE_ENV: 'production' } });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('close', (code) => process.exit(code ?? 0));
