import Link from 'next/link';
import { Fragment } from 'react';
import type { ClusterUsage, GpuCapacity, NodeGroup, NodeSummary } from '../../contract/index.ts';
import { formatGpus } from '../../lib/format/gpus.ts';
import { amountsText, gpuResources } from '../workloads/format.ts';
import { workloadHref } from '../workloads/workload-href.ts';
import { NodeGpuGrid } from './NodeGpuGrid.tsx';

const th = 'px-2 py-1.5 text-left text-xs font-medium uppercase text-slate-500 dark:text-slate-400';
const td = 'px-2 py-1.5 align-top';
const n = (v: number | null) => (v === null ? '?' : formatGpus(v));

/** allocated / allocatable with a bar (solid: allocated). Unknown allocated is `?`, never 0. */
function UsageBar({ c }: { c: GpuCapacity }) {
  const pct = c.allocatable > 0 && c.allocated !== null ? Math.min(100, (c.allocated / c.allocatable) * 100) : 0;
  return (
    <div className="flex min-w-28 flex-col gap-1" title={`capacity ${n(c.capacity)} · allocatable ${n(c.allocatable)} · allocated ${n(c.allocated)} · free ${n(c.free)}`}>
      <span className="tabular-nums">
        <span className="font-semibold">{n(c.allocated)}</span>
        <span className="text-xs text-slate-500 dark:text-slate-400">
          {' '}
          / {n(c.allocatable)}
          {c.capacity !== c.allocatable && ` (capacity ${n(c.capacity)})`}
        </span>
      </span>
      <div className="relative h-1.5 w-full overflow-hidden rounded-full bg-slate-200 dark:bg-slate-700" aria-hidden="true">
        <div className="absolute inset-y-0 left-0 rounded-full bg-emerald-500" style={{ width: `${pct}%` }} />
      </div>
    </div>
  );
}

function NodeState({ node }: { node: NodeSummary }) {
  const badges: Array<{ text: string; tone: string; title?: string }> = [];
  if (!node.ready) badges.push({ text: 'NotReady', tone: 'bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300', title: node.notReadyReason ?? undefined });
  if (node.cordoned) badges.push({ text: 'Cordoned', tone: 'bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-300', title: 'spec.unschedulable: no new pods are placed here' });
  if (badges.length === 0) badges.push({ text: 'Ready', tone: 'bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300' });
  return (
    <div className="flex flex-wrap gap-1" data-testid="node-state">
      {badges.map((b) => (
        <span key={b.text} className={`rounded-full px-2 py-0.5 text-xs font-medium ${b.tone}`} title={b.title}>
          {b.text}
        </span>
      ))}
    </div>
  );
}

function Mig({ node }: { node: NodeSummary }) {
  if (node.mig.slices.length === 0) return <span className="text-slate-500 dark:text-slate-400">—</span>;
  const labels = [node.mig.strategy && `strategy ${node.mig.strategy}`, node.mig.config && `config ${node.mig.config}`, node.mig.state && `state ${node.mig.state}`].filter(Boolean).join(' · ');
  return (
    <ul className="flex flex-col gap-0.5 text-xs" title={labels || undefined} aria-label={`MIG layout of ${node.name}`}>
      {node.mig.slices.map((s) => (
        <li key={s.profile} className="tabular-nums">
          <span className="font-mono">{s.profile}</span> × {s.capacity} <span className="text-slate-500 dark:text-slate-400">({n(s.free)} free)</span>
        </li>
      ))}
    </ul>
  );
}

function Taints({ node }: { node: NodeSummary }) {
  if (node.taints.length === 0) return <span className="text-slate-500 dark:text-slate-400">—</span>;
  return (
    <ul className="flex flex-col gap-0.5 font-mono text-[11px]">
      {node.taints.map((t, i) => (
        <li key={i} className="truncate" title={`${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`}>
          {t.key}
          {t.value ? `=${t.value}` : ''}:{t.effect}
        </li>
      ))}
    </ul>
  );
}

function Workloads({ node }: { node: NodeSummary }) {
  if (node.workloads.length === 0) return <span className="text-slate-500 dark:text-slate-400">{node.resources.some((r) => r.allocated === null) ? 'unknown' : '—'}</span>;
  return (
    // Each link is a 24 px target (WCAG 2.5.8): stacked 16 px lines are too close to tap apart.
    <ul className="flex flex-col text-xs">
      {node.workloads.map((w) => (
        <li key={w.id ?? `${w.namespace}/${w.name}`} className="flex min-h-6 items-center gap-1">
          {w.id ? (
            <Link href={workloadHref({ cluster: node.cluster, namespace: w.namespace, kind: w.kind, name: w.name })} className="truncate py-1 text-sky-700 hover:underline dark:text-sky-400" title={`${w.kind} ${w.namespace}/${w.name}`}>
              {w.namespace ? `${w.namespace}/` : ''}
              {w.name}
            </Link>
          ) : (
            <span className="truncate text-amber-700 dark:text-amber-400" title="A pod no row counts">
              pod {w.namespace}/{w.name}
            </span>
          )}
          <span className="ml-auto shrink-0 tabular-nums text-slate-500 dark:text-slate-400" title={`${amountsText(w.gpus)} (${formatGpus(w.total)} GPU devices' worth)`}>
            {gpuResources(w.gpus).map((r) => (r.mig ? `${formatGpus(r.amount)} × ${r.label.slice(4)}` : `${formatGpus(r.amount)} ${r.label}`)).join(' + ')} · {w.pods} pod{w.pods === 1 ? '' : 's'}
          </span>
        </li>
      ))}
    </ul>
  );
}

export function groupTitle(g: Pick<NodeGroup, 'product' | 'pool'>): string {
  return `${g.product ?? 'Unknown GPU product'}${g.pool ? ` · ${g.pool.value}` : ''}`;
}

/** One product × pool group: its totals and a row per node, each with its GPUs' utilization beneath. */
export function NodeGroupTable({ group, nodes, id, usage, now }: { group: NodeGroup; nodes: NodeSummary[]; id: string; usage?: ClusterUsage; now: number }) {
  const t = group.total;
  return (
    <section aria-labelledby={id} className="rounded-lg border border-slate-200 dark:border-slate-800" data-testid="node-group">
      <div className="flex flex-wrap items-baseline gap-x-4 gap-y-1 border-b border-slate-200 px-3 py-2 dark:border-slate-800">
        <h2 id={id} className="text-sm font-semibold">
          {groupTitle(group)}
        </h2>
        {group.pool && <span className="font-mono text-xs text-slate-500 dark:text-slate-400">{group.pool.label}</span>}
        <span className="ml-auto text-xs tabular-nums text-slate-600 dark:text-slate-300">
          {nodes.length === group.nodes.length ? `${nodes.length} node${nodes.length === 1 ? '' : 's'}` : `${nodes.length} of ${group.nodes.length} nodes`} · capacity {n(t.capacity)} · allocatable {n(t.allocatable)} · allocated {n(t.allocated)} · free {n(t.free)}
        </span>
      </div>
      <div className="overflow-x-auto">
        <table className="w-full text-sm">
          <thead className="bg-slate-50 dark:bg-slate-900">
            <tr>
              <th className={th}>Node</th>
              <th className={th}>State</th>
              <th className={th}>GPUs allocated</th>
              <th className={`${th} text-right`}>Free</th>
              <th className={th}>MIG</th>
              <th className={th}>Taints</th>
              <th className={th}>Workloads</th>
            </tr>
          </thead>
          <tbody>
            {nodes.map((node) => (
              <Fragment key={node.name}>
              <tr className="border-t border-slate-100 dark:border-slate-800" data-testid="node-row" data-node={node.name}>
                <td className={`${td} font-mono text-xs`}>
                  {node.name}
                  {node.unreadable.length > 0 && (
                    <div className="text-amber-700 dark:text-amber-400" title={node.unreadable.join('\n')}>
                      {node.unreadable.length} unreadable value{node.unreadable.length === 1 ? '' : 's'}
                    </div>
                  )}
                </td>
                <td className={td}>
                  <NodeState node={node} />
                </td>
                <td className={td} title={node.resources.map((r) => `${r.resource}: ${n(r.allocated)} / ${n(r.allocatable)}`).join('\n')}>
                  <UsageBar c={node.total} />
                </td>
                <td className={`${td} text-right font-semibold tabular-nums`} data-testid="node-free">
                  {n(node.total.free)}
                </td>
                <td className={td}>
                  <Mig node={node} />
                </td>
                <td className={`${td} max-w-56`}>
                  <Taints node={node} />
                </td>
                <td className={`${td} min-w-56`}>
                  <Workloads node={node} />
                </td>
              </tr>
              <tr data-testid="node-gpu-row" data-node={node.name}>
                <td colSpan={7} className="px-2 pb-2">
                  <NodeGpuGrid node={node} usage={usage} now={now} />
                </td>
              </tr>
              </Fragment>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
