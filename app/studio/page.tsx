import { Studio } from '@/components/studio/Studio.tsx';
import type { SearchParams } from '../search-params.ts';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Studio · workload-map' };

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
const many = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/**
 * The definition studio. `?definition=NAME&source=catalog|cluster[&cluster=C]` edits a copy of a
 * definition, `?draft=ROW` drafts one from a workload no definition describes, `?row=ROW` (repeatable)
 * picks the objects to try it on.
 */
export default async function StudioPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const q = await searchParams;
  const name = one(q.definition);
  const start = {
    blank: one(q.blank) === '1',
    definition: name ? { name, source: one(q.source) ?? 'catalog', cluster: one(q.cluster) } : undefined,
    draft: one(q.draft),
    rows: many(q.row),
  };
  return (
    <main className="min-h-0 flex-1 overflow-auto px-4 py-3">
      <Studio start={start} />
    </main>
  );
}
