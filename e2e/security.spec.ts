/**
 * The real server against hostile requests and a real browser against its Content-Security-Policy:
 * DNS rebinding, cross-site writes, malformed paths, a validation that a web page could make
 * expensive, and the dashboard's own scripts running under the policy (the fixture fails any test
 * on a CSP violation; this file makes sure the pages with the most script ran).
 */
import http from 'node:http';
import { expect, test } from './fixtures.ts';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  ms: number;
}

function raw(base: string, o: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<Answer> {
  const u = new URL(base);
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method: o.method ?? 'GET', path: o.path, headers: { host: u.host, ...o.headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, ms: Date.now() - t0 }));
    });
    req.on('error', reject);
    if (o.body !== undefined) req.write(o.body);
    req.end();
  });
}

const json = (base: string) => ({ 'content-type': 'application/json', origin: base });

test('the pages run under the CSP with no violation, and carry the security headers, no X-Powered-By', async ({ page, baseURL }) => {
  const violations: string[] = [];
  await page.exposeFunction('reportViolation', (v: string) => violations.push(v));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => (window as unknown as { reportViolation(v: string): void }).reportViolation(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const res = await page.goto('/');
  expect(res!.headers()['content-security-policy']).toMatch(/script-src 'self' 'nonce-/);
  expect(res!.headers()['x-powered-by']).toBeUndefined();
  expect(res!.headers()['x-frame-options']).toBe('DENY');
  // Rows and the live indicator only appear when the client scripts ran.
  await expect(page.getByTestId('workload-table').getByRole('row').nth(1)).toBeVisible();
  await expect(page.getByTestId('connection')).toHaveText(/Live|Stale|Connecting|Reconnecting/);
  await page.getByTestId('workload-table').getByRole('row').nth(1).getByRole('link').first().click();
  await expect(page.getByRole('heading').first()).toBeVisible();
  await page.goto('/definitions');
  await expect(page.getByTestId('definitions-table')).toBeVisible();
  expect(violations).toEqual([]);
  void baseURL;
});

test('the validate box posts JSON from the page and shows the result', async ({ page }) => {
  await page.goto('/definitions');
  await page.getByText('Validate a definition').click();
  await page.locator('#validate-text').fill('apiVersion: run.ai/v1alpha1\nkind: Karta\nmetadata: {name: x}\nspec: {}\n');
  await page.getByRole('button', { name: 'Validate' }).click();
  await expect(page.getByText('Not valid. 1 definition read.')).toBeVisible();
});

test('DNS rebinding, cross-site writes and malformed paths get a JSON 4xx', async ({ baseURL }) => {
  const base = baseURL!;
  const rebind = await raw(base, { path: '/api/workloads', headers: { host: 'evil.example' } });
  expect(rebind.status).toBe(421);
  expect(rebind.body).not.toContain('"rows"');
  const crossSite = await raw(base, { method: 'POST', path: '/api/definitions/validate', headers: { 'content-type': 'text/plain', origin: 'http://evil.example' }, body: 'kind: Karta' });
  expect(crossSite.status).toBe(403);
  const plain = await raw(base, { method: 'POST', path: '/api/definitions/validate', headers: { 'content-type': 'text/plain', origin: base }, body: 'kind: Karta' });
  expect(plain.status).toBe(415);
  for (const path of ['/api/workloads/%25/default/JobSet/x', '/api/definitions/%25', '/api/workloads/%E0%A4%A/a/b/c', '/api/definitions/%2525%25']) {
    const a = await raw(base, { path });
    expect(a.status, path).toBeGreaterThanOrEqual(400);
    expect(a.status, path).toBeLessThan(500);
    expect(JSON.parse(a.body).error.code, path).toBeTruthy();
  }
});

test('hostile validations are bounded 4xx or errors, and the server keeps answering meanwhile', async ({ baseURL }) => {
  const base = baseURL!;
  const post = (text: string) => raw(base, { method: 'POST', path: '/api/definitions/validate', headers: json(base), body: JSON.stringify({ text }) });
  const separators = post('---\n'.repeat(100_000));
  const during = await raw(base, { path: '/api/clusters' });
  expect(during.status).toBe(200);
  expect(during.ms).toBeLessThan(1000);
  const sep = await separators;
  expect(sep.status).toBe(200);
  expect(sep.ms).toBeLessThan(5000);
  expect(JSON.parse(sep.body).errors[0].message).toMatch(/more than 10000 documents/);

  const bomb = `a: &a [x,x,x,x,x,x,x,x,x,x]\n${Array.from({ length: 8 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10).fill(`*${String.fromCharCode(97 + i)}`).join(',')}]`).join('\n')}\n`;
  const aliases = await post(bomb);
  expect(aliases.status).toBe(200);
  expect(JSON.parse(aliases.body).errors[0].message).toMatch(/alias/);

  const deep = await post(`apiVersion: run.ai/v1alpha1\nkind: Karta\nmetadata: {name: x}\nspec: {structureDefinition: {rootComponent: {name: r, kind: {group: g, version: v1, kind: K}, instanceIdPath: "${'('.repeat(3000)}.${')'.repeat(3000)}"}}}\n`);
  expect(deep.status).toBe(200);
  expect(JSON.parse(deep.body).valid).toBe(false);

  const nested = await raw(base, { method: 'POST', path: '/api/definitions/validate', headers: json(base), body: `{"text":${'['.repeat(5000)}${']'.repeat(5000)}}` });
  expect(nested.status).toBe(400);
  expect(JSON.parse(nested.body).error.code).toBe('json_too_deep');
  const notJson = await raw(base, { method: 'POST', path: '/api/definitions/validate', headers: json(base), body: '{"text":' });
  expect(notJson.status).toBe(400);
  expect(JSON.parse(notJson.body).error.code).toBe('invalid_json');
});
