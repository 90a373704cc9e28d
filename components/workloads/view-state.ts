/**
 * The workloads table's view (filters and sort) and its URL form. The URL is the single source of
 * truth so that a link reproduces the view; defaults are left out so links stay short.
 * Parameter names follow `GET /api/workloads` where that API has the same notion.
 */

export const SORT_KEYS = [
  'kind',
  'name',
  'namespace',
  'cluster',
  'status',
  'allocated',
  'requested',
  'desired',
  'pods',
  'roles',
  'age',
] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export type SortOrder = 'asc' | 'desc';
export type GpuField = 'allocated' | 'requested' | 'desired';
/** `using`: allocated > 0; `waiting`: requested > allocated (pods asking for GPUs they do not hold). */
export type GpuPreset = 'using' | 'waiting';

export interface ViewState {
  q: string;
  status: string[];
  kind: string[];
  namespace: string[];
  cluster: string[];
  gpuField: GpuField;
  minGpus: number | null;
  maxGpus: number | null;
  preset: GpuPreset | null;
  /** Advanced filter: a CEL expression over the row. */
  cel: string;
  sort: SortKey;
  order: SortOrder;
}

export const DEFAULT_VIEW: ViewState = Object.freeze({
  q: '',
  status: [],
  kind: [],
  namespace: [],
  cluster: [],
  gpuField: 'allocated',
  minGpus: null,
  maxGpus: null,
  preset: null,
  cel: '',
  sort: 'name',
  order: 'asc',
}) as ViewState;

/** Sorting numbers and ages, people usually want the largest or newest first. */
export function defaultOrderFor(key: SortKey): SortOrder {
  return key === 'allocated' || key === 'requested' || key === 'desired' || key === 'pods' ? 'desc' : 'asc';
}

const LIST_KEYS = ['status', 'kind', 'namespace', 'cluster'] as const;

interface ParamsLike {
  getAll(name: string): string[];
  get(name: string): string | null;
}

function readList(p: ParamsLike, name: string, commas = true): string[] {
  // Repeated parameters are what we write; comma lists are accepted because people type them
  // (not for clusters: kubeconfig context names may contain commas).
  const out: string[] = [];
  for (const v of p.getAll(name)) {
    for (const part of commas ? v.split(',') : [v]) {
      const t = part.trim();
      if (t && !out.includes(t)) out.push(t);
    }
  }
  return out;
}

function readCount(v: string | null): number | null {
  if (v === null || v.trim() === '') return null;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : null;
}

export function decodeView(params: ParamsLike | string): ViewState {
  const p: ParamsLike = typeof params === 'string' ? new URLSearchParams(params) : params;
  const gpuField = p.get('gpuField');
  const preset = p.get('preset');
  const sort = p.get('sort');
  const order = p.get('order');
  const sortKey: SortKey = (SORT_KEYS as readonly string[]).includes(sort ?? '') ? (sort as SortKey) : DEFAULT_VIEW.sort;
  return {
    q: p.get('q') ?? '',
    status: readList(p, 'status'),
    kind: readList(p, 'kind'),
    namespace: readList(p, 'namespace'),
    cluster: readList(p, 'cluster', false),
    gpuField: gpuField === 'requested' || gpuField === 'desired' ? gpuField : 'allocated',
    minGpus: readCount(p.get('minGpus')),
    maxGpus: readCount(p.get('maxGpus')),
    preset: preset === 'using' || preset === 'waiting' ? preset : null,
    cel: p.get('cel') ?? '',
    sort: sortKey,
    order: order === 'asc' || order === 'desc' ? order : sort ? defaultOrderFor(sortKey) : DEFAULT_VIEW.order,
  };
}

/** The query string (without `?`) for a view; `''` for the default view. Stable parameter order. */
export function encodeView(v: ViewState): string {
  const p = new URLSearchParams();
  if (v.q) p.set('q', v.q);
  for (const key of LIST_KEYS) for (const item of v[key]) p.append(key, item);
  if (v.gpuField !== 'allocated') p.set('gpuField', v.gpuField);
  if (v.minGpus !== null) p.set('minGpus', String(v.minGpus));
  if (v.maxGpus !== null) p.set('maxGpus', String(v.maxGpus));
  if (v.preset) p.set('preset', v.preset);
  if (v.cel) p.set('cel', v.cel);
  if (v.sort !== DEFAULT_VIEW.sort || v.order !== DEFAULT_VIEW.order) {
    p.set('sort', v.sort);
    if (v.order !== defaultOrderFor(v.sort)) p.set('order', v.order);
  }
  return p.toString();
}

/** Clicking a column header: the same column flips the order, a new column starts at its natural order. */
export function toggleSort(v: ViewState, key: SortKey): ViewState {
  if (v.sort === key) return { ...v, order: v.order === 'asc' ? 'desc' : 'asc' };
  return { ...v, sort: key, order: defaultOrderFor(key) };
}

/** True when any filter (not the sort) differs from the default. */
export function hasFilters(v: ViewState): boolean {
  return (
    v.q !== '' ||
    LIST_KEYS.some((k) => v[k].length > 0) ||
    v.minGpus !== null ||
    v.maxGpus !== null ||
    v.preset !== null ||
    v.cel !== ''
  );
}

export function clearFilters(v: ViewState): ViewState {
  return { ...DEFAULT_VIEW, sort: v.sort, order: v.order };
}
