import { NodesView } from '@/components/nodes/NodesView.tsx';
import { queryString, type SearchParams } from '../search-params.ts';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Nodes · workload-map' };

/** GPU nodes grouped by product and pool: capacity, allocatable, allocated, free, MIG, taints, and the workloads holding them. */
export default async function NodesPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const qs = queryString(await searchParams);
  return (
    <main className="min-h-0 flex-1 overflow-auto px-4 py-3">
      <NodesView initialQuery={qs} />
    </main>
  );
}
