/**
 * Live commands on the live index (`verify`, and the helpers `top`, `logs`, the write commands and
 * `draft` share): they connect with the kubeconfig (kubectl's flags), list and watch every kind the
 * catalog needs, resolve, print and exit — nothing is installed in the cluster. `get`, `tree` and
 * `describe` read less, through snapshot.ts.
 */
import { chooseContext } from './snapshot.ts';
import { loadCatalog } from '../catalog/index.ts';
import { isPod } from '../engine/index.ts';
import { compileCelFilter, groupOfApiVersion, kindRef, parseQuery, runQuery } from '../../lib/rows/index.ts';
import { kindGuess, kindsNamed } from './kind-ref.ts';
import { LiveWorkloads, type WorkloadRow } from '../workloads/index.ts';
import { conservation, type ClusterBalance } from '../workloads/conservation.ts';
import { verifyTree } from '../workloads/definition-trial.ts';
import type { Resolved } from '../workloads/resolver.ts';
import { UsageError, type Io } from './errors.ts';
import { chooseGpuResources } from '../workloads/gpu-resources.ts';
import { chooseUsageSettings } from '../workloads/usage-settings.ts';
import type { UsageSettings } from '../workloads/live.ts';
import type { ClusterUsage } from '../../contract/index.ts';

/** The GPU resources a command counts; a malformed list is a usage error naming the entry. */
export function gpuPatterns(flag: string | undefined): string[] {
  try {
    return chooseGpuResources({ flag }).patterns;
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e), { cause: e });
  }
}

export interface LiveFlags {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  allNamespaces?: boolean;
  output?: string;
  timeout?: string;
  /** The dashboard's URL query (`status=Running&minGpus=8&sort=allocated`): the same rows as that view. */
  query?: string;
  /** `--gpu-resources`: which extended resources count as GPUs (gpu-resources.ts). */
  gpuResources?: string;
  /** Utilization flags (usage-settings.ts); `usage: false` is `--no-usage`. */
  prometheus?: string[];
  idleThreshold?: string;
  idleWindow?: string;
  usageInterval?: string;
  usage?: boolean;
  /** `--idle`: only workloads holding idle GPUs. */
  idle?: boolean;
}

/** The utilization settings a command runs with; a malformed value is a usage error naming it. */
export function usageSettingsOf(flags: Pick<LiveFlags, 'prometheus' | 'idleThreshold' | 'idleWindow' | 'usageInterval' | 'usage'>): UsageSettings | null {
  try {
    return chooseUsageSettings({ flags });
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e), { cause: e });
  }
}

export async function connectOnce(flags: LiveFlags, withUsage = false): Promise<{ live: LiveWorkloads; cluster: string; namespace: string }> {
  const usage = withUsage ? usageSettingsOf(flags) : null;
  const { config, contextNamespace: ctxNs } = chooseContext(flags);
  const live = new LiveWorkloads({ clusters: [config], catalog: LiveWorkloads.catalogEntries(loadCatalog()), initialSyncTimeoutMs: 60_000, gpuResources: gpuPatterns(flags.gpuResources), usage: usage ?? undefined });
  live.start();
  const started = Date.now();
  const deadline = started + Number(flags.timeout ?? 30) * 1000;
  for (;;) {
    const info = live.clusters()[0];
    if (info?.synced) break;
    // Kinds that keep failing will not arrive by waiting longer: answer with what there is, saying so.
    if (Date.now() - started > 5000 && live.connection(config.name)?.settled()) break;
    if (Date.now() > deadline) {
      live.stop();
      throw new UsageError(`cluster ${config.name} (${config.server}) did not answer in time${info?.message ? `: ${info.message}` : ''}`);
    }
    // Give a first failed discovery a few seconds (the connection retries) before giving up.
    if (info?.state === 'unreachable' && Date.now() - started > 3000) {
      live.stop();
      throw new UsageError(`cluster ${config.name} is unreachable: ${info.message ?? config.server}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  live.index.flush();
  // One refresh of the utilization readings (the first is already under way), joined into the rows.
  if (usage) await live.refreshUsage();
  return { live, cluster: config.name, namespace: flags.namespace ?? ctxNs ?? 'default' };
}

/**
 * The rows a `get workloads` shows: the namespace (or every one with -A), then the dashboard's
 * query. Unreadable parameters and unusable CEL are usage errors, as they are 400s in the API.
 */
export function selectRows(all: readonly WorkloadRow[], flags: LiveFlags, namespace: string, now: number): WorkloadRow[] {
  const { query, problems } = parseQuery(flags.query ?? '');
  if (problems.length > 0) throw new UsageError(`--query: ${problems.map((p) => `${p.param} ${p.message}`).join('; ')}`);
  if (query.cel.trim() !== '') {
    const cel = compileCelFilter(query.cel);
    if (!cel.ok) throw new UsageError(`--query: cel: ${cel.error}`);
  }
  // Across namespaces, kubectl lists by namespace, then name.
  if (flags.allNamespaces && !new URLSearchParams(flags.query ?? '').has('sort')) query.sort = 'namespace';
  if (flags.idle) query.preset = 'idle';
  const rows = flags.allNamespaces ? all : all.filter((r) => r.namespace === namespace || r.namespace === '');
  return runQuery(rows, query, now).rows;
}

/** Where utilization comes from and how old it is, on stderr: a figure shown as n/a says why here. */
export function warnUsage(clusters: ReadonlyArray<{ name: string; usage?: ClusterUsage }>, io: Io, now: number): void {
  for (const c of clusters) {
    const u = c.usage;
    if (!u) continue;
    if (u.source === 'none') {
      io.err(`utilization: cluster ${c.name} has no source${u.detail ? ` (${u.detail})` : ''}${u.error ? `: ${u.error}` : ''}; figures are n/a`);
      continue;
    }
    const age = u.at ? `${Math.max(0, Math.round((now - Date.parse(u.at)) / 1000))}s old` : 'none yet';
    const covered = u.coverage.gpuPods === null ? '' : `, ${u.coverage.withMetrics ?? 0} of ${u.coverage.gpuPods} GPU pods measured`;
    io.err(`utilization: cluster ${c.name} from ${u.detail}, readings ${age}${covered}; idle means < ${u.idle.thresholdPercent}% for ${u.idle.windowSeconds}s${u.error ? `; last refresh: ${u.error}` : ''}`);
  }
}

/** KIND/NAME, where KIND is a kind name in any case or its plural (`jobset/train`, `JobSets/train`). */
function parseRef(ref: string): { kind: string; name: string } {
  const i = ref.indexOf('/');
  if (i <= 0 || i === ref.length - 1) throw new UsageError(`expected KIND/NAME, got "${ref}"`);
  return { kind: ref.slice(0, i).toLowerCase(), name: ref.slice(i + 1) };
}

/**
 * The workload a `KIND/NAME` argument names in a namespace (or cluster-scoped): the kind read as
 * kubectl reads it (kind-ref.ts). Two workloads of that name under kinds of different groups make
 * the argument ambiguous: the error lists them with their groups, as kubectl would want them named.
 */
export function findResolved(live: LiveWorkloads, cluster: string, namespace: string, ref: string): Resolved {
  const { kind, name } = parseRef(ref);
  const named = kindsNamed(kind, live.connection(cluster)?.servedResources() ?? []);
  const guess = kindGuess(kind);
  const rows = live.index.allRows().filter((r) => {
    if (r.name !== name || !(r.namespace === namespace || r.namespace === '')) return false;
    const g = groupOfApiVersion(r.apiVersion);
    return named.size > 0 ? named.has(`${g}/${r.kind}`) : guess(g, r.kind);
  });
  if (rows.length === 0) throw new UsageError(`no workload ${ref} in namespace ${namespace} of cluster ${cluster}`);
  if (rows.length > 1) throw new UsageError(`${ref} is ambiguous in namespace ${namespace}: ${rows.map((r) => `${kindRef(r.kind, r.apiVersion).toLowerCase()}/${r.name}`).join(', ')}; name the kind with its group`);
  const at = live.index.rootOfRow(rows[0].id)!;
  return live.index.resolve(at.cluster, at.uid)!;
}

// The comparison itself is the trial's (definition-trial.ts), shared with the dashboard's studio.
export { verifyTree, type Discrepancy } from '../workloads/definition-trial.ts';

/**
 * The cluster-wide check of `verify --all`: per GPU resource, the rows' sum against the live pods'
 * (from their specs, by the check's own code); each difference, each pod no row counts and each
 * unreadable quantity is a discrepancy. Returns how many.
 */
function printConservation(balances: ClusterBalance[], io: Io): number {
  let bad = 0;
  for (const b of balances) {
    for (const r of b.resources) {
      const line = `${b.cluster}: ${r.resource}: rows count ${r.rows}, live pods request ${r.pods}`;
      if (r.rows === r.pods) io.err(`ok   ${line}`);
      else {
        bad++;
        io.out(line);
      }
    }
    for (const p of b.uncounted) {
      bad++;
      io.out(`${b.cluster}: pod ${p} holds GPUs but no row counts it`);
    }
    for (const u of b.unreadable) {
      bad++;
      io.out(`${b.cluster}: pod ${u}: not a whole number of devices`);
    }
  }
  return bad;
}

export async function cmdVerify(ref: string | undefined, flags: LiveFlags & { all?: boolean }, io: Io): Promise<number> {
  if (!ref && !flags.all) throw new UsageError('verify: name a workload as KIND/NAME, or use --all');
  const { live, cluster, namespace } = await connectOnce(flags);
  try {
    let resolved: Resolved[];
    if (ref) resolved = [findResolved(live, cluster, namespace, ref)];
    else {
      const rows = live.index.allRows().filter((r) => flags.allNamespaces || r.namespace === namespace || r.namespace === '');
      resolved = rows.map((r) => live.index.rootOfRow(r.id)).flatMap((at) => (at ? [live.index.resolve(at.cluster, at.uid)!] : []));
    }
    let bad = 0;
    for (const r of resolved) {
      const t = r.tree;
      const pods = isPod(r.object) ? [r.object] : r.owned.filter(isPod);
      const d = verifyTree(t, pods, live.index.gpuResources);
      if (d.length === 0) io.err(`ok   ${t.workload.kind} ${t.workload.namespace}/${t.workload.name}`);
      for (const x of d) {
        bad++;
        io.out(`${x.workload}: ${x.message}`);
      }
    }
    if (flags.all) bad += printConservation(conservation(live.index), io);
    io.err(`${resolved.length} workloads verified, ${bad} discrepancies`);
    return bad === 0 ? 0 : 1;
  } finally {
    live.stop();
  }
}

