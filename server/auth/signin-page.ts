/**
 * The sign-in page of shared mode, served by the gate itself (it must work before anything else is
 * allowed): one form for a Kubernetes bearer token (or the access token), and an OIDC link when a
 * provider is configured. Plain HTML, no script, every value escaped.
 */

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export interface SignInPage {
  next: string;
  error?: string;
  tokens: boolean;
  oidc: boolean;
  accessToken: boolean;
}

const STYLE = `body{font:15px system-ui,sans-serif;background:#0b0f17;color:#e6e9ef;display:grid;place-items:center;min-height:100vh;margin:0}
main{width:min(30rem,92vw);background:#141a26;border:1px solid #2a3344;border-radius:10px;padding:1.5rem 1.75rem}
h1{font-size:1.25rem;margin:0 0 .25rem}p{color:#b6bfcf;margin:.25rem 0 1rem}label{display:block;font-weight:600;margin:.75rem 0 .35rem}
textarea{width:100%;box-sizing:border-box;min-height:6rem;font:13px ui-monospace,monospace;background:#0b0f17;color:#e6e9ef;border:1px solid #3a4458;border-radius:6px;padding:.5rem}
button,a.button{display:inline-block;margin-top:.9rem;padding:.5rem 1rem;border-radius:6px;border:0;background:#1d4ed8;color:#fff;font-weight:600;text-decoration:none;cursor:pointer}
.error{background:#3b1219;border:1px solid #b4232f;color:#ffd9dc;padding:.5rem .75rem;border-radius:6px}
.or{margin:1.25rem 0 .25rem;color:#b6bfcf}code{font:13px ui-monospace,monospace}`;

export function signInPageHtml(p: SignInPage): string {
  const next = esc(p.next);
  const what = p.tokens ? (p.accessToken ? 'a Kubernetes bearer token or the access token' : 'a Kubernetes bearer token') : 'the access token';
  const tokenForm = p.tokens || p.accessToken
    ? `<form method="post" action="/auth/signin">
<input type="hidden" name="next" value="${next}">
<label for="token">Sign in with ${what}</label>
<textarea id="token" name="token" autocomplete="off" spellcheck="false" required aria-describedby="token-help"></textarea>
<p id="token-help">${p.tokens ? 'For example the output of <code>kubectl create token NAME -n NAMESPACE</code>. It is checked with the cluster (TokenReview) and kept on the server; the browser gets only a session cookie.' : 'The token the server was started with.'}</p>
<button type="submit">Sign in</button>
</form>`
    : '';
  const oidc = p.oidc ? `${tokenForm ? '<p class="or">or</p>' : ''}<a class="button" href="/auth/oidc/login?next=${encodeURIComponent(p.next)}">Sign in with your identity provider</a>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Sign in · workload-map</title><style>${STYLE}</style></head>
<body><main><h1>workload-map</h1><p>This dashboard is shared: sign in to see the workloads you may see.</p>
${p.error ? `<p class="error" role="alert">${esc(p.error)}</p>` : ''}${tokenForm}${oidc}</main></body></html>`;
}

/** The page an OIDC callback answers with: a same-site step, so that the SameSite=Strict session cookie is sent on the way in. */
export function continuePageHtml(next: string): string {
  const n = esc(next);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${n}"><title>Signed in · workload-map</title></head><body><p>Signed in. <a href="${n}">Continue</a></p></body></html>`;
}
