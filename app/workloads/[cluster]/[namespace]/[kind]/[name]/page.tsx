import { WorkloadDetail } from '@/components/workload/WorkloadDetail.tsx';
import { decodeSegment } from '@/components/workloads/workload-href.ts';

export const dynamic = 'force-dynamic';

interface Params {
  params: Promise<{ cluster: string; namespace: string; kind: string; name: string }>;
}

export async function generateMetadata({ params }: Params) {
  const p = await params;
  return { title: `${decodeSegment(p.kind)} ${decodeSegment(p.name)} · workload-map` };
}

/** One workload: its structure graph and panels, live. Namespace `_` means cluster-scoped. */
export default async function WorkloadPage({ params }: Params) {
  const p = await params;
  const k = { cluster: decodeSegment(p.cluster), namespace: decodeSegment(p.namespace), kind: decodeSegment(p.kind), name: decodeSegment(p.name) };
  return (
    <main className="min-h-0 flex-1 overflow-auto px-4 py-3">
      <WorkloadDetail k={k} />
    </main>
  );
}
