/**
 * The Host check (DNS rebinding): the server answers only requests addressed to a name it knows it
 * has. Bound to loopback (the default) those are its own loopback names — `127.0.0.1`,
 * `localhost`, `[::1]` — with its own port; bound beyond loopback (which needs an access token)
 * they are those plus the bind address itself and the host names an operator configured
 * (`WMAP_ALLOWED_HOSTS`, `ServeOptions.allowedHosts`), because a server bound to 0.0.0.0 cannot know
 * by which names its clients reach it.
 */
import { problem, type RequestProblem } from './problem.ts';

/** Bind addresses that keep the server on this machine. */
const LOOPBACK_BINDS = new Set(['127.0.0.1', '::1', 'localhost']);
/** The names a loopback server answers to (IPv6 in its URL form). */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];
const WILDCARD_BINDS = new Set(['0.0.0.0', '::', '[::]', '']);

export function isLoopbackBind(host: string): boolean {
  return LOOPBACK_BINDS.has(host);
}

export interface HostPolicy {
  /** Bound beyond loopback (a token is required there). */
  exposed: boolean;
  port: number;
  /** `host:port` keys, lower-case, IPv6 in brackets, every port explicit. */
  allowed: ReadonlySet<string>;
}

export interface Authority {
  host: string;
  port: number | null;
}

/**
 * `host`, `host:port`, `[v6]`, `[v6]:port` (lower-cased); null when it is none of those — user
 * info, paths, spaces, a bare IPv6 address or an empty string are not authorities.
 */
export function parseAuthority(value: string): Authority | null {
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_.])?)(?::(\d{1,5}))?$/.exec(value.trim().toLowerCase());
  if (!m) return null;
  const port = m[2] === undefined ? null : Number(m[2]);
  if (port !== null && (port < 1 || port > 65535)) return null;
  return { host: m[1], port };
}

function key(host: string, port: number): string {
  return `${host}:${port}`;
}

/** An operator's entry: a name or address, with or without a port (a bare IPv6 address is bracketed). */
function entryKey(entry: string, port: number): string {
  const e = entry.trim().toLowerCase();
  const bracketed = e.includes(':') && !e.startsWith('[') && (e.match(/:/g) ?? []).length > 1 ? `[${e}]` : e;
  const a = parseAuthority(bracketed);
  if (!a) throw new Error(`allowed host ${JSON.stringify(entry)} is not a host name or address (with an optional :port)`);
  return key(a.host, a.port ?? port);
}

/** Comma- or space-separated host list, as in `WMAP_ALLOWED_HOSTS`. */
export function parseHostList(value: string | undefined): string[] {
  return (value ?? '').split(/[\s,]+/).filter(Boolean);
}

export function hostPolicy(o: { bindHost: string; port: number; allowedHosts?: readonly string[] }): HostPolicy {
  const exposed = !isLoopbackBind(o.bindHost);
  const allowed = new Set(LOOPBACK_NAMES.map((n) => key(n, o.port)));
  const configured = o.allowedHosts ?? [];
  // On loopback too: a tunnel or local proxy on another port (`ssh -L 8080:127.0.0.1:3000`) sends its own Host.
  if (!exposed) {
    for (const entry of configured) allowed.add(entryKey(entry, o.port));
    return { exposed, port: o.port, allowed };
  }
  if (!WILDCARD_BINDS.has(o.bindHost)) allowed.add(entryKey(o.bindHost, o.port));
  else if (configured.length === 0) {
    throw new Error(`bound to ${o.bindHost || 'every address'}, the server cannot tell which host names are its own: list the names and addresses clients use in WMAP_ALLOWED_HOSTS (e.g. WMAP_ALLOWED_HOSTS=wmap.example.com,10.0.0.5)`);
  }
  for (const entry of configured) allowed.add(entryKey(entry, o.port));
  return { exposed, port: o.port, allowed };
}

/** The request's Host, normalised to a policy key, or the problem with it. */
export function checkHost(policy: HostPolicy, header: string | undefined): { key: string; authority: string } | RequestProblem {
  if (header === undefined || header.trim() === '') return problem(400, 'missing_host', 'the request has no Host header');
  const a = parseAuthority(header);
  if (!a) return problem(400, 'invalid_host', 'the Host header is not a host name or address with an optional port');
  const k = key(a.host, a.port ?? 80);
  if (!policy.allowed.has(k)) {
    const names = policy.exposed ? 'the names configured in WMAP_ALLOWED_HOSTS, its bind address and its loopback names' : `127.0.0.1, localhost and [::1] on port ${policy.port}`;
    return problem(421, 'wrong_host', `this server answers only requests addressed to ${names}`);
  }
  return { key: k, authority: a.port === null ? a.host : k };
}
