/** The live workload index: rows, deltas, definitions per cluster, cluster states. */
export { WorkloadIndex, type IndexOptions, type DeltaListener } from './workload-index.ts';
export { CORE_KINDS, DEFINITION_KINDS, groupKindOf } from './group-kind.ts';
export { LiveWorkloads, type LiveOptions, type ClustersListener } from './live.ts';
export { DefinitionSet, entryFromCatalog, entryFromClusterObject, rootGroupKind, type DefinitionEntry } from './definitions.ts';
export { rowOfTree, rolesSummary, statusReason } from './row-of-tree.ts';
export { rowId, type WorkloadRow, type RowDelta, type ClusterInfo, type ClusterState } from './row.ts';
export { readinessOf, type Readiness, type ClusterReadiness } from './readiness.ts';
export { servedState, type ServedClusterFacts } from './served-state.ts';
