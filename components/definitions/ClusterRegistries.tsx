'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import type { ClusterInfo, RegistryView } from '../../contract/index.ts';
import { fetchApiJson } from '../workload/fetch-json.ts';

const th = 'px-2 py-1 text-left text-xs font-medium uppercase text-slate-500 dark:text-slate-400';
const td = 'px-2 py-1 align-top';

function ClusterRegistry({ cluster }: { cluster: string }) {
  const q = useQuery({ queryKey: ['registry', cluster], queryFn: () => fetchApiJson<RegistryView>(`/api/studio/registry?cluster=${encodeURIComponent(cluster)}`), refetchInterval: 30_000 });
  if (q.isError) return <p role="alert" className="text-sm">Cluster {cluster}: {q.error.message}</p>;
  if (!q.data) return <p role="status" className="text-sm">Cluster {cluster}: reading…</p>;
  const r = q.data;
  const own = r.definitions.filter((d) => d.source === 'cluster');
  return (
    <section aria-labelledby={`reg-${cluster}`} className="rounded-lg border border-slate-200 p-3 dark:border-slate-800" data-testid="cluster-registry">
      <h3 id={`reg-${cluster}`} className="text-sm font-semibold">Cluster {cluster}</h3>
      <p className="text-sm" data-testid="registry-crd">
        kartas.run.ai CRD: <b>{r.crd.state}</b>
        {r.crd.servedVersions.length ? ` (serves ${r.crd.servedVersions.join(', ')})` : ''}
        {r.crd.state !== 'current' && <span className="block text-xs text-slate-600 dark:text-slate-400">{r.crd.summary}</span>}
      </p>
      {own.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">No definitions registered in this cluster: the catalog serves every kind. <Link className="text-sky-700 hover:underline dark:text-sky-400" href="/studio">Open the studio</Link> to register one.</p>
      ) : (
        <table className="mt-1 w-full text-sm">
          <thead>
            <tr>
              <th className={th}>Registered</th>
              <th className={th}>Root kind</th>
              <th className={th}>State</th>
              <th className={th}>Overrides</th>
              <th className={th}>Labels</th>
            </tr>
          </thead>
          <tbody>
            {own.map((d) => (
              <tr key={d.name} className="border-t border-slate-100 dark:border-slate-800">
                <td className={`${td} font-mono text-xs`}>{d.name} <span className="text-slate-500 dark:text-slate-400">({d.kind})</span></td>
                <td className={td}>{d.root}</td>
                <td className={td}>{d.state}{d.shadowedBy ? ` by ${d.shadowedBy}` : ''}</td>
                <td className={td}>{d.overrides.length ? `catalog ${d.overrides.join(', ')}` : '—'}</td>
                <td className={td}>{d.labels ?? 'ok'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {r.problems.map((p) => <p key={p} className="text-xs text-amber-800 dark:text-amber-300">{p}</p>)}
    </section>
  );
}

/** Per cluster: the Karta CRD installed, the definitions registered there, what they override, label mismatches. */
export function ClusterRegistries() {
  const clusters = useQuery({ queryKey: ['clusters'], queryFn: () => fetchApiJson<ClusterInfo[]>('/api/clusters') });
  return (
    <div className="mt-4 flex flex-col gap-2">
      <h2 className="text-base font-semibold">In each cluster</h2>
      {clusters.data?.map((c) => <ClusterRegistry key={c.name} cluster={c.name} />)}
    </div>
  );
}
