/** Row identity on the server side; the row's shape is the contract's (contract/row.ts). */
export type { WorkloadRow, RowDelta, ClusterInfo, ClusterState, RowStaleness, FailingKind, RowOwnership, GpuField } from '../../contract/row.ts';

/** `cluster/namespace/kind/name`; the namespace is `_` for cluster-scoped workloads. */
export function rowId(cluster: string, namespace: string, kind: string, name: string): string {
  return `${cluster}/${namespace || '_'}/${kind}/${name}`;
}
