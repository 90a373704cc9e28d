/**
 * `wmap tree KIND/NAME` (or `KIND NAME`, or `KIND -l SELECTOR` for every workload of a kind): the
 * workload tree of live objects, with kubectl's habits — `-o tree|wide|json|yaml|name|jsonpath=…|
 * custom-columns=…`, `-l`, `--field-selector`, `--phase`, `--status`, `--sort-by`, `--no-headers`,
 * `-n`/`-A`, NotFound as kubectl says it. It reads only what the workload needs (snapshot.ts).
 */
import type { WorkloadTree } from '../engine/index.ts';
import type { WorkloadRow } from '../workloads/index.ts';
import type { Resolved } from '../workloads/resolver.ts';
import { kindRef } from '../../lib/rows/index.ts';
import { UsageError, type Io } from './errors.ts';
import { gpuPatterns } from './live-commands.ts';
import { rowFilterOf, rowName, rowPasses, sortRowsBy, warnFailures, type GetFlags } from './get-command.ts';
import { listOf, parseOutput, printMachine } from './output.ts';
import { renderTree, reportTreeProblems } from './render-tree.ts';
import { readSnapshot, type Snapshot, type SnapshotScope } from './snapshot.ts';

/** `KIND/NAME`, `KIND NAME` or `KIND` (then a selector, or every workload of the kind). */
export function parseWorkloadArgs(ref: string, name: string | undefined): { kind: string; name?: string } {
  const i = ref.indexOf('/');
  if (i >= 0) {
    if (name !== undefined) throw new UsageError(`there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'wmap tree ${ref}' instead of 'wmap tree ${ref} ${name}')`);
    if (i === 0 || i === ref.length - 1) throw new UsageError(`expected KIND/NAME, got "${ref}"`);
    return { kind: ref.slice(0, i), name: ref.slice(i + 1) };
  }
  return name === undefined ? { kind: ref } : { kind: ref, name };
}

/**
 * The workloads a scope names in a snapshot. One named object that is no workload of its own (a
 * RayCluster its RayJob owns, a Job of a JobSet) says whose it is; with a kind only, every workload
 * of that kind in scope that passes the filters.
 */
export function selectWorkloads(snap: Snapshot, scope: { kind: string; name?: string }, flags: GetFlags): Resolved[] {
  const { index, cluster } = snap;
  const filter = rowFilterOf(flags);
  const resolved = (row: WorkloadRow) => {
    const at = index.rootOfRow(row.id);
    return at ? index.resolve(at.cluster, at.uid) : null;
  };
  if (scope.name !== undefined) {
    const obj = snap.roots[0];
    const uid = String(obj?.metadata?.uid ?? '');
    const id = index.rowIdOf(cluster, uid);
    const row = id ? index.row(id) : undefined;
    if (!row) throw new UsageError(`${scope.kind}/${scope.name} is no workload: no definition serves it and it owns no pods`);
    if (index.rootOfRow(row.id)?.uid !== uid) throw new UsageError(`${kindRef(String(obj.kind), String(obj.apiVersion)).toLowerCase()}/${scope.name} is part of the workload ${rowName(row)}${row.namespace ? ` in namespace ${row.namespace}` : ''}: wmap tree ${rowName(row)}`);
    const r = resolved(row);
    return r ? [r] : [];
  }
  const uids = new Set(snap.roots.map((o) => String(o.metadata?.uid ?? '')));
  const rows = index.allRows().filter((r) => {
    const at = index.rootOfRow(r.id);
    if (!at || !uids.has(at.uid)) return false;
    if (!snap.allNamespaces && r.namespace !== snap.namespace && r.namespace !== '') return false;
    return rowPasses(snap, filter, r);
  });
  const sorted = sortRowsBy(flags.sortBy ? rows : [...rows].sort((a, b) => (a.namespace + '/' + a.name < b.namespace + '/' + b.name ? -1 : 1)), flags.sortBy);
  return sorted.map(resolved).filter((r): r is Resolved => r !== null);
}

/** The scope of a `tree`/`describe` call; a name and a selector together are refused, as kubectl refuses them. */
export function workloadScope(ref: string, name: string | undefined, flags: GetFlags): SnapshotScope & { kind: string; name?: string } {
  const scope = parseWorkloadArgs(ref, name);
  if (scope.name !== undefined && flags.selector) throw new UsageError('name cannot be provided when a selector is specified');
  if (scope.name !== undefined && flags.allNamespaces) throw new UsageError('a resource cannot be retrieved by name across all namespaces');
  return scope;
}

function treeName(t: WorkloadTree): string {
  return `${kindRef(t.workload.kind, t.workload.apiVersion).toLowerCase()}/${t.workload.name}`;
}

const FORMATS = ['tree', 'wide', 'json', 'yaml', 'name', 'jsonpath', 'custom-columns'] as const;

export async function cmdTree(ref: string, name: string | undefined, flags: GetFlags, io: Io): Promise<number> {
  const out = parseOutput(flags.output, FORMATS);
  rowFilterOf(flags);
  const scope = workloadScope(ref, name, flags);
  const snap = await readSnapshot({ ...flags, gpuResources: gpuPatterns(flags.gpuResources) }, scope);
  try {
    for (const n of snap.notes) io.err(`warning: ${n}`);
    warnFailures(snap, io);
    const trees = selectWorkloads(snap, scope, flags).map((r) => r.tree);
    if (trees.length === 0) {
      io.err(snap.allNamespaces ? `No ${ref} workloads found.` : `No ${ref} workloads found in ${snap.namespace} namespace.`);
      return 0;
    }
    const one = scope.name !== undefined;
    const whole = one ? trees[0] : listOf(trees);
    if (!printMachine(out, trees, whole, { name: (t) => treeName(t as WorkloadTree), noHeaders: flags.headers === false }, io.out)) {
      io.out(trees.map((t) => renderTree(t, { wide: out.kind === 'wide' })).join('\n\n'));
    }
    // Errors and warnings of each tree on stderr (the tree output shows its errors itself); exit 1 on errors.
    const shown = out.kind === 'default' || out.kind === 'wide' || out.kind === 'tree' ? 'tree' : 'json';
    let code = 0;
    for (const t of trees) code = Math.max(code, reportTreeProblems(t, shown, io.err));
    return code;
  } finally {
    snap.stop();
  }
}
