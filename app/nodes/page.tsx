import { NodesView } from '@/components/nodes/NodesView.tsx';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Nodes · workload-map' };

type SearchParams = Record<string, string | string[] | undefined>;

function queryString(sp: SearchParams): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(sp)) {
    if (Array.isArray(v)) for (const x of v) p.append(k, x);
    else if (v !== undefined) p.append(k, v);
  }
  return p.toString();
}

/** GPU nodes grouped by product and pool: capacity, allocatable, allocated, free, MIG, taints, and the workloads holding them. */
export default async function NodesPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const qs = queryString(await searchParams);
  return (
    <main className="min-h-0 flex-1 overflow-auto px-4 py-3">
      <NodesView initialQuery={qs} />
    </main>
  );
}
