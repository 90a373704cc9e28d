/**
 * Rows as every client shows them: the query (filters, sorts, URL form), the columns and the
 * totals. Pure and shared by the server (API, stream, CLI) and the dashboard, so the same URL
 * gives the same answer everywhere.
 */
export {
  SORT_KEYS, GPU_FIELDS, GPU_PRESETS, UNDERUSED_PERCENT, DEFAULT_QUERY, MAX_TEXT, MAX_CEL,
  defaultOrderFor, parseQuery, encodeQuery, toggleSort, hasFilters, clearFilters,
  type RowQuery, type SortKey, type SortOrder, type GpuField, type GpuPreset, type ParamsLike, type QueryProblem,
} from './query.ts';
export { rowMatcher, textTerms, facetCounts, type RowMatcher, type CelOutcome } from './filter.ts';
export { sortRows } from './sort.ts';
export { runQuery, type QueryResult } from './run-query.ts';
export { totalsOf, type Totals } from './totals.ts';
export { compileCelFilter, celMessage, CEL_VARIABLES, type CelFilter } from './cel-filter.ts';
export { ROW_COLUMNS, columnsFor, tableColumns, columnOfSort, printRowTable, formatPercent, formatMemory, formatIdle, type RowColumn, type ColumnKey, type ColumnSort, type ColumnChoice } from './columns.ts';
export { displayKind, kindRef, workloadId, groupOfApiVersion } from './identity.ts';
