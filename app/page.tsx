import { WorkloadsView } from '@/components/workloads/WorkloadsView.tsx';

export const dynamic = 'force-dynamic';

type SearchParams = Record<string, string | string[] | undefined>;

function queryString(sp: SearchParams): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(sp)) {
    if (Array.isArray(v)) for (const x of v) p.append(k, x);
    else if (v !== undefined) p.append(k, v);
  }
  return p.toString();
}

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
