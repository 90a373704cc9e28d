/** Row identity on the server side; the row's shape is the contract's (contract/row.ts). */
export type { WorkloadRow, RowDelta, ClusterInfo, ClusterState, RowStaleness, FailingKind, RowOwnership, GpuField, RowWhy } from '../../contract/row.ts';

/** `cluster/namespace/Kind.group/name` (lib/rows/identity.ts); the namespace is `_` for cluster-scoped workloads. */
export { workloadId as rowId, kindRef } from '../../lib/rows/identity.ts';
