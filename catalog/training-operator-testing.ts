/**
 * Helpers for the training-operator v1 catalog tests (TFJob, XGBoostJob, JAXJob, PaddleJob): resolve a
 * fixture edited in memory (a variant the operator also produces, e.g. a job without its lead type), and
 * the gang digest they share.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pickRoot, resolveWorkload, type KubeObject, type WorkloadTree } from '../server/engine/index.ts';
import { loadCatalogFile } from '../server/catalog/index.ts';
import { fixtureObjects } from './testing.ts';

const here = fileURLToPath(new URL('.', import.meta.url));

/** Resolves a fixture's objects after `edit` changed (a deep copy of) them. */
export function resolveEdited(slug: string, state: string, edit: (objects: KubeObject[]) => KubeObject[]): WorkloadTree {
  const compiled = loadCatalogFile(join(here, `${slug}.yaml`))[0]?.compiled;
  if (!compiled) throw new Error(`catalog/${slug}.yaml is invalid`);
  const objects = edit(structuredClone(fixtureObjects(slug, state)));
  const root = pickRoot(objects, [compiled]);
  if (!root) throw new Error(`no root in the edited ${slug}/${state}`);
  return resolveWorkload(compiled, root, objects);
}

/** The gang PodGroups of a tree, pods sorted. */
export function gangOf(tree: WorkloadTree): Array<{ name: string; minMember: number | null; pods: string[] }> {
  return tree.gang.map((g) => ({ name: g.name, minMember: g.minMember, pods: [...g.pods].sort() })).sort((a, b) => a.name.localeCompare(b.name));
}

export const isPod = (o: KubeObject): boolean => o.kind === 'Pod';
export const nameOf = (o: KubeObject): string | undefined => o.metadata?.name;
export const labelsOf = (o: KubeObject): Record<string, string> => ((o.metadata ??= {}).labels ??= {});
export function rename(o: KubeObject, name: string): void {
  (o.metadata ??= {}).name = name;
}
/** The replica specs map of a training job's spec. */
export const specsOf = (o: KubeObject, field: string): Record<string, unknown> => (o.spec as Record<string, Record<string, unknown>>)[field];
