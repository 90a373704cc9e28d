/** The human-readable `-o tree` rendering of a workload tree. */
import type { GpuAmounts, GpuFigures, TreeRole, TreePod, WorkloadTree } from '../engine/index.ts';
import { naturalCompare } from '../../lib/format/natural-order.ts';
import { displayKind } from '../../lib/rows/index.ts';

function gpuText(g: GpuAmounts): string {
  const parts = Object.entries(g).map(([k, v]) => `${v} ${k}`);
  return parts.length > 0 ? parts.join(', ') : 'no GPU';
}

/** `12 GPU`, or `12 GPU (8 allocated, 8 requested)` when the live figures differ from the desired one. */
function figuresText(f: GpuFigures): string {
  const { desired, requested, allocated } = f;
  let gpus = `${desired.total} GPU`;
  if (allocated.total !== desired.total || requested.total !== desired.total) gpus += ` (${allocated.total} allocated, ${requested.total} requested)`;
  return gpus;
}

export function headerLine(tree: WorkloadTree): string {
  const w = tree.workload;
  return `${displayKind(w.kind, w.apiVersion)} ${w.namespace ? `${w.namespace}/` : ''}${w.name}  ${tree.status.matched.join(',')}  ${figuresText(tree.gpus)}`;
}

/** The GPUs the tree reports for a role: its instance's figures. */
function roleFigures(tree: WorkloadTree, r: TreeRole): GpuFigures | undefined {
  return tree.components.find((c) => c.name === r.component)?.instances.find((i) => i.id === r.instance)?.gpus;
}

function podText(p: TreePod): string {
  const ready = p.ready ? 'ready' : 'not ready';
  return `${p.name}  ${p.phase} (${ready})${p.why && p.why.reason !== p.phase ? ` ${p.why.reason}` : ''}  ${p.node ?? 'unscheduled'}  ${gpuText(p.gpus)}${p.replica !== null ? `  replica ${p.replica}` : ''}`;
}

/** Pods with a problem first (they are what a shortened list must keep), then natural order. */
function podOrder(a: TreePod, b: TreePod): number {
  return Number(!a.why) - Number(!b.why) || naturalCompare(a.name, b.name);
}

export interface RenderOptions {
  /** Pods listed per role at most (the rest are counted); all by default. */
  maxPodsPerRole?: number;
  /** `-o wide`: the definition in the header, each pod's restarts and uid. */
  wide?: boolean;
}

export function renderTree(tree: WorkloadTree, opts: RenderOptions = {}): string {
  const lines: string[] = [opts.wide ? `${headerLine(tree)}  definition ${tree.definition.name} (${tree.definition.source})` : headerLine(tree)];
  const podLine = (p: TreePod) => (opts.wide ? `${podText(p)}  restarts ${p.restarts ?? 0}  uid ${p.uid ?? '?'}` : podText(p));
  const roles = tree.roles;
  const max = opts.maxPodsPerRole ?? Number.POSITIVE_INFINITY;
  const podsOf = (component: string, instance: string) => {
    const all = tree.pods.filter((p) => p.component === component && p.instance === instance);
    // A shortened list keeps the problems; a full one reads in natural order.
    all.sort(all.length > max ? podOrder : (a, b) => naturalCompare(a.name, b.name));
    return all;
  };
  roles.forEach((r, ri) => {
    const lastRole = ri === roles.length - 1 && tree.unmatchedPods.length === 0;
    const pods = podsOf(r.component, r.instance);
    const label = r.instance ? `${r.name} (${r.component})` : r.name;
    const figures = roleFigures(tree, r);
    lines.push(`${lastRole ? '└─' : '├─'} ${label}  ${r.livePods}/${r.desiredPods} pods, ${r.readyPods} ready  ${gpuText(r.gpusPerPod)} per pod${figures ? `  ${figuresText(figures)}` : ''}`);
    const shown = pods.slice(0, max);
    const more = pods.length - shown.length;
    shown.forEach((p, pi) => lines.push(`${lastRole ? '   ' : '│  '}${pi === shown.length - 1 && more === 0 ? '└─' : '├─'} ${podLine(p)}`));
    if (more > 0) lines.push(`${lastRole ? '   ' : '│  '}└─ … ${more} more pods`);
  });
  const stray = tree.pods.filter((p) => p.instance === null);
  if (stray.length > 0) {
    lines.push(`├─ pods of a component without a matching instance`);
    stray.forEach((p, i) => lines.push(`│  ${i === stray.length - 1 ? '└─' : '├─'} ${p.component}: ${podLine(p)}`));
  }
  if (tree.unmatchedPods.length > 0) {
    lines.push(`└─ unmatched pods (owned, but no component claims them)`);
    tree.unmatchedPods.forEach((p, i) => lines.push(`   ${i === tree.unmatchedPods.length - 1 ? '└─' : '├─'} ${podLine(p)}`));
  }
  for (const g of tree.gang) {
    const size = g.minMember !== null ? `minMember ${g.minMember}` : `minSubGroup ${g.minSubGroup}`;
    lines.push(`gang: PodGroup ${g.name}  ${size}  ${g.pods.length} pods${g.subGroups.length ? `  subgroups ${g.subGroups.map((s) => `${s.name}:${s.minMember}`).join(' ')}` : ''}`);
  }
  for (const e of tree.errors) lines.push(`error: ${e.message}`);
  return lines.join('\n');
}

/**
 * After a tree is printed: its errors on stderr (unless the `tree` output already shows them), its
 * warnings on stderr always; the exit code is 1 on errors only — warnings alone exit 0.
 */
export function reportTreeProblems(tree: WorkloadTree, output: string, err: (line: string) => void): number {
  if (output !== 'tree') for (const e of tree.errors) err(`error: ${e.message}`);
  for (const w of tree.warnings) err(`warning: ${w.message}`);
  return tree.errors.length === 0 ? 0 : 1;
}
