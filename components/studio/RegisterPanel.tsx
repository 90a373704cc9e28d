'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { ClusterInfo, RegisterAnswerView, RegistryView } from '../../contract/index.ts';
import { DiffView } from '../actions/DiffView.tsx';
import { fetchApiJson } from '../workload/fetch-json.ts';

async function register(body: { cluster: string; text: string; mode: 'preview' | 'apply'; installCrd?: boolean; seenResourceVersion?: string }): Promise<RegisterAnswerView> {
  const res = await fetch('/api/studio/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), cache: 'no-store' });
  const a = (await res.json().catch(() => null)) as (RegisterAnswerView & { error?: { message?: string } }) | null;
  if (!a) throw new Error(`HTTP ${res.status}`);
  if (a.error) return { crd: { state: 'unknown', servedVersions: [], summary: '' }, crdInstall: null, plan: null, result: 'invalid', message: a.error.message ?? `HTTP ${res.status}`, notes: [] };
  return a;
}

const OK = new Set(['dry-run', 'applied', 'unchanged', 'planned']);
const btn = 'rounded-md px-3 py-1.5 text-sm font-medium disabled:cursor-not-allowed disabled:opacity-50';

/**
 * Registering the definition in a cluster as a Karta, through the write path: the cluster's CRD
 * first (installed when missing, if you may), a preview with the diff and the server's dry run, then
 * the write with the version previewed. The row switches to the new definition once the server sees it.
 */
export function RegisterPanel({ text, valid, name }: { text: string; valid: boolean; name: string | null }) {
  const qc = useQueryClient();
  const clusters = useQuery({ queryKey: ['clusters'], queryFn: () => fetchApiJson<ClusterInfo[]>('/api/clusters') });
  const [cluster, setCluster] = useState<string>('');
  const chosen = cluster || clusters.data?.[0]?.name || '';
  const registry = useQuery({ queryKey: ['registry', chosen], queryFn: () => fetchApiJson<RegistryView>(`/api/studio/registry?cluster=${encodeURIComponent(chosen)}`), enabled: chosen !== '' });
  const [installCrd, setInstallCrd] = useState(false);
  const [preview, setPreview] = useState<{ text: string; answer: RegisterAnswerView } | null>(null);
  const [outcome, setOutcome] = useState<RegisterAnswerView | null>(null);
  const [busy, setBusy] = useState(false);
  const crd = registry.data?.crd;
  const needsCrd = crd?.state === 'missing' || crd?.state === 'older';
  const stalePreview = preview !== null && preview.text !== text;

  async function run(mode: 'preview' | 'apply') {
    setBusy(true);
    try {
      const a = await register({ cluster: chosen, text, mode, installCrd: needsCrd ? installCrd : undefined, seenResourceVersion: mode === 'apply' ? (preview?.answer.plan?.resourceVersion ?? '') : undefined });
      if (mode === 'preview') {
        setPreview({ text, answer: a });
        setOutcome(null);
      } else {
        setOutcome(a);
        if (a.result === 'applied') {
          void qc.invalidateQueries({ queryKey: ['registry', chosen] });
          void qc.invalidateQueries({ queryKey: ['studio-trial'] });
        }
        if (a.result === 'conflict') setPreview({ text, answer: await register({ cluster: chosen, text, mode: 'preview', installCrd: needsCrd ? installCrd : undefined }) });
      }
    } catch (e) {
      setOutcome({ crd: { state: 'unknown', servedVersions: [], summary: '' }, crdInstall: null, plan: null, result: 'refused', message: e instanceof Error ? e.message : String(e), notes: [] });
    } finally {
      setBusy(false);
    }
  }

  const shown = outcome ?? preview?.answer ?? null;
  const canApply = valid && preview !== null && !stalePreview && preview.answer.result === 'dry-run' && !busy && outcome?.result !== 'applied';
  return (
    <section aria-labelledby="register-title" className="flex flex-col gap-2 rounded border border-slate-200 p-2 text-sm dark:border-slate-800" data-testid="studio-register">
      <h2 id="register-title" className="font-semibold">Register{name ? ` ${name}` : ''} in a cluster</h2>
      <div className="flex flex-wrap items-center gap-2">
        <label className="inline-flex items-center gap-1">
          Cluster
          <select className="rounded border border-slate-300 bg-white px-1 py-0.5 dark:border-slate-700 dark:bg-slate-900" value={chosen} onChange={(e) => { setCluster(e.target.value); setPreview(null); setOutcome(null); }}>
            {clusters.data?.map((c) => <option key={c.name} value={c.name}>{c.name}</option>)}
          </select>
        </label>
        {crd && (
          <span className={crd.state === 'current' ? 'text-slate-600 dark:text-slate-400' : 'text-amber-800 dark:text-amber-300'} data-testid="crd-state">
            kartas.run.ai CRD: {crd.state}{crd.servedVersions.length ? ` (serves ${crd.servedVersions.join(', ')})` : ''}
          </span>
        )}
      </div>
      {crd && crd.state !== 'current' && <p className="text-xs text-slate-600 dark:text-slate-400">{crd.summary}</p>}
      {needsCrd && (
        <label className="inline-flex items-center gap-1" title={registry.data?.may.installCrd.allowed ? undefined : `You ${registry.data?.may.installCrd.reason ?? ''}`}>
          <input type="checkbox" checked={installCrd} disabled={!registry.data?.may.installCrd.allowed} onChange={(e) => { setInstallCrd(e.target.checked); setPreview(null); }} data-testid="install-crd" />
          {crd?.state === 'missing' ? 'Install' : 'Upgrade'} the kartas.run.ai CRD that ships with workload-map first
          {registry.data && !registry.data.may.installCrd.allowed && <span className="text-xs text-amber-800 dark:text-amber-300"> (you {registry.data.may.installCrd.reason})</span>}
        </label>
      )}
      {!valid && <p className="text-slate-600 dark:text-slate-400">Fix the definition&apos;s errors to register it.</p>}
      {registry.data && !registry.data.may.register.allowed && <p className="text-amber-800 dark:text-amber-300" data-testid="register-not-allowed">You {registry.data.may.register.reason}: the API server will refuse the registration.</p>}
      {shown?.crdInstall && (
        <div>
          <p className="font-medium">{shown.crdInstall.summary}</p>
          <p className="text-xs">{shown.crdInstall.message}</p>
        </div>
      )}
      {preview?.answer.plan && (
        <div className="flex flex-col gap-1" data-testid="register-preview">
          <p className="font-medium">{preview.answer.plan.summary}</p>
          {preview.answer.plan.warnings.map((w) => <p key={w} className="text-xs text-amber-800 dark:text-amber-300">{w}</p>)}
          <DiffView diff={preview.answer.plan.diff} label={`Diff of Karta ${preview.answer.plan.name}`} />
        </div>
      )}
      {stalePreview && <p className="text-xs text-amber-800 dark:text-amber-300">The text changed since this preview: preview again.</p>}
      {shown && (
        <p role={OK.has(shown.result) ? 'status' : 'alert'} className={`rounded px-2 py-1 ${OK.has(shown.result) ? 'border border-emerald-300 bg-emerald-50 text-emerald-900 dark:border-emerald-800 dark:bg-emerald-950 dark:text-emerald-200' : 'border border-rose-300 bg-rose-50 text-rose-900 dark:border-rose-800 dark:bg-rose-950 dark:text-rose-200'}`} data-testid="register-result" data-result={shown.result}>
          {shown.message}
          {shown.notes.map((n) => <span key={n} className="block text-xs">{n}</span>)}
        </p>
      )}
      <div className="flex gap-2">
        <button type="button" className={`${btn} border border-sky-600 text-sky-800 dark:text-sky-300`} disabled={!valid || busy || chosen === ''} onClick={() => void run('preview')} data-testid="register-preview-button">
          Preview registration
        </button>
        <button type="button" className={`${btn} bg-sky-700 text-white`} disabled={!canApply} onClick={() => void run('apply')} data-testid="register-apply">
          Register
        </button>
      </div>
      {registry.data && registry.data.labelMismatches.length > 0 && (
        <details className="text-xs">
          <summary className="cursor-pointer">{registry.data.labelMismatches.length} Karta(s) in {chosen} whose run.ai/karta-* labels do not match their root kind</summary>
          <ul className="list-disc pl-5">{registry.data.labelMismatches.map((m) => <li key={m.name}>{m.name}: {m.message}</li>)}</ul>
        </details>
      )}
    </section>
  );
}
