import { ClusterRegistries } from '@/components/definitions/ClusterRegistries.tsx';
import { DefinitionsList } from '@/components/definitions/DefinitionsList.tsx';

export const metadata = { title: 'Definitions · workload-map' };

/** Every definition (catalog and clusters), its validity and how many workloads it serves. */
export default function DefinitionsPage() {
  return (
    <main className="min-h-0 flex-1 overflow-auto px-4 py-3">
      <DefinitionsList />
      <ClusterRegistries />
    </main>
  );
}
