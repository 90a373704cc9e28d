/**
 * Security headers for every response, set by the custom server (the one place every request
 * passes). The Content-Security-Policy allows only this server's own scripts, without
 * 'unsafe-inline' for scripts, in two ways at once:
 *
 * - a fresh nonce per request. Next.js reads the nonce from the *request's* Content-Security-Policy
 *   header and puts it on every script of a dynamically rendered page (its bootstrap and the
 *   inline React Server Components payload), so the custom server sets that header on the request
 *   before handing it to Next, and the same policy on the response;
 * - the SHA-256 hashes of the inline scripts in the prerendered HTML of the build
 *   (`.next/server/**\/*.html`). Static pages are rendered once, at build time, and cannot carry a
 *   per-request nonce; their inline scripts are fixed, so their hashes are allowed. The root
 *   layout's theme boot script carries no nonce on dynamic pages either, and is the same text in
 *   every page, so its hash (found in the prerendered pages) covers it there too.
 *
 * Styles need 'unsafe-inline': Next and React Flow set style attributes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/** `'sha256-…'` sources for every inline script (no `src`) in the given HTML. */
export function inlineScriptHashes(html: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    const [, attrs, body] = m;
    if (/\bsrc\s*=/i.test(attrs) || body === '') continue;
    out.push(`'sha256-${createHash('sha256').update(body, 'utf8').digest('base64')}'`);
  }
  return out;
}

function htmlFiles(dir: string, out: string[] = []): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const full = join(dir, e.name);
    if (e.isDirectory()) htmlFiles(full, out);
    else if (e.name.endsWith('.html')) out.push(full);
  }
  return out;
}

/** The hashes of every inline script in the build's prerendered pages (sorted, unique). */
export function buildScriptHashes(distDir: string): string[] {
  const all = new Set<string>();
  for (const file of htmlFiles(join(distDir, 'server'))) for (const h of inlineScriptHashes(readFileSync(file, 'utf8'))) all.add(h);
  return [...all].sort();
}

export function contentSecurityPolicy(nonce: string, scriptHashes: readonly string[]): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'${scriptHashes.map((h) => ` ${h}`).join('')}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The headers besides the CSP that every response carries. */
export const STATIC_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
};
