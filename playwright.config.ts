import { execFileSync } from 'node:child_process';
import { defineConfig } from '@playwright/test';

/**
 * Browser tests against the real app (`npm start` with the embedded simulated cluster) in Debian's
 * Chromium. The port is chosen once, by the runner, and handed to its workers through the env.
 */
function freePort(): string {
  return execFileSync(process.execPath, ['-e', "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})"]).toString().trim();
}
const port = (process.env.WMAP_E2E_PORT ??= freePort());
const baseURL = `http://127.0.0.1:${port}`;
// The TCP proxy a test puts between the browser and the server (a different Host the server must accept).
const proxyPort = (process.env.WMAP_E2E_PROXY_PORT ??= freePort());

export default defineConfig({
  testDir: './e2e',
  testMatch: /.*\.spec\.ts$/,
  // The tests share one server and one simulated cluster, and the machine has two cores.
  workers: 1,
  fullyParallel: false,
  retries: process.env.CI ? 1 : 0,
  timeout: 90_000,
  expect: { timeout: 20_000 },
  outputDir: 'test-results',
  reporter: [['list']],
  use: {
    baseURL,
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1440, height: 900 },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    },
  },
  webServer: {
    command: `node scripts/start.mjs --demo --port ${port}`,
    url: `${baseURL}/api/clusters`,
    // Utilization refreshed every 2 s and idle after 30 s (a window of several of Prometheus' 5 s scrapes), so that idle GPUs show within a test's time.
    env: { WMAP_TEST_HOOKS: '1', NEXT_TELEMETRY_DISABLED: '1', WMAP_ALLOWED_HOSTS: `127.0.0.1:${proxyPort}`, WMAP_USAGE_INTERVAL: '2s', WMAP_IDLE_WINDOW: '30s' },
    reuseExistingServer: false,
    // The first start builds the app.
    timeout: 240_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
