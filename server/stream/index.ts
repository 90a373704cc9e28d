/** Streaming rows to browsers over Server-Sent Events. */
export { streamResponse, filterDeltas, resumeDeltas } from './sse.ts';
export { HEARTBEAT_MS, type SnapshotEvent, type DeltaEvent } from './protocol.ts';
