/** What a utilization source gives: the current readings, and (with history) look-backs and ranges. */
import type { UsageSourceKind } from '../../contract/index.ts';
import type { DeviceReading } from './dcgm.ts';

export interface SourceRead {
  readings: DeviceReading[];
  /** Epoch ms the readings stand for. */
  at: number;
  /** Partial failures (an exporter that did not answer), for people; the readings are what did answer. */
  warnings: string[];
  /** Bytes read for this refresh (benchmarks). */
  bytes: number;
}

export interface PodRef {
  namespace: string;
  pod: string;
}

/** One pod's device utilization over time: per reading key, [unix seconds, percent]. */
export type PodSeries = Map<string, Array<[number, number]>>;

export interface UsageSource {
  readonly kind: Exclude<UsageSourceKind, 'none'>;
  /** For people: which Prometheus or exporters, and how they are reached. */
  readonly detail: string;
  readonly history: boolean;
  /** What stays the same while it is the same source (the Prometheus it asks; `exporters`): a rediscovery finding it again keeps the idle tracking. */
  readonly identity: string;
  /** The readings now; where history allows, the highest value over the idle window of the GPUs below `threshold` now. */
  read(windowSeconds: number, threshold: number, signal?: AbortSignal): Promise<SourceRead>;
  /** With history: the last time (epoch ms) each reading was at or above `threshold` within `lookbackSeconds`, by reading key. */
  lastBusy?(threshold: number, lookbackSeconds: number, signal?: AbortSignal): Promise<Map<string, number>>;
  /** With history: the pods' utilization per reading, by `namespace/pod`. */
  range?(pods: readonly PodRef[], start: number, end: number, stepSeconds: number, signal?: AbortSignal): Promise<Map<string, PodSeries>>;
}
