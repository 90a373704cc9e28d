'use client';

import { useEffect, useRef, useState } from 'react';
import type { ActionAnswer, ActionName, ActionsOffer, ActionSpecJson } from '../../contract/index.ts';
import { postAction } from './action-request.ts';
import { DiffView } from './DiffView.tsx';
import { parseEditLines } from './edit-lines.ts';

export const ACTION_LABEL: Record<ActionName, string> = {
  suspend: 'Suspend',
  resume: 'Resume',
  labels: 'Labels…',
  annotations: 'Annotations…',
  image: 'Image…',
  env: 'Env…',
  resources: 'Resources…',
  delete: 'Delete…',
};

const field = 'w-full rounded border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-900';
const button = 'rounded-md px-3 py-1.5 text-sm font-medium disabled:cursor-not-allowed disabled:opacity-50';

interface Props {
  action: ActionName;
  offer: ActionsOffer;
  api: string;
  kind: string;
  name: string;
  onClose(): void;
  onApplied(): void;
}

/** The spec the form describes, or the mistakes that keep it from being one. */
function specOf(action: ActionName, f: FormState, offer: ActionsOffer): { spec: ActionSpecJson } | { errors: string[] } {
  if (action === 'suspend' || action === 'resume') return { spec: { action } };
  if (action === 'delete') return f.confirm === offer.resourceVersion || f.confirm.trim() === f.name ? { spec: { action, propagation: f.propagation } } : { errors: [`type the workload's name (${f.name}) to confirm`] };
  if (action === 'labels' || action === 'annotations') {
    const p = parseEditLines(f.lines, { removals: true, what: action === 'labels' ? 'label' : 'annotation' });
    return p.errors.length ? { errors: p.errors } : { spec: { action, role: f.role || undefined, set: p.set } };
  }
  if (!f.role || !f.container) return { errors: ['choose a role and a container'] };
  if (action === 'image') return f.image.trim() ? { spec: { action, role: f.role, container: f.container, image: f.image.trim() } } : { errors: ['give the new image'] };
  if (action === 'env') {
    const p = parseEditLines(f.lines, { removals: true, what: 'variable' });
    return p.errors.length ? { errors: p.errors } : { spec: { action, role: f.role, container: f.container, set: p.set } };
  }
  const req = f.requests.trim() ? parseEditLines(f.requests, { removals: true, what: 'request' }) : { set: {}, errors: [] };
  const lim = f.limits.trim() ? parseEditLines(f.limits, { removals: true, what: 'limit' }) : { set: {}, errors: [] };
  const errors = [...req.errors.map((e) => `requests ${e}`), ...lim.errors.map((e) => `limits ${e}`)];
  if (!f.requests.trim() && !f.limits.trim()) errors.push('give requests or limits');
  return errors.length ? { errors } : { spec: { action: 'resources', role: f.role, container: f.container, requests: req.set, limits: lim.set } };
}

interface FormState {
  name: string;
  role: string;
  container: string;
  lines: string;
  image: string;
  requests: string;
  limits: string;
  propagation: 'Background' | 'Foreground' | 'Orphan';
  confirm: string;
}

const RESULT_TEXT: Partial<Record<ActionAnswer['result'], string>> = {
  'dry-run': 'The API server accepted it (server dry run: nothing was changed yet).',
  unchanged: 'Nothing to change.',
  applied: 'Done.',
};

/**
 * One action on a workload: its form, the preview (the diff of the root object and the API server's
 * dry run, as you), then Apply — sent with the version you previewed, so a workload that changed
 * meanwhile is refused as "changed since you looked" and the new diff is shown instead.
 */
export function ActionDialog({ action, offer, api, kind, name, onClose, onApplied }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const templateAction = !['suspend', 'resume', 'delete'].includes(action);
  const firstRole = offer.roles[0];
  const [f, setF] = useState<FormState>({ name, role: action === 'labels' || action === 'annotations' ? '' : (firstRole?.name ?? ''), container: firstRole?.containers.find((c) => !c.init)?.name ?? '', lines: '', image: '', requests: '', limits: '', propagation: 'Background', confirm: '' });
  const [errors, setErrors] = useState<string[]>([]);
  const [preview, setPreview] = useState<ActionAnswer | null>(null);
  const [outcome, setOutcome] = useState<ActionAnswer | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);

  const change = (patch: Partial<FormState>) => {
    setF((x) => {
      const next = { ...x, ...patch };
      if (patch.role !== undefined) next.container = offer.roles.find((r) => r.name === patch.role)?.containers.find((c) => !c.init)?.name ?? '';
      return next;
    });
    setPreview(null);
    setOutcome(null);
  };

  async function run(mode: 'preview' | 'apply') {
    const s = specOf(action, f, offer);
    if ('errors' in s) {
      setErrors(s.errors);
      return;
    }
    setErrors([]);
    setBusy(true);
    try {
      const answer = await postAction(api, { mode, actions: [s.spec], resourceVersion: mode === 'apply' ? preview?.plan?.resourceVersion : undefined, fingerprint: mode === 'apply' ? preview?.plan?.fingerprint : undefined });
      if (mode === 'preview') {
        setPreview(answer);
        setOutcome(null);
      } else {
        setOutcome(answer);
        if (answer.result === 'applied') onApplied();
        // The workload moved on: show what the change would do to it now; Apply again sends the new version.
        if (answer.result === 'conflict') setPreview(await postAction(api, { mode: 'preview', actions: [s.spec] }));
      }
    } catch (e) {
      setOutcome({ plan: null, result: 'refused', message: e instanceof Error ? e.message : String(e), diff: '' });
    } finally {
      setBusy(false);
    }
  }

  const role = offer.roles.find((r) => r.name === f.role);
  const canApply = preview !== null && (preview.result === 'dry-run') && !busy && outcome?.result !== 'applied';
  const title = `${ACTION_LABEL[action].replace('…', '')} ${kind} ${name}`;
  const shown = outcome ?? preview;
  const failed = shown && !['dry-run', 'applied', 'unchanged', 'planned'].includes(shown.result);

  return (
    <dialog ref={ref} onClose={onClose} aria-labelledby="action-title" className="w-[min(760px,95vw)] rounded-lg border border-slate-300 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-black/40 dark:border-slate-700 dark:bg-slate-950 dark:text-slate-100" data-testid="action-dialog">
      <form method="dialog" className="flex flex-col gap-3 p-4" onSubmit={(e) => { e.preventDefault(); void run('preview'); }}>
        <h2 id="action-title" className="text-base font-semibold">{title}</h2>
        <p className="text-xs text-slate-600 dark:text-slate-400">As {offer.user}. Preview first: the diff of the {kind}, checked by the API server without changing anything.</p>
        {templateAction && (
          <div className="grid gap-2 sm:grid-cols-2">
            <label className="text-sm">
              Role
              <select className={field} value={f.role} onChange={(e) => change({ role: e.target.value })}>
                {(action === 'labels' || action === 'annotations') && <option value="">every role</option>}
                {offer.roles.map((r) => <option key={r.name} value={r.name}>{r.name}</option>)}
              </select>
            </label>
            {action !== 'labels' && action !== 'annotations' && (
              <label className="text-sm">
                Container
                <select className={field} value={f.container} onChange={(e) => change({ container: e.target.value })}>
                  {(role?.containers ?? []).map((c) => <option key={c.name} value={c.name}>{c.name}{c.init ? ' (init)' : ''}</option>)}
                </select>
              </label>
            )}
          </div>
        )}
        {(action === 'labels' || action === 'annotations' || action === 'env') && (
          <label className="text-sm">
            {action === 'env' ? 'Variables' : action === 'labels' ? 'Labels' : 'Annotations'} on the pod templates of {f.role ? `role ${f.role}` : 'every role'} (one per line: <code>key=value</code> sets, <code>key-</code> removes)
            <textarea className={`${field} h-24 font-mono`} value={f.lines} onChange={(e) => change({ lines: e.target.value })} data-testid="action-lines" />
          </label>
        )}
        {action === 'image' && (
          <label className="text-sm">
            New image
            <input className={`${field} font-mono`} value={f.image} onChange={(e) => change({ image: e.target.value })} placeholder="registry/name:tag" data-testid="action-image" />
          </label>
        )}
        {action === 'resources' && (
          <div className="grid gap-2 sm:grid-cols-2">
            <label className="text-sm">
              Requests (<code>cpu=2</code>, <code>memory=8Gi</code>, <code>name-</code> removes)
              <textarea className={`${field} h-20 font-mono`} value={f.requests} onChange={(e) => change({ requests: e.target.value })} data-testid="action-requests" />
            </label>
            <label className="text-sm">
              Limits (<code>nvidia.com/gpu=2</code>)
              <textarea className={`${field} h-20 font-mono`} value={f.limits} onChange={(e) => change({ limits: e.target.value })} data-testid="action-limits" />
            </label>
          </div>
        )}
        {action === 'delete' && (
          <>
            <fieldset className="text-sm">
              <legend className="font-medium">What happens to what it owns</legend>
              {(['Background', 'Foreground', 'Orphan'] as const).map((p) => (
                <label key={p} className="mr-4 inline-flex items-center gap-1">
                  <input type="radio" name="propagation" checked={f.propagation === p} onChange={() => change({ propagation: p })} />
                  {p === 'Background' ? 'deleted after it (background)' : p === 'Foreground' ? 'deleted before it (foreground)' : 'left running (orphan)'}
                </label>
              ))}
            </fieldset>
            <label className="text-sm">
              Type <b>{name}</b> to confirm
              <input className={`${field} font-mono`} value={f.confirm} onChange={(e) => change({ confirm: e.target.value })} data-testid="action-confirm" autoComplete="off" />
            </label>
          </>
        )}
        {errors.length > 0 && (
          <ul role="alert" className="list-disc rounded border border-rose-300 bg-rose-50 py-1 pl-6 pr-2 text-sm text-rose-900 dark:border-rose-800 dark:bg-rose-950 dark:text-rose-200">
            {errors.map((e) => <li key={e}>{e}</li>)}
          </ul>
        )}
        {preview?.plan && (
          <section aria-label="Preview" className="flex flex-col gap-2" data-testid="action-preview">
            <p className="text-sm font-medium" data-testid="action-summary">{preview.plan.summary}</p>
            {preview.plan.delete && (
              <p className="text-sm">
                Deletes {kind} {name}
                {preview.plan.delete.dependents.length > 0 && preview.plan.delete.propagationPolicy !== 'Orphan' ? ` and ${preview.plan.delete.dependents.map((d) => `${d.count} ${d.kind}${d.count === 1 ? '' : 's'}`).join(', ')}` : ''}
                {preview.plan.delete.propagationPolicy === 'Orphan' && preview.plan.delete.dependents.length > 0 ? `; ${preview.plan.delete.dependents.map((d) => `${d.count} ${d.kind}${d.count === 1 ? '' : 's'}`).join(', ')} keep running` : ''}.
              </p>
            )}
            <DiffView diff={preview.diff || preview.plan.diff} label={`Diff of ${kind} ${name}`} />
          </section>
        )}
        {shown && (
          <p role={failed ? 'alert' : 'status'} className={`rounded px-2 py-1 text-sm ${failed ? 'border border-rose-300 bg-rose-50 text-rose-900 dark:border-rose-800 dark:bg-rose-950 dark:text-rose-200' : 'border border-emerald-300 bg-emerald-50 text-emerald-900 dark:border-emerald-800 dark:bg-emerald-950 dark:text-emerald-200'}`} data-testid="action-result" data-result={shown.result}>
            {shown.result === 'conflict' ? `${shown.message} The preview above is the workload as it is now.` : (RESULT_TEXT[shown.result] && shown.result !== 'applied' ? `${RESULT_TEXT[shown.result]} ` : '') + shown.message}
          </p>
        )}
        <div className="flex justify-end gap-2">
          <button type="button" className={`${button} border border-slate-300 dark:border-slate-700`} onClick={() => ref.current?.close()}>
            {outcome?.result === 'applied' ? 'Close' : 'Cancel'}
          </button>
          <button type="submit" className={`${button} border border-sky-600 text-sky-800 dark:text-sky-300`} disabled={busy}>
            Preview
          </button>
          <button type="button" className={`${button} ${action === 'delete' ? 'bg-rose-700' : 'bg-sky-700'} text-white`} disabled={!canApply} onClick={() => void run('apply')} data-testid="action-apply">
            {action === 'delete' ? 'Delete' : 'Apply'}
          </button>
        </div>
      </form>
    </dialog>
  );
}
