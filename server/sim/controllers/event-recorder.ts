/**
 * Events as the real components record them, in the two styles a cluster shows side by side:
 *
 * - `core` — client-go's legacy recorder (kubelet, controller-manager): `source` {component, host},
 *   `firstTimestamp` / `lastTimestamp`, and a repeat of the same reason and message on the same object
 *   bumps `count` on one Event instead of adding another.
 * - `series` — the events.k8s.io recorder (kube-scheduler): `eventTime`, `reportingController` /
 *   `reportingInstance`, `action`, no `source`, and repeats grow a `series` {count, lastObservedTime}.
 *
 * Both are bounded like the originals: client-go's spam filter (a burst of 25 per event, then one per
 * 5 minutes) drops floods, and a repeat of a series event is only written when the last write is 30
 * simulated seconds old — the count in between is carried in memory and lands with the next write
 * (the real recorder batches series updates the same way, less often).
 */

import type { KubeObject } from '../store/object-store.ts';
import { StoreError } from '../store/object-store.ts';
import { sha256Hex } from './random.ts';

export type EventType = 'Normal' | 'Warning';

export interface EventSource {
  /** `source.component` / `reportingComponent` (`kubelet`, `default-scheduler`, `job-controller` …). */
  component: string;
  /** `source.host`: the node of a kubelet event. */
  host?: string;
  /** `reportingInstance` (the kubelet's node, the scheduler's instance). */
  instance?: string;
  /** Which recorder writes it (default `core`). */
  style?: 'core' | 'series';
  /** events.k8s.io `action` (series style): what was being done, e.g. `Scheduling`, `Binding`. */
  action?: string;
  /** `involvedObject.fieldPath`, e.g. `spec.containers{main}` for a container's events. */
  fieldPath?: string;
}

/** What the recorder needs from its host (the controllers' runtime). */
export interface EventSink {
  nowMs(): number;
  get(apiVersion: string, kind: string, ns: string | undefined, name: string): KubeObject | undefined;
  create(obj: KubeObject): KubeObject;
  update(obj: KubeObject): KubeObject;
}

const BURST = 25;
const REFILL_MS = 300_000;
const SERIES_WRITE_MS = 30_000;
/** Bookkeeping entries kept before starting afresh (bounded memory whatever the cluster size). */
const MAX_TRACKED = 10_000;

function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** metav1.MicroTime as the API server writes it: six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export class EventRecorder {
  private readonly tokens = new Map<string, { tokens: number; at: number }>();
  /** Series events: repeats seen since the last write. */
  private readonly unwritten = new Map<string, { extra: number; writtenAt: number }>();

  constructor(private readonly sink: EventSink) {}

  /** client-go's EventSourceObjectSpamFilter, keyed by event (object, reason, message). */
  private allowed(name: string, now: number): boolean {
    const b = this.tokens.get(name) ?? { tokens: BURST, at: now };
    b.tokens = Math.min(BURST, b.tokens + (now - b.at) / REFILL_MS);
    b.at = now;
    if (this.tokens.size > MAX_TRACKED) this.tokens.clear();
    this.tokens.set(name, b);
    if (b.tokens < 1) return false;
    b.tokens--;
    return true;
  }

  record(obj: KubeObject, type: EventType, reason: string, message: string, source: EventSource): void {
    const ns = obj.metadata.namespace ?? 'default';
    const key = `${obj.metadata.uid}/${source.fieldPath ?? ''}/${reason}/${message}`;
    // Real names are `<object>.<hex nanoseconds>`; a hash of what aggregates keeps the shape and finds repeats.
    const name = `${obj.metadata.name}.${sha256Hex(key).slice(0, 16)}`;
    const now = this.sink.nowMs();
    try {
      if (source.style === 'series') this.recordSeries(obj, ns, name, type, reason, message, source, now);
      else this.recordCore(obj, ns, name, type, reason, message, source, now);
    } catch (e) {
      // An event is best effort, as in client-go: a conflict or a vanished namespace drops it.
      if (!(e instanceof StoreError)) throw e;
    }
  }

  private involved(obj: KubeObject, fieldPath: string | undefined): Record<string, unknown> {
    return {
      apiVersion: obj.apiVersion,
      kind: obj.kind,
      name: obj.metadata.name,
      namespace: obj.metadata.namespace,
      uid: obj.metadata.uid,
      resourceVersion: obj.metadata.resourceVersion,
      ...(fieldPath ? { fieldPath } : {}),
    };
  }

  /** What every Event says, however it counts repeats: the object it is about, reason, message, type. */
  private eventOf(obj: KubeObject, ns: string, name: string, type: EventType, reason: string, message: string, fieldPath: string | undefined): KubeObject {
    return { apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: ns }, involvedObject: this.involved(obj, fieldPath), reason, message, type };
  }

  private recordCore(obj: KubeObject, ns: string, name: string, type: EventType, reason: string, message: string, s: EventSource, now: number): void {
    if (!this.allowed(name, now)) return;
    const at = isoSeconds(now);
    const existing = this.sink.get('v1', 'Event', ns, name);
    if (existing) {
      this.sink.update({ ...existing, count: ((existing.count as number | undefined) ?? 1) + 1, lastTimestamp: at });
      return;
    }
    this.sink.create({
      ...this.eventOf(obj, ns, name, type, reason, message, s.fieldPath),
      source: { component: s.component, ...(s.host ? { host: s.host } : {}) },
      reportingComponent: s.component,
      reportingInstance: s.instance ?? s.host ?? '',
      firstTimestamp: at,
      lastTimestamp: at,
      count: 1,
      eventTime: null,
    });
  }

  private recordSeries(obj: KubeObject, ns: string, name: string, type: EventType, reason: string, message: string, s: EventSource, now: number): void {
    const existing = this.sink.get('v1', 'Event', ns, name);
    if (!existing) {
      if (!this.allowed(name, now)) return;
      this.sink.create({
        ...this.eventOf(obj, ns, name, type, reason, message, s.fieldPath),
        source: {},
        reportingComponent: s.component,
        reportingInstance: s.instance ?? s.component,
        ...(s.action ? { action: s.action } : {}),
        eventTime: microTime(now),
        firstTimestamp: null,
        lastTimestamp: null,
      });
      this.unwritten.delete(name);
      return;
    }
    const pending = this.unwritten.get(name) ?? { extra: 0, writtenAt: -Infinity };
    pending.extra++;
    const series = existing.series as { count?: number } | undefined;
    // The first repeat starts the series at once (as the real recorder does); later ones are batched.
    if (series && now - pending.writtenAt < SERIES_WRITE_MS) {
      if (this.unwritten.size > MAX_TRACKED) this.unwritten.clear();
      this.unwritten.set(name, pending);
      return;
    }
    const count = (series?.count ?? 1) + pending.extra;
    this.sink.update({ ...existing, series: { count, lastObservedTime: microTime(now) } });
    if (this.unwritten.size > MAX_TRACKED) this.unwritten.clear();
    this.unwritten.set(name, { extra: 0, writtenAt: now });
  }
}
