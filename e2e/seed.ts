/** Workloads of known shape that the browser tests create in the simulated cluster (idempotent). */
import { createJobSet, ensureGpuNodes, hooks } from './sim.ts';
import type { WorkloadRow } from '../server/workloads/row.ts';

export const NS = 'e2e';

/** name → roles; GPUs per pod as given. */
export const SEEDED = {
  'e2e-train': [
    { name: 'leader', replicas: 1, gpus: 4 },
    { name: 'worker', replicas: 2, gpus: 4 },
  ],
  'e2e-small': [{ name: 'worker', replicas: 1, gpus: 1 }],
  'e2e-big': [{ name: 'worker', replicas: 2, gpus: 8 }],
  'e2e-mid': [
    { name: 'leader', replicas: 1, gpus: 0 },
    { name: 'worker', replicas: 20, gpus: 0 },
  ],
  'e2e-wide': [
    { name: 'leader', replicas: 1, gpus: 0 },
    { name: 'worker', replicas: 1000, gpus: 0 },
  ],
};

export async function apiRows(baseURL: string, query = ''): Promise<{ total: number; rows: WorkloadRow[] }> {
  const res = await fetch(`${baseURL}/api/workloads?limit=50000${query ? `&${query}` : ''}`);
  if (!res.ok) throw new Error(`GET /api/workloads: ${res.status}`);
  return (await res.json()) as { total: number; rows: WorkloadRow[] };
}

let seeded: Promise<void> | null = null;

export function seed(baseURL: string): Promise<void> {
  seeded ??= (async () => {
    const hook = hooks(baseURL);
    await ensureGpuNodes(hook, 6, 8);
    for (const [name, roles] of Object.entries(SEEDED)) await createJobSet(hook, NS, name, roles);
    // Wait until the server has resolved all of them, the 1,000-pod one included.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { rows } = await apiRows(baseURL, `namespace=${NS}`);
      const wide = rows.find((r) => r.name === 'e2e-wide');
      if (Object.keys(SEEDED).every((n) => rows.some((r) => r.name === n)) && wide && wide.pods.total >= 1001) return;
      if (Date.now() > deadline) throw new Error(`seeded workloads did not appear: ${rows.map((r) => `${r.name}(${r.pods.total} pods)`).join(', ')}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  })();
  return seeded;
}
