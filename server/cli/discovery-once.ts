/**
 * Discovery for one-shot commands: the aggregated form (`apidiscovery.k8s.io/v2`, GA in Kubernetes
 * 1.30) answers every group and version in two requests, `/api` and `/apis`, where the legacy form
 * takes one per group version (about thirty on a cluster with a few operators). A server that does
 * not speak it answers the legacy lists, and then the cluster layer's own discovery runs.
 *
 * Like kubectl, the answer is kept on disk for a while (`discoverCached`: $WMAP_CACHE_DIR, else
 * $XDG_CACHE_HOME/wmap, else ~/.cache/wmap, `discovery/`; ten minutes, WMAP_DISCOVERY_TTL seconds,
 * 0 = never kept), and read again as soon as something is missing from it (a kind named on the
 * command line, an owner kind met in the objects), so a command sends its first request for the
 * objects themselves.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { apiRequest, discover, type ServedResource } from '../cluster/index.ts';

export interface Discovered {
  resources: ServedResource[];
  /** Preferred version per group (`''` is the core group). */
  preferred: Map<string, string>;
  /** Group versions that did not answer (aggregated APIs down), for reporting. */
  failed: string[];
}

const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
/** What kubectl sends: the aggregated form first, the legacy one as a fallback in one request. */
const ACCEPT = `${AGGREGATED},application/json;q=0.9`;

interface AggregatedList {
  kind?: string;
  items?: Array<{
    metadata?: { name?: string };
    versions?: Array<{
      version: string;
      freshness?: string;
      resources?: Array<{ resource: string; responseKind?: { kind?: string }; scope?: string; singularResource?: string; verbs?: string[]; shortNames?: string[] }>;
    }>;
  }>;
}

/** Reads an aggregated list into served resources; null when the answer is not one (a legacy list). */
export function fromAggregated(body: unknown, into: Discovered): boolean {
  const list = body as AggregatedList;
  if (!list || list.kind !== 'APIGroupDiscoveryList' || !Array.isArray(list.items)) return false;
  for (const g of list.items) {
    const group = g.metadata?.name ?? '';
    const versions = g.versions ?? [];
    // The first version listed is the group's preferred one.
    if (versions[0]) into.preferred.set(group, versions[0].version);
    for (const v of versions) {
      if (v.freshness === 'Stale') into.failed.push(group ? `${group}/${v.version}` : v.version);
      for (const r of v.resources ?? []) {
        if (!r.resource || r.resource.includes('/') || !r.responseKind?.kind) continue;
        into.resources.push({
          group, version: v.version, resource: r.resource, kind: r.responseKind.kind, namespaced: r.scope === 'Namespaced',
          verbs: r.verbs ?? [], singular: r.singularResource || r.responseKind.kind.toLowerCase(), shortNames: Array.isArray(r.shortNames) ? r.shortNames : [],
        });
      }
    }
  }
  return true;
}

export async function discoverOnce(kc: KubeConfig, signal?: AbortSignal): Promise<Discovered> {
  const out: Discovered = { resources: [], preferred: new Map([['', 'v1']]), failed: [] };
  const [core, groups] = await Promise.all(['/api', '/apis'].map((path) => apiRequest(kc, 'GET', path, { accept: ACCEPT, signal })));
  if (fromAggregated(JSON.parse(core.body), out) && fromAggregated(JSON.parse(groups.body), out)) return out;
  const legacy = await discover(kc, signal);
  return { resources: legacy.resources, preferred: legacy.preferred, failed: legacy.failed };
}

/** Where the CLI keeps what it may reuse between runs (discovery; the compile cache lives beside it). */
export function cacheBase(): string {
  return process.env.WMAP_CACHE_DIR || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'wmap');
}

function ttlMs(): number {
  const s = Number(process.env.WMAP_DISCOVERY_TTL ?? 600);
  return Number.isFinite(s) && s >= 0 ? s * 1000 : 600_000;
}

interface Stored {
  server: string;
  at: number;
  resources: ServedResource[];
  preferred: Array<[string, string]>;
}

function storeFile(server: string): string {
  return join(cacheBase(), 'discovery', `${createHash('sha256').update(server).digest('hex').slice(0, 24)}.json`);
}

/**
 * Discovery, from the disk when it was read less than the TTL ago (`fromCache`), else from the
 * server (then stored, unless some group failed to answer). `fresh` skips the disk.
 */
export async function discoverCached(kc: KubeConfig, server: string, signal: AbortSignal | undefined, fresh = false): Promise<Discovered & { fromCache: boolean }> {
  const file = storeFile(server);
  const ttl = ttlMs();
  if (!fresh && ttl > 0) {
    try {
      const s = JSON.parse(readFileSync(file, 'utf8')) as Stored;
      if (s.server === server && Date.now() - s.at < ttl && Array.isArray(s.resources)) return { resources: s.resources, preferred: new Map(s.preferred), failed: [], fromCache: true };
    } catch {
      // none kept, or unreadable: ask the server
    }
  }
  const d = await discoverOnce(kc, signal);
  if (ttl > 0 && d.failed.length === 0) {
    try {
      mkdirSync(join(cacheBase(), 'discovery'), { recursive: true, mode: 0o700 });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ server, at: Date.now(), resources: d.resources, preferred: [...d.preferred] } satisfies Stored), { mode: 0o600 });
      renameSync(tmp, file);
    } catch {
      // a read-only home: no cache, the command still answers
    }
  }
  return { ...d, fromCache: false };
}
