'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { ActionName, ActionsOffer } from '../../contract/index.ts';
import { fetchApiJson } from '../workload/fetch-json.ts';
import { ACTION_LABEL, ActionDialog } from './ActionDialog.tsx';

/**
 * The workload page's actions. Each is offered only as what the server and the cluster allow: a
 * disabled button says why (writes off, your account may not patch or delete this object, already
 * suspended, no definition says where the pod templates are).
 */
export function ActionsBar({ api, kind, name }: { api: string; kind: string; name: string }) {
  const qc = useQueryClient();
  const offer = useQuery({ queryKey: ['actions', api], queryFn: () => fetchApiJson<ActionsOffer>(`${api}/actions`), refetchInterval: 30_000 });
  const [open, setOpen] = useState<ActionName | null>(null);
  if (!offer.data) return offer.isError ? <p className="text-xs text-slate-600 dark:text-slate-400">Actions unavailable: {offer.error.message}</p> : null;
  const o = offer.data;
  return (
    <div role="toolbar" aria-label={`Actions on ${kind} ${name}`} className="flex flex-wrap items-center gap-1.5" data-testid="workload-actions">
      {o.actions.map((a) => (
        <span key={a.action} className="inline-flex">
          <button
            type="button"
            disabled={!a.available}
            title={a.reason ?? undefined}
            aria-describedby={a.reason ? `why-${a.action}` : undefined}
            onClick={() => setOpen(a.action)}
            className={`rounded-md border px-2.5 py-1 text-sm disabled:cursor-not-allowed disabled:opacity-60 ${a.action === 'delete' ? 'border-rose-400 text-rose-800 dark:border-rose-700 dark:text-rose-300' : 'border-slate-300 dark:border-slate-700'}`}
            data-testid={`action-${a.action}`}
          >
            {ACTION_LABEL[a.action]}
          </button>
          {a.reason && <span id={`why-${a.action}`} className="sr-only">{`unavailable: ${a.reason}`}</span>}
        </span>
      ))}
      {!o.writes.enabled && <span className="text-xs text-slate-600 dark:text-slate-400" data-testid="writes-off">{o.writes.reason}</span>}
      {open && (
        <ActionDialog
          key={open}
          action={open}
          offer={o}
          api={api}
          kind={kind}
          name={name}
          onClose={() => setOpen(null)}
          onApplied={() => {
            void qc.invalidateQueries({ queryKey: ['actions', api] });
            void qc.invalidateQueries({ queryKey: ['audit'] });
          }}
        />
      )}
    </div>
  );
}
