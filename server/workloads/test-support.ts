/** Test support: a workload index over the catalog, fed objects directly (no cluster), closed after each test. */
import { afterEach } from 'node:test';
import { loadCatalog } from '../catalog/index.ts';
import type { KubeObject } from '../engine/index.ts';
import { DefinitionSet } from './definitions.ts';
import { LiveWorkloads } from './live.ts';
import { WorkloadIndex } from './workload-index.ts';

const catalog = LiveWorkloads.catalogEntries(loadCatalog());
const open: WorkloadIndex[] = [];
afterEach(() => {
  for (const i of open.splice(0)) i.close();
});

/** An index of cluster `c1` holding `objects`, resolved. */
export function directIndex(objects: KubeObject[]): WorkloadIndex {
  const index = new WorkloadIndex(new DefinitionSet(catalog), { coalesceMs: 1e9, warmIntervalMs: 1e9, isSynced: () => true });
  open.push(index);
  index.upsertMany('c1', objects);
  index.flush();
  return index;
}
