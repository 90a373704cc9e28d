import { DefinitionDetail } from '@/components/definitions/DefinitionDetail.tsx';
import { decodeSegment } from '@/components/workloads/workload-href.ts';
import type { SearchParams } from '../../search-params.ts';

export const dynamic = 'force-dynamic';

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? null;

export async function generateMetadata({ params }: { params: Promise<{ name: string }> }) {
  return { title: `${decodeSegment((await params).name)} · Definitions · workload-map` };
}

/** One definition: its YAML and its components as a small graph. */
export default async function DefinitionPage({ params, searchParams }: { params: Promise<{ name: string }>; searchParams: Promise<SearchParams> }) {
  const name = decodeSegment((await params).name);
  const sp = await searchParams;
  return (
    <main className="min-h-0 flex-1 overflow-auto px-4 py-3">
      <DefinitionDetail name={name} source={one(sp.source)} cluster={one(sp.cluster)} />
    </main>
  );
}
