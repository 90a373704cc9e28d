/**
 * The contract between the server and its clients (the dashboard, the CLI's JSON output, API users):
 * the workload tree, rows and deltas, the stream protocol and the API payloads. Types only, plus the
 * status vocabulary and the stream's heartbeat period. `components/` imports these and nothing
 * else from the server side; changes are additive.
 */
export type * from './tree.ts';
export { STATUS_ORDER } from './tree.ts';
export type * from './row.ts';
export type * from './stream.ts';
export { HEARTBEAT_MS } from './stream.ts';
export type * from './api.ts';
export type * from './nodes.ts';
export type * from './usage.ts';
export type * from './pod.ts';
export type * from './actions.ts';
export type * from './studio.ts';
