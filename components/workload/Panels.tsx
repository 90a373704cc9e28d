import Link from 'next/link';
import { useState } from 'react';
import type { ReactNode } from 'react';
import type { EngineError, WorkloadTree, WorkloadUsage } from '../../contract/index.ts';
import { useNow } from '../live/LiveProvider.tsx';
import { WindowedList } from '../ui/WindowedList.tsx';
import { formatGpus } from '../../lib/format/gpus.ts';
import { definitionHref } from '../workloads/workload-href.ts';
import { gpuByResource, podRows, roleRows, visibleRoles } from './detail-model.ts';
import { gangRows, summariseGangs, summaryText, type GangRow } from './gang-summary.ts';
import { PodUsageCells } from './PodUsageCells.tsx';

export function Panel({ title, children, actions, id }: { title: string; children: ReactNode; actions?: ReactNode; id?: string }) {
  return (
    <section aria-labelledby={id} className="rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-950">
      <div className="flex items-center gap-2 border-b border-slate-200 px-3 py-2 dark:border-slate-800">
        <h2 id={id} className="text-sm font-semibold">
          {title}
        </h2>
        <div className="ml-auto">{actions}</div>
      </div>
      <div className="p-3 text-sm">{children}</div>
    </section>
  );
}

const th = 'px-2 py-1 text-left text-xs font-medium uppercase text-slate-500 dark:text-slate-400';
const td = 'px-2 py-1';

export function StatusPanel({ tree }: { tree: WorkloadTree }) {
  const s = tree.status;
  return (
    <Panel title="Status" id="panel-status">
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
        <dt className="text-slate-600 dark:text-slate-400">Matched</dt>
        <dd>{s.matched.join(', ')}</dd>
        <dt className="text-slate-600 dark:text-slate-400">Native phase</dt>
        <dd>{s.phase || '—'}</dd>
      </dl>
      {s.conditions.length > 0 ? (
        <table className="mt-2 w-full">
          <caption className="sr-only">Conditions</caption>
          <thead>
            <tr>
              <th className={`${th} whitespace-nowrap`}>Condition</th>
              <th className={`${th} whitespace-nowrap`}>Status</th>
              <th className={`${th} whitespace-nowrap`}>Reason</th>
            </tr>
          </thead>
          <tbody>
            {s.conditions.map((c, i) => (
              <tr key={`${c.type}-${i}`} className="border-t border-slate-100 align-top dark:border-slate-800" title={c.message ?? ''}>
                <td className={`${td} [overflow-wrap:normal]`}>{c.type}</td>
                <td className={`${td} whitespace-nowrap ${c.status === 'True' ? 'text-emerald-700 dark:text-emerald-400' : c.status === 'False' ? 'text-slate-500' : ''}`}>{c.status ?? '—'}</td>
                <td className={td}>
                  {c.reason ?? '—'}
                  {c.message && <div className="break-words text-xs text-slate-600 dark:text-slate-300">{c.message}</div>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="mt-2 text-slate-600 dark:text-slate-400">No conditions reported.</p>
      )}
      <ProblemList items={tree.errors} label="Errors" tone="rounded bg-red-50 px-2 py-1 text-xs text-red-800 dark:bg-red-950 dark:text-red-200" />
      <ProblemList items={tree.warnings} label="Warnings" tone="rounded border border-amber-200 bg-amber-50 px-2 py-1 text-xs text-amber-900 dark:border-amber-900 dark:bg-amber-950/40 dark:text-amber-200" prefix="warning" />
    </Panel>
  );
}

/** Errors (red) and warnings (amber: the tree is right, something about it deserves a look). */
function ProblemList({ items, label, tone, prefix }: { items: readonly EngineError[]; label: string; tone: string; prefix?: string }) {
  if (items.length === 0) return null;
  return (
    <ul className="mt-2 flex flex-col gap-1" aria-label={label} data-testid={label.toLowerCase()}>
      {items.map((e, i) => (
        <li key={i} className={tone}>
          {prefix && <span className="mr-1 font-semibold uppercase">{prefix}</span>}
          <code>{e.code}</code> {e.message}
          {e.path && <div className="font-mono text-[11px] opacity-80">{e.path}</div>}
        </li>
      ))}
    </ul>
  );
}

export function GpuPanel({ tree }: { tree: WorkloadTree }) {
  const rows = gpuByResource(tree);
  return (
    <Panel title="GPUs" id="panel-gpus">
      {rows.length === 0 ? (
        <p className="text-slate-600 dark:text-slate-400">This workload asks for no GPUs.</p>
      ) : (
        <table className="w-full tabular-nums" data-testid="gpu-table">
          <thead>
            <tr>
              <th className={th}>Resource</th>
              <th className={`${th} text-right`}>Desired</th>
              <th className={`${th} text-right`}>Requested</th>
              <th className={`${th} text-right`}>Allocated</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.resource} className="border-t border-slate-100 dark:border-slate-800">
                <td className={td} title={r.resource}>
                  {r.label}
                  {r.mig && <span className="ml-1 text-xs text-slate-600 dark:text-slate-400">({r.resource})</span>}
                </td>
                <td className={`${td} text-right`}>{formatGpus(r.desired)}</td>
                <td className={`${td} text-right`}>{formatGpus(r.requested)}</td>
                <td className={`${td} text-right`}>{formatGpus(r.allocated)}</td>
              </tr>
            ))}
            {rows.length > 1 && (
              <tr className="border-t border-slate-200 font-semibold dark:border-slate-700">
                <td className={td}>Total</td>
                <td className={`${td} text-right`}>{formatGpus(tree.gpus.desired.total)}</td>
                <td className={`${td} text-right`}>{formatGpus(tree.gpus.requested.total)}</td>
                <td className={`${td} text-right`}>{formatGpus(tree.gpus.allocated.total)}</td>
              </tr>
            )}
          </tbody>
        </table>
      )}
    </Panel>
  );
}

export function RolesPanel({ tree }: { tree: WorkloadTree }) {
  const [showEmpty, setShowEmpty] = useState(false);
  const all = roleRows(tree);
  const { rows, empty } = visibleRoles(all, showEmpty);
  const toggle =
    empty > 0 ? (
      <button type="button" aria-pressed={showEmpty} onClick={() => setShowEmpty((v) => !v)} className="text-xs text-sky-700 hover:underline dark:text-sky-400" data-testid="roles-empty-toggle">
        {showEmpty ? `Hide ${empty} empty role${empty === 1 ? '' : 's'}` : `Show ${empty} empty role${empty === 1 ? '' : 's'}`}
      </button>
    ) : undefined;
  return (
    <Panel title="Roles" id="panel-roles" actions={toggle}>
      {all.length === 0 ? (
        <p className="text-slate-600 dark:text-slate-400">The definition names no pod-bearing roles.</p>
      ) : rows.length === 0 ? (
        <p className="text-slate-600 dark:text-slate-400">No role has pods or asks for any.</p>
      ) : (
        <table className="w-full tabular-nums" data-testid="roles-table">
          <thead>
            <tr>
              <th className={th}>Role</th>
              <th className={th}>Component</th>
              <th className={th}>Instance</th>
              <th className={`${th} text-right`}>Pods live / desired</th>
              <th className={`${th} text-right`}>Ready</th>
              <th className={th}>GPUs per pod</th>
              <th className={`${th} text-right`} title="GPUs allocated / requested / desired by this role">GPUs alloc / req / desired</th>
              <th className={th}>Why not ready</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={`${r.component}/${r.instance}`} className={`border-t border-slate-100 dark:border-slate-800 ${r.empty ? 'text-slate-500 dark:text-slate-400' : ''}`}>
                <td className={`${td} font-medium`}>{r.name}</td>
                <td className={`${td} text-slate-600 dark:text-slate-300`}>{r.component}</td>
                <td className={`${td} font-mono text-xs`}>{r.instance || '—'}</td>
                <td className={`${td} text-right ${r.live !== r.desired ? 'text-amber-700 dark:text-amber-400' : ''}`}>
                  {r.live} / {r.desired}
                </td>
                <td className={`${td} text-right`}>{r.ready}</td>
                <td className={td}>{r.gpusPerPod}</td>
                <td className={`${td} text-right`}>{r.gpus ? `${formatGpus(r.gpus.allocated)} / ${formatGpus(r.gpus.requested)} / ${formatGpus(r.gpus.desired)}` : '—'}</td>
                <td className={`${td} max-w-[280px] truncate`} title={r.why ? r.why.message : undefined} data-testid="role-why">
                  {r.why ? `${r.why.pods} ${r.why.reason}` : '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}

const POD_COLS = 'minmax(200px,2fr) minmax(90px,1fr) minmax(110px,1.2fr) 60px minmax(120px,1.2fr) minmax(90px,1fr) 90px 90px 80px 70px';
const PHASE_TONE: Record<string, string> = {
  Running: 'text-emerald-700 dark:text-emerald-400',
  Pending: 'text-sky-700 dark:text-sky-400',
  Failed: 'text-red-700 dark:text-red-400',
  Succeeded: 'text-indigo-700 dark:text-indigo-400',
};

/** The workload's pods; with `usage`, each GPU pod's utilization, memory and idle state (per GPU on hover). */
export function PodsPanel({ tree, usage, onSelectPod }: { tree: WorkloadTree; usage: WorkloadUsage | null; onSelectPod?: (name: string) => void }) {
  const now = useNow(30_000);
  const rows = podRows(tree);
  const header = (
    <div role="row" className="grid items-center gap-2 border-b border-slate-200 bg-slate-50 px-2 dark:border-slate-800 dark:bg-slate-900" style={{ gridTemplateColumns: POD_COLS, height: 30 }}>
      {['Pod', 'Role', 'Phase', 'Ready', 'Node', 'GPUs', 'Util', 'GPU mem', 'Idle', 'Restarts'].map((h) => (
        <div key={h} role="columnheader" className="text-xs font-medium uppercase text-slate-500 dark:text-slate-400">
          {h}
        </div>
      ))}
    </div>
  );
  return (
    <Panel title={`Pods (${tree.pods.length}${tree.unmatchedPods.length ? ` + ${tree.unmatchedPods.length} unmatched` : ''})`} id="panel-pods">
      {rows.length === 0 ? (
        <p className="text-slate-600 dark:text-slate-400">No pods yet.</p>
      ) : (
        <WindowedList
          label="Pods"
          count={rows.length}
          rowHeight={30}
          maxHeight={420}
          header={header}
          renderRow={(i, style) => {
            const r = rows[i];
            return (
              <div key={`${r.pod.namespace}/${r.pod.name}`} role="row" style={{ ...style, gridTemplateColumns: POD_COLS }} className={`grid items-center gap-2 border-b border-slate-100 px-2 text-xs dark:border-slate-800 ${r.unmatched ? 'bg-amber-50/60 dark:bg-amber-950/30' : ''}`}>
                <div role="cell" className="truncate font-mono" title={r.pod.name}>
                  {onSelectPod ? (
                    <button type="button" className="max-w-full truncate text-left text-sky-800 underline decoration-dotted underline-offset-2 hover:decoration-solid dark:text-sky-300" onClick={() => onSelectPod(r.pod.name)} data-testid="pod-open">
                      {r.pod.name}
                    </button>
                  ) : (
                    r.pod.name
                  )}
                </div>
                <div role="cell" className="truncate">
                  {r.role || '—'}
                </div>
                <div role="cell" className={`truncate ${PHASE_TONE[r.pod.phase] ?? ''}`} title={r.pod.why ? `${r.pod.why.reason}: ${r.pod.why.message}` : r.pod.phase}>
                  {r.pod.phase}
                  {r.pod.why && r.pod.why.reason !== r.pod.phase ? ` · ${r.pod.why.reason}` : ''}
                </div>
                <div role="cell">{r.pod.ready ? 'yes' : r.pod.phase === 'Succeeded' ? 'done' : 'no'}</div>
                <div role="cell" className="truncate" title={r.pod.node ?? 'not scheduled'}>
                  {r.pod.node ? (
                    <Link href={`/nodes?node=${encodeURIComponent(r.pod.node)}&cluster=${encodeURIComponent(tree.workload.cluster)}`} className="text-sky-700 hover:underline dark:text-sky-400">
                      {r.pod.node}
                    </Link>
                  ) : (
                    '—'
                  )}
                </div>
                <div role="cell" className="truncate tabular-nums" title={Object.keys(r.pod.gpus).join(', ')}>
                  {r.gpus}
                </div>
                <PodUsageCells entry={usage?.pods[r.pod.name]} source={usage?.source ?? 'none'} now={now} />
                <div role="cell" className={`tabular-nums ${r.pod.restarts > 0 ? 'text-amber-700 dark:text-amber-400' : ''}`}>
                  {r.pod.restarts}
                </div>
              </div>
            );
          }}
        />
      )}
    </Panel>
  );
}

function gangDetail(r: GangRow): string {
  const g = r.group;
  const t = g.topologyConstraint;
  return [
    `minMember ${g.minMember ?? '—'}`,
    ...(g.minSubGroup !== null ? [`minSubGroup ${g.minSubGroup}`] : []),
    `${r.scheduled}/${r.pods} pod${r.pods === 1 ? '' : 's'} scheduled`,
    ...(t ? [`topology ${t.topology}${t.requiredTopologyLevel ? ` (required ${t.requiredTopologyLevel})` : t.preferredTopologyLevel ? ` (preferred ${t.preferredTopologyLevel})` : ''}`] : []),
    ...(g.source === 'podGroups' ? ['from the deprecated podGroups instruction'] : []),
  ].join(' · ');
}

function GangCard({ r }: { r: GangRow }) {
  return (
    <li className="rounded border border-slate-200 p-2 dark:border-slate-800">
      <div className="font-mono text-xs">
        PodGroup {r.namespace}/{r.name}
      </div>
      <div className="mt-1 text-xs text-slate-600 dark:text-slate-300">{gangDetail(r)}</div>
      {r.group.subGroups.length > 0 && (
        <ul className="mt-1 pl-3 text-xs">
          {r.group.subGroups.map((s) => (
            <li key={s.name}>
              subgroup <span className="font-mono">{s.name}</span>: minMember {s.minMember}, {s.podsReferences.length} pods
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

const GANG_COLS = 'minmax(220px,3fr) 90px 120px minmax(120px,2fr)';

/** Many PodGroups (a workload of 1,945 one-pod gangs): a summary, and a windowed list on demand. */
function GangList({ rows }: { rows: GangRow[] }) {
  const header = (
    <div role="row" className="grid items-center gap-2 border-b border-slate-200 bg-slate-50 px-2 dark:border-slate-800 dark:bg-slate-900" style={{ gridTemplateColumns: GANG_COLS, height: 30 }}>
      {['PodGroup', 'Size', 'Scheduled', 'Details'].map((h) => (
        <div key={h} role="columnheader" className="text-xs font-medium uppercase text-slate-500 dark:text-slate-400">
          {h}
        </div>
      ))}
    </div>
  );
  return (
    <WindowedList
      label="PodGroups"
      count={rows.length}
      rowHeight={30}
      maxHeight={420}
      header={header}
      renderRow={(i, style) => {
        const r = rows[i];
        return (
          <div key={r.name} role="row" style={{ ...style, gridTemplateColumns: GANG_COLS }} className="grid items-center gap-2 border-b border-slate-100 px-2 text-xs dark:border-slate-800">
            <div role="cell" className="truncate font-mono" title={`${r.namespace}/${r.name}`}>
              {r.name}
            </div>
            <div role="cell" className="tabular-nums">
              {r.size ?? '—'}
            </div>
            <div role="cell" className={`tabular-nums ${r.satisfied ? '' : 'text-amber-700 dark:text-amber-400'}`}>
              {r.scheduled}/{r.pods}
            </div>
            <div role="cell" className="truncate text-slate-600 dark:text-slate-300" title={gangDetail(r)}>
              {r.group.subGroups.length > 0 ? `${r.group.subGroups.length} sub-groups` : ''}
              {r.group.topologyConstraint ? `${r.group.subGroups.length > 0 ? ' · ' : ''}topology ${r.group.topologyConstraint.topology}` : ''}
            </div>
          </div>
        );
      }}
    />
  );
}

export function GangPanel({ tree }: { tree: WorkloadTree }) {
  const [open, setOpen] = useState(false);
  const rows = gangRows(tree);
  const summary = summariseGangs(rows);
  return (
    <Panel title="Gang scheduling preview" id="panel-gang">
      {rows.length === 0 ? (
        <p className="text-slate-600 dark:text-slate-400">The definition gives no gang-scheduling instructions for this workload.</p>
      ) : !summary.collapsed ? (
        <ul className="flex flex-col gap-2" data-testid="gang">
          {rows.map((r) => (
            <GangCard key={r.name} r={r} />
          ))}
        </ul>
      ) : (
        <div className="flex flex-col gap-2" data-testid="gang">
          <p className="text-xs text-slate-700 dark:text-slate-200" data-testid="gang-summary">
            {summaryText(summary)}
          </p>
          <div>
            <button type="button" aria-expanded={open} aria-controls="gang-list" onClick={() => setOpen((o) => !o)} className="text-xs text-sky-700 hover:underline dark:text-sky-400">
              {open ? 'Hide the PodGroups' : `Show all ${summary.groups.toLocaleString('en-US')} PodGroups`}
            </button>
          </div>
          {open && (
            <div id="gang-list">
              <GangList rows={rows} />
            </div>
          )}
        </div>
      )}
    </Panel>
  );
}

/** The definition that serves the workload, and the studio: edit a copy of it, or draft one when there is none. */
export function DefinitionPanel({ definition, cluster, rowId }: { definition: { name: string; source: string }; cluster: string; rowId: string }) {
  const row = `row=${encodeURIComponent(rowId)}`;
  if (definition.source === 'none') {
    return (
      <Panel title="Definition" id="panel-definition">
        <p className="text-slate-600 dark:text-slate-400">No definition describes this kind: its roles, what it asks for and its status are not known.</p>
        <Link href={`/studio?draft=${encodeURIComponent(rowId)}`} className="mt-1 inline-block text-sky-700 hover:underline dark:text-sky-400" data-testid="draft-definition">
          Draft a definition from it
        </Link>
      </Panel>
    );
  }
  const q = new URLSearchParams({ definition: definition.name, source: definition.source, ...(definition.source === 'cluster' ? { cluster } : {}) });
  return (
    <Panel title="Definition" id="panel-definition">
      <p>
        <Link href={definitionHref({ ...definition, cluster: definition.source === 'cluster' ? cluster : null })} className="font-mono text-sky-700 hover:underline dark:text-sky-400">
          {definition.name}
        </Link>{' '}
        <span className="text-slate-600 dark:text-slate-400">({definition.source})</span>
      </p>
      <Link href={`/studio?${q}&${row}`} className="mt-1 inline-block text-sm text-sky-700 hover:underline dark:text-sky-400" data-testid="edit-in-studio">
        Try a change in the studio
      </Link>
    </Panel>
  );
}
