/**
 * The workloads table's columns, once: what the dashboard's table and `wmap get workloads` both
 * print. Each column has its header, its width in the table, the sort keys behind it, kubectl's
 * priority (0: always; 1: only with `-o wide`) and its text. The table may render a richer cell
 * (a badge, a bar) for a column, but it takes the column list, headers, widths and sorts from here.
 */
import type { WorkloadRow } from '../../contract/index.ts';
import { humanAge } from '../format/duration.ts';
import { formatGpus } from '../format/gpus.ts';
import { displayKind } from './identity.ts';
import type { SortKey } from './query.ts';

export type ColumnKey = 'kind' | 'name' | 'namespace' | 'cluster' | 'status' | 'gpus' | 'util' | 'memory' | 'idle' | 'pods' | 'roles' | 'age' | 'definition' | 'reason' | 'stale';

export interface ColumnSort {
  key: SortKey;
  /** Shown in the header when a column has several sorts (`alloc / req / desired`). */
  label: string;
  title: string;
}

export interface RowColumn {
  key: ColumnKey;
  /** The table's header; the CLI prints it upper-cased unless `cliHeader` says otherwise. */
  header: string;
  cliHeader?: string;
  /** CSS grid track in the table. */
  width: string;
  /** How the column sorts; several for GPUs (allocated, requested, desired). */
  sorts: ColumnSort[];
  /** kubectl's column priority: 0 always shown, 1 only in the wide output. */
  priority: 0 | 1;
  /** Shown in the dashboard's table although the CLI prints it only wide (default: priority 0). */
  inTable?: boolean;
  /**
   * A column that kubectl leaves out when the listing covers only one namespace (NAMESPACE without
   * `-A`) or one cluster (one kubeconfig context).
   */
  scope?: 'namespace' | 'cluster';
  align?: 'right';
  /** The cell as text; `null` when the row has nothing to show (printed as `<none>` or `—`). */
  text(row: WorkloadRow, now: number): string | null;
}

const single = (key: SortKey, header: string): ColumnSort[] => [{ key, label: header, title: `Sort by ${header.toLowerCase()}` }];

export const ROW_COLUMNS: readonly RowColumn[] = [
  { key: 'kind', header: 'Kind', width: 'minmax(150px,1fr)', sorts: single('kind', 'Kind'), priority: 0, text: (r) => displayKind(r.kind, r.apiVersion) },
  { key: 'name', header: 'Name', width: 'minmax(200px,2.2fr)', sorts: single('name', 'Name'), priority: 0, text: (r) => r.name },
  { key: 'namespace', header: 'Namespace', width: 'minmax(120px,1fr)', sorts: single('namespace', 'Namespace'), priority: 0, scope: 'namespace', text: (r) => r.namespace || null },
  { key: 'cluster', header: 'Cluster', width: 'minmax(90px,0.8fr)', sorts: single('cluster', 'Cluster'), priority: 0, scope: 'cluster', text: (r) => r.cluster },
  { key: 'status', header: 'Status', width: '128px', sorts: single('status', 'Status'), priority: 0, text: (r) => r.status },
  {
    key: 'gpus',
    header: 'GPUs',
    cliHeader: 'GPUS(ALLOC/REQ/DESIRED)',
    width: '190px',
    sorts: [
      { key: 'allocated', label: 'alloc', title: 'Sort by GPUs allocated (pods bound to a node, not finished)' },
      { key: 'requested', label: 'req', title: 'Sort by GPUs requested (live, non-terminal pods)' },
      { key: 'desired', label: 'desired', title: 'Sort by GPUs desired (templates × replicas)' },
    ],
    priority: 0,
    text: (r) => (['allocated', 'requested', 'desired'] as const).map((f) => (r.gpus.unknown.includes(f) ? '?' : formatGpus(r.gpus[f]))).join('/'),
  },
  // Utilization: the allocated GPUs' average, "n/a" without readings (never 0), nothing without GPUs.
  { key: 'util', header: 'Util', width: '96px', sorts: single('utilization', 'Util'), priority: 1, inTable: true, align: 'right', text: (r) => (r.usage ? formatPercent(r.usage.utilization) : null) },
  { key: 'memory', header: 'GPU mem', cliHeader: 'GPU-MEM', width: '104px', sorts: [], priority: 1, inTable: true, align: 'right', text: (r) => (r.usage ? formatMemory(r.usage.memory) : null) },
  {
    key: 'idle',
    header: 'Idle',
    width: '110px',
    sorts: [{ key: 'idle', label: 'Idle', title: 'Sort by idle GPUs (allocated, below the idle threshold for the idle window)' }],
    priority: 1,
    inTable: true,
    align: 'right',
    text: (r, now) => (r.usage ? formatIdle(r.usage.idle, r.usage.idleSince, now) : null),
  },
  { key: 'pods', header: 'Pods', width: '88px', sorts: single('pods', 'Pods'), priority: 0, align: 'right', text: podsCell },
  { key: 'roles', header: 'Roles', width: 'minmax(150px,1.5fr)', sorts: single('roles', 'Roles'), priority: 0, text: (r) => r.rolesSummary || null },
  { key: 'age', header: 'Age', width: '60px', sorts: single('age', 'Age'), priority: 0, align: 'right', text: (r, now) => humanAge(r.createdAt, now) },
  { key: 'definition', header: 'Definition', width: 'minmax(160px,1.5fr)', sorts: [], priority: 1, text: (r) => (r.definition.source === 'none' ? null : r.definition.name) },
  { key: 'reason', header: 'Reason', width: 'minmax(160px,2fr)', sorts: [], priority: 1, text: (r) => r.statusReason },
  // How long the row has been built from kinds that cannot be read (the name cell marks it in the table).
  { key: 'stale', header: 'Stale', width: '90px', sorts: [], priority: 1, text: (r, now) => (r.stale ? `${humanAge(r.stale.since, now)}: ${r.stale.kinds.join(',')}` : null) },
];

/** A percentage as a column shows it; `n/a` when unknown. */
export function formatPercent(p: number | null): string {
  return p === null ? 'n/a' : `${p >= 10 || p === 0 ? Math.round(p) : p.toFixed(1)}%`;
}

/** GPU memory used/total in GiB; `n/a` when unknown. */
export function formatMemory(m: { usedBytes: number; totalBytes: number } | null): string {
  if (!m) return 'n/a';
  const gib = (b: number) => b / 1024 ** 3;
  const f = (x: number) => (x >= 10 ? String(Math.round(x)) : x.toFixed(1));
  return `${f(gib(m.usedBytes))}/${f(gib(m.totalBytes))}Gi`;
}

/** Idle GPUs and for how long (`2 (45m)`); `n/a` while not known. */
export function formatIdle(idle: number | null, since: string | null, now: number): string {
  if (idle === null) return 'n/a';
  if (idle === 0) return '0';
  return since ? `${formatGpus(idle)} (${humanAge(since, now)})` : formatGpus(idle);
}

export interface ColumnChoice {
  /** Include priority-1 columns (`-o wide`). */
  wide: boolean;
  /** The listing covers one namespace: leave out namespace-scoped columns. */
  oneNamespace: boolean;
  oneCluster: boolean;
}

export function columnsFor(c: ColumnChoice): RowColumn[] {
  return ROW_COLUMNS.filter((col) => (c.wide || col.priority === 0) && !(col.scope === 'namespace' && c.oneNamespace) && !(col.scope === 'cluster' && c.oneCluster));
}

/** The dashboard table's columns: the CLI's default set, with namespace and cluster, and the utilization columns. */
export function tableColumns(): RowColumn[] {
  return ROW_COLUMNS.filter((col) => col.inTable ?? col.priority === 0);
}

/** The column a sort key belongs to. */
export function columnOfSort(key: SortKey): RowColumn | undefined {
  return ROW_COLUMNS.find((c) => c.sorts.some((s) => s.key === key));
}

/**
 * Rows as kubectl prints a table: upper-case headers, columns padded to their widest cell and
 * separated by three spaces, the namespace first (as `kubectl get -A` does), `<none>` for empty cells.
 */
/**
 * Ready of the pods still running, and the finished ones apart: a completed Job's four pods are
 * `4 done`, not `0/4`; half-way, `2/2 +2 done`.
 */
export function podsCell(r: WorkloadRow): string {
  if (r.pods.unknown) return '?';
  const done = Math.min(r.pods.done ?? 0, r.pods.total);
  if (done === 0) return `${r.pods.ready}/${r.pods.total}`;
  const active = r.pods.total - done;
  return active === 0 ? `${done} done` : `${r.pods.ready}/${active} +${done} done`;
}

export function printRowTable(rows: readonly WorkloadRow[], columns: readonly RowColumn[], now: number): string {
  const cols = [...columns.filter((c) => c.scope === 'namespace'), ...columns.filter((c) => c.scope !== 'namespace')];
  // A cell is one line: a condition message ending in a newline (or holding several) must not break the table.
  const cell = (t: string | null) => (t === null ? '<none>' : t.replace(/\s+/g, ' ').trim());
  const lines = [cols.map((c) => c.cliHeader ?? c.header.toUpperCase()), ...rows.map((r) => cols.map((c) => cell(c.text(r, now))))];
  const widths = cols.map((_, i) => Math.max(...lines.map((l) => l[i].length)));
  return lines.map((l) => l.map((cell, i) => (i === l.length - 1 ? cell : cell.padEnd(widths[i]))).join('   ')).join('\n');
}
