/**
 * The row query: every filter and sort of the workloads table, and its URL form. One definition for
 * `GET /api/workloads`, the stream's per-client filters, `wmap get workloads --query` and the
 * dashboard, so the same URL gives the same rows everywhere. Pure.
 *
 * The URL is the single source of truth for a view: defaults are left out so links stay short;
 * lists are repeated parameters (comma lists are read too, except for clusters, whose kubeconfig
 * context names may hold commas).
 */

export const SORT_KEYS = ['kind', 'name', 'namespace', 'cluster', 'status', 'allocated', 'requested', 'desired', 'utilization', 'idle', 'pods', 'roles', 'age'] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export type SortOrder = 'asc' | 'desc';
export const GPU_FIELDS = ['allocated', 'requested', 'desired'] as const;
export type GpuField = (typeof GPU_FIELDS)[number];
/**
 * `using`: allocated > 0; `waiting`: requested > allocated (pods asking for GPUs they do not hold);
 * `idle`: some allocated GPUs idle (below the idle threshold for the idle window); `underused`:
 * holding GPUs whose average utilization is below `UNDERUSED_PERCENT`. Rows without readings are in
 * neither of the last two: unknown is not idle.
 */
export const GPU_PRESETS = ['using', 'waiting', 'idle', 'underused'] as const;
export const UNDERUSED_PERCENT = 30;
export type GpuPreset = (typeof GPU_PRESETS)[number];

export interface RowQuery {
  /** Free text: whitespace-separated terms that must all occur (case-insensitive). */
  q: string;
  /** Any of these statuses (case-insensitive). */
  status: string[];
  /** Any of these kinds: `JobSet`, or `JobSet.jobset.x-k8s.io` with the group (case-insensitive). */
  kind: string[];
  namespace: string[];
  cluster: string[];
  /** Any of these definitions, by name; `none` for workloads no definition describes. */
  definition: string[];
  /** Which GPU figure the range applies to. */
  gpuField: GpuField;
  minGpus: number | null;
  maxGpus: number | null;
  preset: GpuPreset | null;
  /** Utilization range (percent of the allocated GPUs, averaged); rows without readings are in no range. */
  minUtil: number | null;
  maxUtil: number | null;
  /** Advanced filter: a CEL expression over the row (lib/rows/cel-filter.ts). */
  cel: string;
  sort: SortKey;
  order: SortOrder;
}

export const DEFAULT_QUERY: RowQuery = Object.freeze({
  q: '',
  status: [],
  kind: [],
  namespace: [],
  cluster: [],
  definition: [],
  gpuField: 'allocated',
  minGpus: null,
  maxGpus: null,
  preset: null,
  minUtil: null,
  maxUtil: null,
  cel: '',
  sort: 'name',
  order: 'asc',
}) as RowQuery;

/** Longest free text and CEL expression a query may carry. */
export const MAX_TEXT = 200;
export const MAX_CEL = 2000;

/** Sorting numbers, people usually want the largest first; names and ages read ascending. */
export function defaultOrderFor(key: SortKey): SortOrder {
  // Utilization reads lowest first (the waste is what one looks for); idle GPUs most first.
  return key === 'allocated' || key === 'requested' || key === 'desired' || key === 'pods' || key === 'idle' ? 'desc' : 'asc';
}

const LIST_KEYS = ['status', 'kind', 'namespace', 'cluster', 'definition'] as const;
/** The `definition` filter's value for workloads without one. */
export const NO_DEFINITION_FILTER = 'none';
// Older API spellings that still name a sort key.
const SORT_ALIASES: Record<string, SortKey> = { gpus: 'allocated' };

export interface ParamsLike {
  getAll(name: string): string[];
  get(name: string): string | null;
}

/** A parameter that could not be read, and why; the query falls back to that parameter's default. */
export interface QueryProblem {
  param: string;
  message: string;
}

function readList(p: ParamsLike, name: string, commas: boolean): string[] {
  const out: string[] = [];
  for (const v of p.getAll(name)) {
    for (const part of commas ? v.split(',') : [v]) {
      const t = part.trim();
      if (t && !out.includes(t)) out.push(t);
    }
  }
  return out;
}

function oneOf<T extends string>(p: ParamsLike, name: string, allowed: readonly T[], problems: QueryProblem[]): T | null {
  const v = p.get(name);
  if (v === null || v === '') return null;
  if ((allowed as readonly string[]).includes(v)) return v as T;
  problems.push({ param: name, message: `must be one of ${allowed.join(', ')}, not "${v}"` });
  return null;
}

function count(p: ParamsLike, name: string, problems: QueryProblem[]): number | null {
  const v = p.get(name);
  if (v === null || v.trim() === '') return null;
  const n = Number(v);
  if (Number.isFinite(n) && n >= 0) return n;
  problems.push({ param: name, message: `must be a number of GPUs (0 or more), not "${v}"` });
  return null;
}

function percentParam(p: ParamsLike, name: string, problems: QueryProblem[]): number | null {
  const v = p.get(name);
  if (v === null || v.trim() === '') return null;
  const n = Number(v);
  if (Number.isFinite(n) && n >= 0 && n <= 100) return n;
  problems.push({ param: name, message: `must be a percentage between 0 and 100, not "${v}"` });
  return null;
}

function text(p: ParamsLike, name: string, max: number, problems: QueryProblem[]): string {
  const v = p.get(name) ?? '';
  if (v.length <= max) return v;
  problems.push({ param: name, message: `is ${v.length} characters long; at most ${max} are allowed` });
  return '';
}

/**
 * A query from URL parameters. Parameters that cannot be read are listed in `problems` and take
 * their defaults: the dashboard shows the rest of the view, the API answers 400 with the problem.
 * Unknown parameters (paging, tokens) are not the query's business and are ignored.
 */
export function parseQuery(params: ParamsLike | string): { query: RowQuery; problems: QueryProblem[] } {
  const p: ParamsLike = typeof params === 'string' ? new URLSearchParams(params) : params;
  const problems: QueryProblem[] = [];
  const rawSort = p.get('sort');
  const sort = rawSort !== null && SORT_ALIASES[rawSort] ? SORT_ALIASES[rawSort] : oneOf(p, 'sort', SORT_KEYS, problems);
  const order = oneOf(p, 'order', ['asc', 'desc'] as const, problems);
  const sortKey = sort ?? DEFAULT_QUERY.sort;
  const query: RowQuery = {
    q: text(p, 'q', MAX_TEXT, problems),
    status: readList(p, 'status', true),
    kind: readList(p, 'kind', true),
    namespace: readList(p, 'namespace', true),
    cluster: readList(p, 'cluster', false),
    definition: readList(p, 'definition', true),
    gpuField: oneOf(p, 'gpuField', GPU_FIELDS, problems) ?? DEFAULT_QUERY.gpuField,
    minGpus: count(p, 'minGpus', problems),
    maxGpus: count(p, 'maxGpus', problems),
    preset: oneOf(p, 'preset', GPU_PRESETS, problems),
    minUtil: percentParam(p, 'minUtil', problems),
    maxUtil: percentParam(p, 'maxUtil', problems),
    cel: text(p, 'cel', MAX_CEL, problems),
    sort: sortKey,
    order: order ?? (sort ? defaultOrderFor(sortKey) : DEFAULT_QUERY.order),
  };
  return { query, problems };
}

/** The query string (without `?`) for a query; `''` for the default one. Stable parameter order. */
export function encodeQuery(v: RowQuery): string {
  const p = new URLSearchParams();
  if (v.q) p.set('q', v.q);
  for (const key of LIST_KEYS) for (const item of v[key]) p.append(key, item);
  if (v.gpuField !== 'allocated') p.set('gpuField', v.gpuField);
  if (v.minGpus !== null) p.set('minGpus', String(v.minGpus));
  if (v.maxGpus !== null) p.set('maxGpus', String(v.maxGpus));
  if (v.preset) p.set('preset', v.preset);
  if (v.minUtil !== null) p.set('minUtil', String(v.minUtil));
  if (v.maxUtil !== null) p.set('maxUtil', String(v.maxUtil));
  if (v.cel) p.set('cel', v.cel);
  if (v.sort !== DEFAULT_QUERY.sort || v.order !== DEFAULT_QUERY.order) {
    p.set('sort', v.sort);
    if (v.order !== defaultOrderFor(v.sort)) p.set('order', v.order);
  }
  return p.toString();
}

/** Clicking a column header: the same column flips the order, a new column starts at its natural order. */
export function toggleSort(v: RowQuery, key: SortKey): RowQuery {
  if (v.sort === key) return { ...v, order: v.order === 'asc' ? 'desc' : 'asc' };
  return { ...v, sort: key, order: defaultOrderFor(key) };
}

/** True when any filter (not the sort) differs from the default. */
export function hasFilters(v: RowQuery): boolean {
  return v.q !== '' || LIST_KEYS.some((k) => v[k].length > 0) || v.minGpus !== null || v.maxGpus !== null || v.preset !== null || v.minUtil !== null || v.maxUtil !== null || v.cel !== '';
}

export function clearFilters(v: RowQuery): RowQuery {
  return { ...DEFAULT_QUERY, sort: v.sort, order: v.order };
}
