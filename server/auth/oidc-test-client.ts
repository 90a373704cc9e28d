/**
 * Test support: a user agent, scripted over fetch, that signs in on the test provider's pages
 * (oidc-test-provider.ts) the way a browser would — following redirects by hand, keeping the
 * provider's cookies (which are scoped by path: `_interaction` to /interaction/<uid>,
 * `_interaction_resume` to /auth/<uid>) and posting the login form — and stops at the redirect that
 * leaves the provider, which is the application's callback.
 */

interface Cookie {
  name: string;
  value: string;
  path: string;
}

/** Just enough of RFC 6265 for one origin: name, value and Path; a Max-Age of 0 or past Expires removes. */
export class CookieJar {
  private cookies: Cookie[] = [];

  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      let path = '/';
      let gone = false;
      for (const attr of attrs) {
        const [k, v = ''] = attr.split('=').map((s) => s.trim());
        const key = k.toLowerCase();
        if (key === 'path' && v.startsWith('/')) path = v;
        if (key === 'max-age' && Number(v) <= 0) gone = true;
        if (key === 'expires' && Date.parse(v) <= Date.now()) gone = true;
      }
      this.cookies = this.cookies.filter((c) => !(c.name === name && c.path === path));
      if (!gone) this.cookies.push({ name, value, path });
    }
  }

  header(url: URL): string {
    const matches = (p: string) => url.pathname === p || url.pathname.startsWith(p.endsWith('/') ? p : `${p}/`);
    return this.cookies
      .filter((c) => matches(c.path))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }
}

export type SignInAction = { username: string; password: string } | 'cancel';

/**
 * Follows `authorizationUrl` through the provider, answering the login form once with `action`,
 * and returns where the provider finally sends the user agent: the application's redirect URI with
 * a code or an error. Throws when the provider stops at a page instead (a wrong password shows the
 * form again); the error's `page` is that page's HTML.
 */
export async function scriptedSignIn(authorizationUrl: string, action: SignInAction, jar = new CookieJar(), maxSteps = 20): Promise<URL> {
  let url = new URL(authorizationUrl);
  const origin = url.origin;
  let init: RequestInit = { method: 'GET' };
  let submitted = false;
  for (let step = 0; step < maxSteps; step++) {
    const headers = new Headers(init.headers);
    const cookie = jar.header(url);
    if (cookie) headers.set('cookie', cookie);
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    jar.store(res);
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel();
      url = new URL(location, url);
      init = { method: 'GET' };
      if (url.origin !== origin) return url;
      continue;
    }
    const html = await res.text();
    const form = /<form method="post" action="([^"]+)"/.exec(html);
    if (res.status !== 200 || !form || submitted) throw Object.assign(new Error(`the provider stopped at a page (HTTP ${res.status})`), { page: html });
    submitted = true;
    const body = action === 'cancel' ? new URLSearchParams({ action: 'cancel' }) : new URLSearchParams({ action: 'login', username: action.username, password: action.password });
    url = new URL(form[1].replace(/&#(\d+);/g, (_m, n: string) => String.fromCharCode(Number(n))), url);
    init = { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  }
  throw new Error(`no redirect out of the provider after ${maxSteps} steps`);
}
