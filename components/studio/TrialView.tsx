'use client';

import type { TrialObjectResult } from '../../contract/index.ts';
import { formatGpus } from '../../lib/format/gpus.ts';
import { StructureGraph } from '../graph/StructureGraph.tsx';
import { StatusBadge } from '../ui/StatusBadge.tsx';

const th = 'px-2 py-1 text-left text-xs font-medium uppercase text-slate-500 dark:text-slate-400';
const td = 'px-2 py-1 align-top';
const sum = (m: Record<string, number>) => Object.values(m).reduce((a, b) => a + b, 0);

/**
 * One live object under the trial definition: its tree (graph, status with the rule that matched,
 * GPUs, gangs, errors) beside kubectl's raw view, with every difference between them called out.
 */
export function TrialView({ r }: { r: TrialObjectResult }) {
  const t = r.tree;
  const label = `${r.row.kind} ${r.row.namespace ? `${r.row.namespace}/` : ''}${r.row.name}`;
  return (
    <section aria-label={`Trial on ${label}`} className="flex flex-col gap-2 rounded-lg border border-slate-200 p-3 dark:border-slate-800" data-testid="trial-result">
      <header className="flex flex-wrap items-center gap-2">
        <h3 className="text-sm font-semibold">{label}</h3>
        <span className="text-xs text-slate-500 dark:text-slate-400">cluster {r.row.cluster}</span>
        {t && <StatusBadge status={t.status.matched[0] ?? 'Undefined'} reason={t.status.phase ?? null} others={t.status.matched} />}
        <span className={`ml-auto rounded px-1.5 py-0.5 text-xs font-medium ${r.differences.length ? 'bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200' : 'bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200'}`} data-testid="trial-verdict">
          {r.differences.length ? `${r.differences.length} difference${r.differences.length === 1 ? '' : 's'} from kubectl` : 'agrees with kubectl'}
        </span>
      </header>
      {r.differences.length > 0 && (
        <ul className="list-disc pl-5 text-sm text-amber-900 dark:text-amber-200" data-testid="trial-differences">
          {r.differences.map((d, i) => (
            <li key={i}>
              <span className="font-mono text-xs">{d.code}</span> {d.message}
            </li>
          ))}
        </ul>
      )}
      {t && t.errors.length > 0 && (
        <ul role="alert" className="list-disc pl-5 text-sm text-rose-900 dark:text-rose-200">
          {t.errors.map((e, i) => <li key={i}>{e.path ? <span className="font-mono text-xs">{e.path}: </span> : null}{e.message}</li>)}
        </ul>
      )}
      {t && t.warnings.length > 0 && (
        <ul className="list-disc pl-5 text-sm text-amber-900 dark:text-amber-200" data-testid="trial-warnings">
          {t.warnings.map((w, i) => <li key={i}>warning: {w.path ? <span className="font-mono text-xs">{w.path}: </span> : null}{w.message}</li>)}
        </ul>
      )}
      {t && (
        <p className="text-xs text-slate-600 dark:text-slate-400" data-testid="trial-status">
          Status: {t.status.matched.length ? t.status.matched.join(', ') : 'no mapping matched'}
          {t.status.phase ? ` (native: ${t.status.phase})` : ''}
          {t.status.conditions.length ? ` · conditions ${t.status.conditions.map((c) => `${c.type}=${c.status}`).join(', ')}` : ''}
        </p>
      )}
      <div className="grid gap-3 xl:grid-cols-2">
        <div>
          <h4 className="mb-1 text-xs font-semibold uppercase text-slate-500 dark:text-slate-400">With this definition</h4>
          {t ? (
            <>
              <table className="w-full text-sm" data-testid="trial-roles">
                <thead>
                  <tr>
                    <th className={th}>Role</th>
                    <th className={th}>Pods live / desired</th>
                    <th className={th}>Ready</th>
                    <th className={th}>GPUs per pod</th>
                  </tr>
                </thead>
                <tbody>
                  {t.roles.map((role) => (
                    <tr key={role.name} className="border-t border-slate-100 dark:border-slate-800">
                      <td className={td}>{role.name}</td>
                      <td className={`${td} tabular-nums ${role.livePods !== role.desiredPods ? 'text-amber-800 dark:text-amber-300' : ''}`}>
                        {role.livePods} / {role.desiredPods}
                      </td>
                      <td className={`${td} tabular-nums`}>{role.readyPods}</td>
                      <td className={`${td} tabular-nums`}>{formatGpus(sum(role.gpusPerPod))}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <p className="mt-1 text-sm tabular-nums" data-testid="trial-gpus">
                GPUs desired <b>{formatGpus(t.gpus.desired.total)}</b> · requested <b>{formatGpus(t.gpus.requested.total)}</b> · allocated <b>{formatGpus(t.gpus.allocated.total)}</b>
                {t.unmatchedPods.length > 0 && <> · <span className="text-amber-800 dark:text-amber-300">{t.unmatchedPods.length} pods no role claims</span></>}
                {t.gang.length > 0 ? ` · gang: ${t.gang.length} PodGroup${t.gang.length === 1 ? '' : 's'} (${t.gang.map((g) => `min ${g.minMember}`).join(', ')})` : ''}
              </p>
              <StructureGraph tree={t} status={t.status.matched[0] ?? 'Undefined'} usage={null} label={`Structure of ${label} with this definition`} className="mt-2 h-[320px] w-full" />
            </>
          ) : (
            <p className="text-sm">No tree: the definition has errors.</p>
          )}
        </div>
        <div>
          <h4 className="mb-1 text-xs font-semibold uppercase text-slate-500 dark:text-slate-400">What kubectl shows</h4>
          <p className="text-sm tabular-nums" data-testid="raw-gpus">
            {r.raw.pods.length} pods · GPUs requested <b>{formatGpus(sum(r.raw.gpus.requested))}</b> · allocated <b>{formatGpus(sum(r.raw.gpus.allocated))}</b>
          </p>
          <div tabIndex={0} aria-label={`Pods of ${label} as kubectl shows them`} className="max-h-[360px] overflow-auto">
            <table className="w-full text-sm" data-testid="raw-pods">
              <thead>
                <tr>
                  <th className={th}>Pod</th>
                  <th className={th}>Owner</th>
                  <th className={th}>Phase</th>
                  <th className={th}>GPUs</th>
                </tr>
              </thead>
              <tbody>
                {r.raw.pods.slice(0, 200).map((p) => (
                  <tr key={p.name} className="border-t border-slate-100 dark:border-slate-800">
                    <td className={`${td} font-mono text-xs`}>{p.name}</td>
                    <td className={`${td} text-xs`}>{p.owner ?? '—'}</td>
                    <td className={td}>{p.phase}</td>
                    <td className={`${td} tabular-nums`}>{formatGpus(sum(p.gpus))}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {r.raw.pods.length > 200 && <p className="text-xs text-slate-500 dark:text-slate-400">and {r.raw.pods.length - 200} more pods</p>}
          </div>
        </div>
      </div>
    </section>
  );
}
