import { WorkloadsView } from '@/components/workloads/WorkloadsView.tsx';
import { queryString, type SearchParams } from './search-params.ts';

export const dynamic = 'force-dynamic';

/** The workloads table. The view (filters, sort) comes from the URL so that a link reproduces it. */
export default async function WorkloadsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const qs = queryString(await searchParams);
  return (
    <main className="flex min-h-0 flex-1 flex-col px-4 py-3">
      <h1 className="sr-only">Workloads</h1>
      <WorkloadsView initialQuery={qs} />
    </main>
  );
}
