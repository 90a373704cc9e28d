/**
 * `wmap describe`: a workload as one page of text — what it is, the tree, a resources table per
 * role (pods, GPUs, CPU, memory) ending in a total row, why pods are not running, and recent
 * events. Pure: the command gathers the tree, the pods and the events; this formats them.
 */
import type { EventList, PodWhy, TreePod, WorkloadTree } from '../../contract/index.ts';
import { parseQuantity, type KubeObject } from '../engine/index.ts';
import { humanAge } from '../../lib/format/duration.ts';
import { naturalCompare } from '../../lib/format/natural-order.ts';
import { renderTree } from './render-tree.ts';
import { table } from './text-table.ts';
import { groupEvents, objectsText } from '../../lib/events/group-events.ts';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A pod's CPU (cores) and memory (bytes) requests as the scheduler reads them: requests, else limits; init peak. */
export function podCpuMemory(pod: KubeObject): { cpu: number; memory: number } {
  const spec = isRec(pod.spec) ? pod.spec : {};
  const of = (c: unknown, r: 'cpu' | 'memory'): number => {
    const res = isRec(c) && isRec(c.resources) ? c.resources : {};
    const v = (isRec(res.requests) ? res.requests[r] : undefined) ?? (isRec(res.limits) ? res.limits[r] : undefined);
    return parseQuantity(v) ?? 0;
  };
  const sum = (list: unknown, r: 'cpu' | 'memory') => (Array.isArray(list) ? list.reduce<number>((n, c) => n + of(c, r), 0) : 0);
  const peak = (list: unknown, r: 'cpu' | 'memory') => (Array.isArray(list) ? list.reduce<number>((n, c) => Math.max(n, of(c, r)), 0) : 0);
  return {
    cpu: Math.max(sum(spec.containers, 'cpu'), peak(spec.initContainers, 'cpu')),
    memory: Math.max(sum(spec.containers, 'memory'), peak(spec.initContainers, 'memory')),
  };
}

export function cpuText(cores: number): string {
  if (cores === 0) return '0';
  return Number.isInteger(cores) ? String(cores) : cores < 1 ? `${Math.round(cores * 1000)}m` : String(Math.round(cores * 100) / 100);
}

export function memoryText(bytes: number): string {
  if (bytes === 0) return '0';
  const units: Array<[string, number]> = [['Ti', 2 ** 40], ['Gi', 2 ** 30], ['Mi', 2 ** 20], ['Ki', 2 ** 10]];
  for (const [u, n] of units) if (bytes >= n) return `${Math.round((bytes / n) * 10) / 10}${u}`;
  return String(bytes);
}

const gpuNumber = (n: number) => String(Math.round(n * 1000) / 1000);


interface RoleLine {
  role: string;
  live: number;
  desired: number | null;
  ready: number;
  gpus: number;
  cpu: number;
  memory: number;
}

/** Per role: live/desired pods, ready, GPUs requested, CPU and memory of its live pods; then a total. */
export function resourceRows(tree: WorkloadTree, pods: readonly KubeObject[]): string[][] {
  const spec = new Map<string, KubeObject>();
  for (const p of pods) if (p.metadata?.uid) spec.set(p.metadata.uid, p);
  const active = (p: TreePod) => p.phase !== 'Succeeded' && p.phase !== 'Failed';
  const line = (role: string, members: TreePod[], desired: number | null, gpus: number): RoleLine => {
    let cpu = 0;
    let memory = 0;
    for (const p of members) {
      const o = spec.get(p.uid);
      if (!o || !active(p)) continue;
      const r = podCpuMemory(o);
      cpu += r.cpu;
      memory += r.memory;
    }
    return { role, live: members.filter(active).length, desired, ready: members.filter((p) => p.ready).length, gpus, cpu, memory };
  };
  const lines: RoleLine[] = tree.roles.map((r) => {
    const members = tree.pods.filter((p) => p.component === r.component && p.instance === r.instance);
    const figures = tree.components.find((c) => c.name === r.component)?.instances.find((i) => i.id === r.instance)?.gpus;
    return line(r.name, members, r.desiredPods, figures?.requested.total ?? 0);
  });
  if (tree.unmatchedPods.length > 0) lines.push(line('(unmatched)', tree.unmatchedPods, null, tree.unmatchedGpus.requested.total));
  const total: RoleLine = lines.reduce(
    (t, l) => ({ ...t, live: t.live + l.live, desired: t.desired !== null && l.desired !== null ? t.desired + l.desired : t.desired, ready: t.ready + l.ready, cpu: t.cpu + l.cpu, memory: t.memory + l.memory }),
    { role: 'TOTAL', live: 0, desired: 0, ready: 0, gpus: tree.gpus.requested.total, cpu: 0, memory: 0 } as RoleLine,
  );
  const cells = (l: RoleLine) => [l.role, `${l.live}/${l.desired ?? '?'}`, String(l.ready), gpuNumber(l.gpus), cpuText(l.cpu), memoryText(l.memory)];
  return [['ROLE', 'PODS', 'READY', 'GPUS', 'CPU', 'MEMORY'], ...lines.map(cells), cells(total)];
}

/** Pods that are not running and ready, grouped by reason (most pods first), a few names each. */
export function whyLines(tree: WorkloadTree, perReason = 5): string[] {
  const groups = new Map<string, { why: PodWhy; pods: string[] }>();
  for (const p of [...tree.pods, ...tree.unmatchedPods]) {
    if (!p.why) continue;
    const key = `${p.why.reason}\u0000${p.why.message}`;
    const g = groups.get(key);
    if (g) g.pods.push(p.name);
    else groups.set(key, { why: p.why, pods: [p.name] });
  }
  const out: string[] = [];
  for (const g of [...groups.values()].sort((a, b) => b.pods.length - a.pods.length)) {
    const names = g.pods.sort(naturalCompare);
    const shown = names.slice(0, perReason).join(', ') + (names.length > perReason ? `, … (${names.length - perReason} more)` : '');
    out.push(`  ${g.why.reason} (${names.length} pod${names.length === 1 ? '' : 's'}): ${g.why.message.replace(/\s+/g, ' ').trim()}`);
    out.push(`    ${shown}`);
  }
  return out;
}

/**
 * Warning events newest first, those with the same reason and message (seven pods that cannot be
 * scheduled for the same reason) on one line naming how many objects said it; normal ones counted.
 */
export function eventLines(list: EventList, now: number, limit = 20): string[] {
  if (list.error) return [`  ${list.error}`];
  const warnings = list.events.filter((e) => e.type === 'Warning');
  const normal = list.events.length - warnings.length;
  if (warnings.length === 0) return [`  no warnings${normal ? ` (${normal} normal event${normal === 1 ? '' : 's'}; see the dashboard's timeline)` : ''}`];
  const all = groupEvents(warnings);
  const rows = [
    ['TYPE', 'REASON', 'AGE', 'OBJECT', 'MESSAGE'],
    ...all.slice(0, limit).map((g) => [g.newest.type, g.newest.reason, `${g.newest.last ? humanAge(g.newest.last, now) : '?'}${g.count > 1 ? ` (x${g.count})` : ''}`, objectsText(g.objects), g.newest.message]),
  ];
  const out = table(rows).map((l) => `  ${l}`);
  if (all.length > limit) out.push(`  … ${all.length - limit} more kinds of warning`);
  if (normal) out.push(`  (${normal} normal event${normal === 1 ? '' : 's'} not shown)`);
  return out;
}

export interface DescribeInput {
  tree: WorkloadTree;
  pods: readonly KubeObject[];
  root: KubeObject;
  /** Null in file mode (no cluster). */
  events: EventList | null;
  /** False in file mode: the status is what the file says, not the cluster's. */
  live: boolean;
  now: number;
}

export function describeText(d: DescribeInput): string {
  const { tree, now } = d;
  const w = tree.workload;
  const created = d.root.metadata?.creationTimestamp;
  const reasons = tree.status.conditions.filter((c) => c.status === 'True' && c.message).map((c) => `${c.type}: ${c.message}`);
  const head = table([
    ['Name:', w.name],
    ['Namespace:', w.namespace || '(cluster-scoped)'],
    ['Kind:', `${w.kind} (${w.apiVersion})`],
    ...(d.live ? [['Cluster:', w.cluster]] : []),
    ['Definition:', `${tree.definition.name || '(none)'} (${tree.definition.source})`],
    ['Status:', `${tree.status.matched.join(', ')}${tree.status.phase ? ` (phase ${tree.status.phase})` : ''}${d.live ? '' : ' — from the file, not live'}`],
    ...(reasons.length ? [['Conditions:', reasons.join('; ')]] : []),
    ['Created:', typeof created === 'string' ? `${created} (${humanAge(created, now)} ago)` : '<unknown>'],
    ['GPUs:', `desired ${gpuNumber(tree.gpus.desired.total)}, requested ${gpuNumber(tree.gpus.requested.total)}, allocated ${gpuNumber(tree.gpus.allocated.total)}`],
  ]);
  const out = [...head, '', 'Tree:', ...renderTree(tree, { maxPodsPerRole: 10 }).split('\n').map((l) => `  ${l}`), '', 'Resources (requests of live pods):', ...table(resourceRows(tree, d.pods)).map((l) => `  ${l}`)];
  const why = whyLines(tree);
  out.push('', 'Not running and ready:', ...(why.length ? why : ['  none']));
  if (tree.warnings.length) out.push('', 'Warnings:', ...tree.warnings.map((x) => `  ${x.message}`));
  if (d.events) out.push('', 'Events (warnings, newest first):', ...eventLines(d.events, now));
  else out.push('', 'Events: <none: file mode, no cluster>');
  return out.join('\n');
}
