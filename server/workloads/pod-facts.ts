/**
 * The facts about one pod that `kubectl describe pod` shows (conditions, containers with their
 * current and last state, restarts, GPUs), and Events from either Events API in one shape. Pure.
 */
import type { ContainerState, EventItem, PodConditionInfo, PodContainer } from '../../contract/pod.ts';
import { podSpecGpus, type GpuResourceMatcher, type KubeObject } from '../engine/index.ts';

type Rec = Record<string, unknown>;

const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const records = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter(isRec) : []);
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function stateOf(s: unknown): ContainerState | null {
  if (!isRec(s)) return null;
  for (const kind of ['running', 'waiting', 'terminated'] as const) {
    const d = s[kind];
    if (!isRec(d)) continue;
    return { state: kind, reason: str(d.reason), message: str(d.message)?.trim() || null, exitCode: num(d.exitCode), startedAt: str(d.startedAt), finishedAt: str(d.finishedAt) };
  }
  return null;
}

const UNKNOWN: ContainerState = { state: 'unknown', reason: null, message: null, exitCode: null, startedAt: null, finishedAt: null };

/** Init containers first (they run first), then the app containers, each with what its status says. */
export function podContainers(pod: KubeObject, isGpu?: GpuResourceMatcher): PodContainer[] {
  const spec = isRec(pod.spec) ? pod.spec : {};
  const status = isRec(pod.status) ? pod.status : {};
  const out: PodContainer[] = [];
  for (const [init, specs, statuses] of [
    [true, spec.initContainers, status.initContainerStatuses],
    [false, spec.containers, status.containerStatuses],
  ] as const) {
    const byName = new Map(records(statuses).map((s) => [s.name, s]));
    for (const c of records(specs)) {
      const name = str(c.name) ?? '';
      const s = byName.get(name) ?? {};
      out.push({
        name,
        init,
        image: str(s.image) ?? str(c.image) ?? '',
        ready: s.ready === true,
        restarts: num(s.restartCount) ?? 0,
        current: stateOf(s.state) ?? UNKNOWN,
        last: stateOf(s.lastState),
        gpus: podSpecGpus({ containers: [c] }, isGpu),
      });
    }
  }
  return out;
}

export function podConditions(pod: KubeObject): PodConditionInfo[] {
  const status = isRec(pod.status) ? pod.status : {};
  return records(status.conditions).map((c) => ({
    type: str(c.type) ?? '',
    status: str(c.status) ?? 'Unknown',
    reason: str(c.reason),
    message: str(c.message)?.trim() || null,
    lastTransitionTime: str(c.lastTransitionTime),
  }));
}

/**
 * An Event of core `v1` (involvedObject, count, first/lastTimestamp, source) or `events.k8s.io/v1`
 * (regarding, note, series, eventTime, reportingController) in one shape; the newest time the
 * cluster gives for it is `last`.
 */
export function eventItem(e: Rec): EventItem {
  const about = isRec(e.involvedObject) ? e.involvedObject : isRec(e.regarding) ? e.regarding : {};
  const series = isRec(e.series) ? e.series : null;
  const source = isRec(e.source) ? e.source : {};
  const md = isRec(e.metadata) ? e.metadata : {};
  const first = str(e.firstTimestamp) ?? str(e.deprecatedFirstTimestamp) ?? str(e.eventTime) ?? str(md.creationTimestamp);
  const last = str(series?.lastObservedTime) ?? str(e.lastTimestamp) ?? str(e.deprecatedLastTimestamp) ?? str(e.eventTime) ?? first;
  const count = num(series?.count) ?? num(e.count) ?? num(e.deprecatedCount) ?? 1;
  return {
    type: str(e.type) ?? 'Normal',
    reason: str(e.reason) ?? '',
    message: (str(e.message) ?? str(e.note) ?? '').trim(),
    count: Math.max(1, count),
    first,
    last,
    object: { kind: str(about.kind) ?? '', name: str(about.name) ?? '', uid: str(about.uid) },
    source: str(source.component) ?? str(e.reportingController) ?? str(e.reportingComponent) ?? '',
  };
}

/** Newest first; equal times keep warnings above normal events, then the reason for a stable order. */
export function newestFirst(a: EventItem, b: EventItem): number {
  const ta = a.last ? Date.parse(a.last) : 0;
  const tb = b.last ? Date.parse(b.last) : 0;
  if (ta !== tb) return tb - ta;
  if (a.type !== b.type) return a.type === 'Warning' ? -1 : b.type === 'Warning' ? 1 : 0;
  return a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0;
}
