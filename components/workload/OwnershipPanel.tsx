/**
 * The raw ownership tree of a workload (owners → children → pods, with GPUs), open by default for a
 * workload no definition describes: what a definition for its kind would have to describe.
 */
import type { WorkloadDetail } from '../../contract/index.ts';
import { useState } from 'react';
import { formatGpus } from '../../lib/format/gpus.ts';
import { WindowedList } from '../ui/WindowedList.tsx';
import { Panel } from './Panels.tsx';
import { ownershipLines } from './ownership-tree.ts';

export function OwnershipPanel({ detail }: { detail: WorkloadDetail }) {
  const { row } = detail;
  const lines = ownershipLines(detail.owned);
  const noDefinition = row.definition.source === 'none';
  const o = row.ownership;
  const [open, setOpen] = useState(noDefinition);
  return (
    <Panel title="Ownership" id="panel-ownership">
      {noDefinition && (
        <p className="mb-2 text-slate-600 dark:text-slate-300" data-testid="no-definition-note">
          No definition describes {row.kind} ({row.apiVersion}). Its pods and their GPUs are counted here; what it asks for (desired) is unknown and its status comes from its pods. The tree below is what a definition for this kind would describe.
        </p>
      )}
      {o.ownedBy && (
        <p className="mb-2 text-slate-600 dark:text-slate-300" data-testid="owned-by">
          Owned by {o.ownedBy.kind} {o.ownedBy.namespace ? `${o.ownedBy.namespace}/` : ''}
          {o.ownedBy.name} ({o.ownedBy.apiVersion}), which no definition describes.
        </p>
      )}
      {o.broken && (
        <p className="mb-2 text-amber-800 dark:text-amber-300" data-testid="ownership-broken">
          Ownership stops here: {o.broken}.
        </p>
      )}
      <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary className="cursor-pointer text-sm text-sky-700 dark:text-sky-400">
          {lines.length} objects{detail.ownedTruncated > 0 ? ` (and ${detail.ownedTruncated} more not listed)` : ''}
        </summary>
        {/* Rendered only while open, and only the lines in view: 2,000 objects stay a few dozen elements. */}
        {open && (
          <div className="mt-2 font-mono text-xs" data-testid="ownership-tree">
            <WindowedList
              label="Objects the workload owns"
              count={lines.length}
              rowHeight={22}
              maxHeight={420}
              renderRow={(i, style) => {
                const l = lines[i];
                return (
                  <div key={l.object.uid} role="row" style={{ ...style, paddingLeft: `${l.depth * 1.25}rem` }} className="flex items-center gap-2 whitespace-nowrap">
                    <span role="cell" className="text-slate-600 dark:text-slate-400">{l.object.kind}</span>
                    <span role="cell">{l.object.name}</span>
                    <span role="cell" className="text-slate-600 dark:text-slate-400">
                      {l.object.pod ? `${l.object.pod.phase}${l.object.pod.node ? ` on ${l.object.pod.node}` : ''}` : `${l.pods} pods`}
                    </span>
                    {l.gpus > 0 && <span role="cell" className="font-semibold">{formatGpus(l.gpus)} GPUs</span>}
                  </div>
                );
              }}
            />
          </div>
        )}
      </details>
    </Panel>
  );
}
