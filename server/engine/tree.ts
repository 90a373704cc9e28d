/** The workload tree the engine produces: the contract's types (contract/tree.ts), re-exported for engine code. */
export type * from '../../contract/tree.ts';
export { STATUS_ORDER } from '../../contract/tree.ts';
