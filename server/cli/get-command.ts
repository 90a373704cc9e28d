/**
 * `wmap get workloads [NAME...]` or `wmap get KIND[/NAME]`: one line per workload, with kubectl's habits — `-o json|yaml|wide|
 * name|jsonpath=…|custom-columns=…`, `-l` on the root object's labels, `--field-selector`
 * (metadata.name, metadata.namespace, status.phase), `--phase`, `--status`, `--sort-by` (a JSONPath
 * or a dashboard sort name), `--no-headers`, `--chunk-size`, `-w`. Names that match no workload are
 * kubectl's NotFound, after the ones found are printed (exit 1).
 */
import { columnsFor, defaultOrderFor, kindRef, printRowTable, SORT_KEYS, sortRows, type SortKey } from '../../lib/rows/index.ts';
import { groupKindOf, type WorkloadRow } from '../workloads/index.ts';
import { clusterUsageOf } from '../workloads/live.ts';
import { UsageFeed } from '../usage/index.ts';
import { notFound, UsageError, type Io } from './errors.ts';
import { isWorkloadsWord } from './kind-ref.ts';
import { gpuPatterns, selectRows, usageSettingsOf, warnUsage, type LiveFlags } from './live-commands.ts';
import { listOf, parseOutput, printMachine, sortByPath, type Output } from './output.ts';
import { fieldsMatch, labelsMatch, parseFieldSelector, parseLabelSelector, SelectorError, type FieldRequirement, type Requirement } from './selectors.ts';
import { readSnapshot, resourceName, type Snapshot } from './snapshot.ts';
import { watchRows } from './watch.ts';

export interface KubectlFlags {
  selector?: string;
  fieldSelector?: string;
  phase?: string;
  status?: string;
  sortBy?: string;
  /** `--no-headers` (commander's negated flag). */
  headers?: boolean;
  chunkSize?: string;
  watch?: boolean;
}

export type GetFlags = LiveFlags & KubectlFlags;

/** The fields `--field-selector` reads on a workload. */
export const WORKLOAD_FIELDS = ['metadata.name', 'metadata.namespace', 'status.phase'] as const;

export interface RowFilter {
  labels: Requirement[];
  fields: FieldRequirement[];
  phases: string[] | null;
  statuses: string[] | null;
}

const list = (s: string | undefined) => (s === undefined ? null : s.split(',').map((x) => x.trim().toLowerCase()).filter(Boolean));

/** The filters of the flags, read before anything is sent: a malformed selector is a usage error. */
export function rowFilterOf(flags: KubectlFlags): RowFilter {
  try {
    return {
      labels: flags.selector ? parseLabelSelector(flags.selector) : [],
      fields: flags.fieldSelector ? parseFieldSelector(flags.fieldSelector, WORKLOAD_FIELDS) : [],
      phases: list(flags.phase),
      statuses: list(flags.status),
    };
  } catch (e) {
    if (e instanceof SelectorError) throw new UsageError(e.message);
    throw e;
  }
}

/** The labels of a row's root object, from the snapshot. */
function rootLabels(snap: Snapshot, row: WorkloadRow): Record<string, string> | undefined {
  const at = snap.index.rootOfRow(row.id);
  const obj = at ? snap.index.object(at.cluster, at.uid) : undefined;
  return obj?.metadata?.labels as Record<string, string> | undefined;
}

export function rowPasses(snap: Snapshot, f: RowFilter, row: WorkloadRow): boolean {
  if (f.statuses && !f.statuses.includes(row.status.toLowerCase())) return false;
  if (f.labels.length > 0 && !labelsMatch(f.labels, rootLabels(snap, row))) return false;
  // The native phase is the tree's (rows do not carry it): resolved only when a filter asks for it.
  const needPhase = f.phases !== null || f.fields.some((x) => x.field === 'status.phase');
  let phase = '';
  if (needPhase) {
    const at = snap.index.rootOfRow(row.id);
    phase = (at ? snap.index.resolve(at.cluster, at.uid)?.tree.status.phase : null) ?? '';
  }
  if (f.phases && !f.phases.includes(phase.toLowerCase())) return false;
  return fieldsMatch(f.fields, (field) => (field === 'metadata.name' ? row.name : field === 'metadata.namespace' ? row.namespace : field === 'status.phase' ? phase : null));
}

/** `--sort-by`: a dashboard sort name (`allocated`, `age`, …) or a JSONPath over the row (`.gpus.allocated`). */
export function sortRowsBy(rows: WorkloadRow[], spec: string | undefined): WorkloadRow[] {
  if (!spec) return rows;
  if ((SORT_KEYS as readonly string[]).includes(spec)) return sortRows(rows, spec as SortKey, defaultOrderFor(spec as SortKey));
  return sortByPath(rows, spec);
}

/** `jobset.jobset.x-k8s.io/train`, as `kubectl get -o name` names an object. */
export function rowName(r: WorkloadRow): string {
  return `${kindRef(r.kind, r.apiVersion).toLowerCase()}/${r.name}`;
}

const FORMATS = ['json', 'yaml', 'wide', 'name', 'jsonpath', 'custom-columns'] as const;

/** Joins one refresh of GPU utilization into the snapshot's rows (the outputs that show it). */
async function readUsage(snap: Snapshot, flags: LiveFlags, io: Io, now: number, say: boolean): Promise<void> {
  const settings = usageSettingsOf(flags);
  if (!settings) return;
  const feed = new UsageFeed(snap.cluster, snap.kubeconfig, { prometheus: settings.prometheus?.[snap.cluster] ?? settings.prometheus?.['*'], idle: settings.idle, intervalSeconds: settings.intervalSeconds, rediscoverSeconds: settings.rediscoverSeconds }, (s) => snap.index.setUsage(snap.cluster, s));
  try {
    await feed.refresh();
  } finally {
    feed.stop();
  }
  snap.index.flush();
  if (say) warnUsage([{ name: snap.cluster, usage: clusterUsageOf(snap.cluster, feed.snapshot(), snap.index) }], io, now);
}

function printRows(out: Output, rows: WorkloadRow[], snap: Snapshot, flags: GetFlags, now: number, io: Io, header: boolean): void {
  if (printMachine(out, rows, out.kind === 'json' || out.kind === 'yaml' ? rows : listOf(rows), { name: (r) => rowName(r as WorkloadRow), noHeaders: !header || flags.headers === false }, io.out)) return;
  const text = printRowTable(rows, columnsFor({ wide: out.kind === 'wide', oneNamespace: !snap.allNamespaces, oneCluster: true }), now);
  const lines = text.split('\n');
  io.out((header && flags.headers !== false ? lines : lines.slice(1)).join('\n'));
}

/**
 * `get KIND[/NAME] [NAME…]` as kubectl takes it: one kind (a resource, short name, singular or
 * `kind.group`, as discovery names it) and the names of its objects, either after the kind or each
 * as KIND/NAME. Undefined for `get workloads` (every kind).
 */
export function parseGetArgs(args: string[]): { kind: string | undefined; names: string[] } {
  const [first, ...rest] = args;
  if (first === undefined) throw new UsageError('you must specify the type of resource to get: workloads (every kind) or a kind, e.g. jobsets or pytorchjob.kubeflow.org');
  if (!first.includes('/')) {
    const slashed = rest.find((a) => a.includes('/'));
    if (slashed) throw new UsageError(`there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'wmap get ${slashed}' instead of 'wmap get ${first} ${slashed}')`);
    return { kind: isWorkloadsWord(first) ? undefined : first, names: rest };
  }
  const refs = args.map((a) => {
    const i = a.indexOf('/');
    if (i <= 0 || i === a.length - 1) throw new UsageError(`arguments in resource/name form must have a single resource and name, got "${a}"`);
    return { kind: a.slice(0, i), name: a.slice(i + 1) };
  });
  const kinds = new Set(refs.map((r) => r.kind.toLowerCase()));
  if (kinds.size > 1) throw new UsageError(`one kind at a time: ${[...kinds].join(', ')}`);
  return { kind: isWorkloadsWord(refs[0].kind) ? undefined : refs[0].kind, names: refs.map((r) => r.name) };
}

/**
 * `wmap get workloads [NAME…]` (kind undefined) or `wmap get KIND [NAME…]`: the workloads whose root
 * object is of that kind (a Job of a JobSet is the JobSet's, not a workload of its own).
 */
export async function cmdGet(names: string[], flags: GetFlags, io: Io, kind?: string): Promise<number> {
  const out = parseOutput(flags.output, FORMATS);
  const filter = rowFilterOf(flags);
  if (names.length > 0 && flags.selector) throw new UsageError('name cannot be provided when a selector is specified');
  const snap = await readSnapshot({ ...flags, gpuResources: gpuPatterns(flags.gpuResources) }, kind === undefined ? { all: true } : { kind });
  try {
    const now = Date.now();
    const wantUsage = flags.usage !== false && (out.kind !== 'default' || !!flags.idle);
    if (wantUsage) await readUsage(snap, flags, io, now, out.kind === 'wide' || !!flags.idle);
    for (const n of snap.notes) io.err(`warning: ${n}`);
    warnFailures(snap, io);
    // With a kind, the rows whose root is of it (by group and kind, so that a watch keeps new ones).
    const ofKind = kind === undefined ? null : new Set([...snap.roots.map(groupKindOf), ...(snap.rootResource ? [`${snap.rootResource.group}/${snap.rootResource.kind}`] : [])]);
    const isOfKind = (r: WorkloadRow) => ofKind === null || ofKind.has(groupKindOf(r));
    const pass = (r: WorkloadRow) => isOfKind(r) && rowPasses(snap, filter, r) && (names.length === 0 || names.includes(r.name));
    const rows = sortRowsBy(selectRows(snap.index.allRows(), flags, snap.namespace, now).filter(pass), flags.sortBy);
    // A kind's own resource name in NotFound (`jobsets.jobset.x-k8s.io`); rootResource is null for every kind.
    const resource = snap.rootResource ? resourceName(snap.rootResource) : 'workloads';
    const missing = names.filter((n) => !rows.some((r) => r.name === n));
    if (rows.length > 0 || (out.kind !== 'default' && out.kind !== 'wide' && out.kind !== 'name' && out.kind !== 'custom-columns')) printRows(out, rows, snap, flags, now, io, true);
    else if (names.length === 0 && !flags.watch) io.err(kind === undefined ? (snap.allNamespaces ? 'No workloads found.' : `No workloads found in ${snap.namespace} namespace.`) : (snap.allNamespaces ? 'No resources found' : `No resources found in ${snap.namespace} namespace.`));
    for (const n of missing) io.err(notFound(resource, n).message);
    if (!flags.watch) return missing.length > 0 ? 1 : 0;
    // Rows as they change, until interrupted.
    const inScope = (r: WorkloadRow) => (snap.allNamespaces || r.namespace === snap.namespace || r.namespace === '') && pass(r);
    await watchRows(snap, (changes) => {
      const shown = changes.filter((c) => inScope(c.row)).map((c) => c.row);
      // Like kubectl -w: an object per change in json/yaml, rows without the header otherwise.
      if (out.kind === 'json' || out.kind === 'yaml') for (const r of shown) printMachine(out, [r], r, { name: () => '', noHeaders: true }, io.out);
      else if (shown.length > 0) printRows(out, shown, snap, flags, Date.now(), io, false);
    }, io.interrupted?.() ?? new Promise(() => {}));
    return 0;
  } finally {
    snap.stop();
  }
}

/** Kinds that could not be read: what depends on them is unknown, and stderr says so (as the live commands do). */
export function warnFailures(snap: Snapshot, io: Io): void {
  for (const f of [...snap.failures.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) io.err(`warning: ${f.name} cannot be read: ${f.message}; workloads built from them may be incomplete`);
}
