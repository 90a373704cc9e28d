/** GPU utilization sources (Prometheus, DCGM exporters through the API server) joined to pods by namespace/name; knows no definitions. */
export { UsageFeed, type FeedOptions, type UsageSnapshot, type ReadingState } from './usage-feed.ts';
export { readingKey, readingsOf, DCGM_METRICS, type DeviceReading, type DcgmSample } from './dcgm.ts';
export { parseExposition, type Sample } from './exposition.ts';
export { IdleTracker, type IdleState } from './idle-tracker.ts';
export { refreshQuery, lastBusyQuery } from './prometheus-source.ts';
export type { PodRef, PodSeries } from './source.ts';
