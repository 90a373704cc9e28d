/** The stream protocol is part of the contract (contract/stream.ts). */
export { HEARTBEAT_MS, type SnapshotEvent, type DeltaEvent } from '../../contract/stream.ts';
