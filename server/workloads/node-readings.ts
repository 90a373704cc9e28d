/**
 * A node's devices as its exporter reports them, for the nodes view: every device and MIG instance
 * with its utilization, memory, idleness and the pod holding it (free devices too — a free GPU at
 * 0 % is a fact, not a gap). Null for a node without readings: no figures, never zeros.
 */
import type { NodeSummary } from '../../contract/index.ts';
import { deviceWorth, nodeGpuInfo } from '../../lib/gpu/device-worth.ts';
import type { KubeObject } from '../engine/index.ts';
import type { UsageSnapshot } from '../usage/index.ts';
import { readingOut } from './usage-join.ts';

const byIndex = new Intl.Collator('en', { numeric: true }).compare;

/**
 * `podStart` (`namespace/name` → epoch ms) bounds a held device's idle time by its pod's start: a GPU
 * never busy in the look-back has been idle for this pod only since the pod began.
 */
export function nodeReadings(snap: UsageSnapshot | null, podStart: (pod: string) => number | null = () => null): (node: KubeObject) => NodeSummary['gpuReadings'] {
  return (node) => {
    const name = node.metadata?.name;
    const readings = snap && snap.at !== null && name ? snap.byNode.get(name) : undefined;
    if (!readings || readings.length === 0) return null;
    const info = nodeGpuInfo(node.metadata?.labels);
    // Pods sharing one device (time-slicing) each get a series with the device's figures.
    const podsOnDevice = new Map<string, number>();
    for (const r of readings) if (r.pod && !r.mig) podsOnDevice.set(r.uuid, (podsOnDevice.get(r.uuid) ?? 0) + 1);
    return [...readings]
      .sort((a, b) => byIndex(a.gpu, b.gpu) || byIndex(a.mig?.instance ?? '', b.mig?.instance ?? '') || byIndex(a.pod ?? '', b.pod ?? ''))
      .map((r) => {
        const sharing = r.mig ? 1 : (podsOnDevice.get(r.uuid) ?? 1);
        const worth = r.mig ? (deviceWorth(`nvidia.com/mig-${r.mig.profile}`, info) ?? 0) : 1 / sharing;
        const pod = r.pod && r.namespace ? `${r.namespace}/${r.pod}` : null;
        const started = pod ? podStart(pod) : null;
        const since = r.idle && r.since !== null && started !== null ? Math.max(r.since, started) : r.since;
        return { ...readingOut({ ...r, since }, worth, sharing > 1), pod };
      });
  };
}

/** When each pod started (`namespace/name` → epoch ms), read from the pods only when first asked. */
export function podStartsOf(pods: () => Iterable<KubeObject>): (pod: string) => number | null {
  let m: Map<string, number> | null = null;
  return (pod) => {
    if (!m) {
      m = new Map();
      for (const p of pods()) {
        const t = Date.parse(String((p.status as { startTime?: unknown } | undefined)?.startTime ?? p.metadata?.creationTimestamp ?? ''));
        if (Number.isFinite(t)) m.set(`${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`, t);
      }
    }
    return m.get(pod) ?? null;
  };
}
