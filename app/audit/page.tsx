import { AuditTable } from '@/components/audit/AuditTable.tsx';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Audit · workload-map' };

/** Recent actions: every write attempt from the dashboard and its API, accepted or refused. */
export default function AuditPage() {
  return (
    <main className="min-h-0 flex-1 overflow-auto px-4 py-3">
      <h1 className="mb-2 text-lg font-semibold">Recent actions</h1>
      <AuditTable />
    </main>
  );
}
