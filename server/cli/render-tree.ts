/** The human-readable `-o tree` rendering of a workload tree. */
import type { GpuAmounts, TreePod, WorkloadTree } from '../engine/index.ts';

function gpuText(g: GpuAmounts): string {
  const parts = Object.entries(g).map(([k, v]) => `${v} ${k}`);
  return parts.length > 0 ? parts.join(', ') : 'no GPU';
}

export function headerLine(tree: WorkloadTree): string {
  const w = tree.workload;
  const { desired, requested, allocated } = tree.gpus;
  const status = tree.status.matched.join(',');
  let gpus = `${desired.total} GPU`;
  if (allocated.total !== desired.total || requested.total !== desired.total) gpus += ` (${allocated.total} allocated, ${requested.total} requested)`;
  return `${w.kind} ${w.namespace ? `${w.namespace}/` : ''}${w.name}  ${status}  ${gpus}`;
}

function podLine(p: TreePod): string {
  const ready = p.ready ? 'ready' : 'not ready';
  return `${p.name}  ${p.phase} (${ready})  ${p.node ?? 'unscheduled'}  ${gpuText(p.gpus)}${p.replica !== null ? `  replica ${p.replica}` : ''}`;
}

export function renderTree(tree: WorkloadTree): string {
  const lines: string[] = [headerLine(tree)];
  const roles = tree.roles;
  const podsOf = (component: string, instance: string) => tree.pods.filter((p) => p.component === component && p.instance === instance);
  roles.forEach((r, ri) => {
    const lastRole = ri === roles.length - 1 && tree.unmatchedPods.length === 0;
    const pods = podsOf(r.component, r.instance);
    const label = r.instance ? `${r.name} (${r.component})` : r.name;
    lines.push(`${lastRole ? '└─' : '├─'} ${label}  ${r.livePods}/${r.desiredPods} pods, ${r.readyPods} ready  ${gpuText(r.gpusPerPod)} per pod`);
    pods.forEach((p, pi) => lines.push(`${lastRole ? '   ' : '│  '}${pi === pods.length - 1 ? '└─' : '├─'} ${podLine(p)}`));
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
