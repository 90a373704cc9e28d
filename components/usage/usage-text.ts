/**
 * GPU utilization as the dashboard words it: sources, freshness, coverage, the idle rule, totals,
 * and why a figure is "n/a". Pure. A figure without data is "n/a", never 0 (contract/usage.ts).
 */
import type { ClusterUsage, GpuReading, IdleRule, RowTotals, UsageFigures, UsageSourceKind } from '../../contract/index.ts';
import { humanAge } from '../../lib/format/duration.ts';
import { formatGpus } from '../../lib/format/gpus.ts';
import { formatMemory, formatPercent, UNDERUSED_PERCENT } from '../../lib/rows/index.ts';

export const SOURCE_LABEL: Record<UsageSourceKind, string> = { prometheus: 'Prometheus', exporters: 'DCGM exporters', none: 'none' };

/** Readings older than this many refresh intervals are stale (a refresh or two may be slow; three missed is a problem). */
export const STALE_INTERVALS = 3;

/** `12 s`, `15 min`, `1 h`, `1 h 30 min`: the idle window and ages as people read them. */
export function secondsText(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 120 && s % 60 !== 0) return `${s} s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  const parts = [h ? `${h} h` : '', m ? `${m} min` : '', rest && h === 0 ? `${rest} s` : ''].filter(Boolean);
  return parts.join(' ') || '0 s';
}

/** `idle: < 5 % for 15 min` */
export function idleRuleText(r: IdleRule): string {
  return `idle: < ${r.thresholdPercent} % for ${secondsText(r.windowSeconds)}`;
}

export interface Freshness {
  /** `readings 12 s old`, `no readings yet` */
  text: string;
  stale: boolean;
  /** Why it is stale (the refresh error, or how long no refresh succeeded), for a title; null when fresh. */
  why: string | null;
}

/** How old a cluster's readings are, stale beyond `STALE_INTERVALS` × the interval or when the last refresh failed. */
export function usageFreshness(u: Pick<ClusterUsage, 'at' | 'error' | 'intervalSeconds'>, now: number): Freshness {
  const failed = u.error ? `the last refresh failed: ${u.error}` : null;
  const at = u.at ? Date.parse(u.at) : Number.NaN;
  if (Number.isNaN(at)) return { text: 'no readings yet', stale: failed !== null, why: failed };
  const ageSeconds = Math.max(0, (now - at) / 1000);
  const late = ageSeconds > STALE_INTERVALS * u.intervalSeconds;
  const why = failed ?? (late ? `no refresh has succeeded for ${secondsText(ageSeconds)}; readings are refreshed every ${secondsText(u.intervalSeconds)}` : null);
  return { text: `readings ${secondsText(ageSeconds)} old`, stale: why !== null, why };
}

/** `98 of 100 GPU pods measured` */
export function coverageText(c: ClusterUsage['coverage']): string {
  if (c.gpuPods === null) return 'GPU pods not known yet';
  if (c.gpuPods === 0) return 'no GPU pods';
  if (c.withMetrics === null) return `${c.gpuPods} GPU pod${c.gpuPods === 1 ? '' : 's'}, none measured yet`;
  return `${c.withMetrics} of ${c.gpuPods} GPU pod${c.gpuPods === 1 ? '' : 's'} measured`;
}

/** GPUs' worth in use: one decimal (47.3), whole numbers from 100. */
export function usedText(n: number): string {
  return n >= 100 ? String(Math.round(n)) : String(Math.round(n * 10) / 10);
}

/** The totals strip's utilization: `used 47.3 of 120 allocated GPUs (39%) · 12 idle`, `utilization n/a` without readings. */
export function utilizationTotals(t: Pick<RowTotals, 'allocated' | 'used' | 'measured' | 'idle'>): { text: string; title: string } {
  const idle = t.idle !== null && t.idle > 0 ? ` · ${formatGpus(t.idle)} idle` : '';
  if (t.used === null || t.measured <= 0) {
    return { text: 'utilization n/a', title: 'No GPU of the workloads shown has readings: utilization is not known (not 0)' };
  }
  const pct = formatPercent((t.used / t.measured) * 100);
  // `used` is out of what has readings; say so when that is less than what is allocated.
  const partial = t.measured < t.allocated - 1e-6;
  const text = partial ? `used ${usedText(t.used)} of ${formatGpus(t.measured)} measured GPUs (${pct})${idle}` : `used ${usedText(t.used)} of ${formatGpus(t.allocated)} allocated GPUs (${pct})${idle}`;
  const title = [
    `GPUs' worth in use (utilization × GPUs) over the ${formatGpus(t.measured)} GPUs with readings`,
    partial ? `${formatGpus(Math.round((t.allocated - t.measured) * 1000) / 1000)} of the ${formatGpus(t.allocated)} allocated GPUs have no readings and are left out` : '',
    t.idle === null ? 'idle GPUs: not known yet' : `${formatGpus(t.idle)} GPUs idle (below the idle threshold for the idle window)`,
  ]
    .filter(Boolean)
    .join('\n');
  return { text, title };
}

/** Why a figure with an allocated GPU is "n/a", for a title. */
export function naReason(u: Pick<UsageFigures, 'pods'> & { source: UsageSourceKind }, cluster?: Pick<ClusterUsage, 'detail' | 'cluster'>): string {
  if (u.source === 'none') return `The cluster${cluster ? ` ${cluster.cluster}` : ''} has no utilization source${cluster?.detail ? `: ${cluster.detail}` : ''}`;
  if (u.pods.withMetrics === 0) return `No readings for its ${u.pods.gpu === 1 ? 'GPU pod' : `${u.pods.gpu} GPU pods`} (source: ${SOURCE_LABEL[u.source]})`;
  return `Its GPUs report no utilization (source: ${SOURCE_LABEL[u.source]})`;
}

export type UtilTone = 'na' | 'under' | 'ok' | 'saturated';

/** The bar's colour: below the underused threshold amber, saturated (≥ 95 %) violet, else green. */
export function utilTone(p: number | null): UtilTone {
  if (p === null) return 'na';
  if (p < UNDERUSED_PERCENT) return 'under';
  if (p >= 95) return 'saturated';
  return 'ok';
}

/** `for 45m` since an ISO time; empty when unknown. */
export function idleForText(since: string | null, now: number): string {
  return since ? `for ${humanAge(since, now)}` : '';
}

/** One device's line for a hover: `GPU 3 · MIG 1g.10gb (instance 2): 45%, 12/80Gi, idle for 5m, shared`. */
export function gpuReadingLine(g: GpuReading, now: number): string {
  const where = `GPU ${g.gpu}${g.model ? ` (${g.model})` : ''}${g.mig ? ` · MIG ${g.mig.profile} (instance ${g.mig.instance})` : ''}`;
  const idle = g.idle === null ? 'idle not known yet' : g.idle ? `idle ${idleForText(g.idleSince, now)}`.trim() : '';
  return `${where}: ${formatPercent(g.utilization)}, ${formatMemory(g.memory)}${idle ? `, ${idle}` : ''}${g.shared ? ', shared (time-sliced: the device’s figures)' : ''}`;
}

/**
 * Figures of several sets added up (a component's instances): sums, utilization weighted by what is
 * measured, the longest idle; unknown stays unknown (null) unless some part knows it.
 */
export function combineFigures(parts: readonly UsageFigures[]): UsageFigures | null {
  if (parts.length === 0) return null;
  if (parts.length === 1) return parts[0];
  let allocated = 0;
  let measured = 0;
  let used: number | null = null;
  let memUsed = 0;
  let memTotal = 0;
  let memKnown = false;
  let idle: number | null = null;
  let idleSince: string | null = null;
  const pods = { gpu: 0, withMetrics: 0 };
  for (const p of parts) {
    allocated += p.allocated;
    pods.gpu += p.pods.gpu;
    pods.withMetrics += p.pods.withMetrics;
    if (p.utilization !== null && p.measured > 0) {
      measured += p.measured;
      used = (used ?? 0) + (p.utilization * p.measured) / 100;
    }
    if (p.memory) {
      memKnown = true;
      memUsed += p.memory.usedBytes;
      memTotal += p.memory.totalBytes;
    }
    if (p.idle !== null) idle = (idle ?? 0) + p.idle;
    if (p.idleSince && (idleSince === null || p.idleSince < idleSince)) idleSince = p.idleSince;
  }
  const r = (n: number) => Math.round(n * 1000) / 1000;
  return {
    allocated: r(allocated),
    measured: r(measured),
    utilization: used !== null && measured > 0 ? Math.round(((used * 100) / measured) * 10) / 10 : null,
    used: used === null ? null : r(used),
    memory: memKnown ? { usedBytes: memUsed, totalBytes: memTotal } : null,
    idle: idle === null ? null : r(idle),
    idleSince,
    pods,
  };
}
