/** Helpers for catalog tests: resolve a fixture with its catalog definition, and digest the tree. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocuments, pickRoot, resolveWorkload, type KubeObject, type WorkloadTree } from '../server/engine/index.ts';
import { loadCatalogFile } from '../server/catalog/index.ts';

const here = fileURLToPath(new URL('.', import.meta.url));

export function fixtureObjects(slug: string, state: string): KubeObject[] {
  const file = join(here, 'fixtures', slug, `${state}.yaml`);
  const { documents, errors } = parseDocuments(readFileSync(file, 'utf8'), file);
  if (errors.length > 0) throw new Error(errors.map((e) => e.message).join('\n'));
  return documents.map((d) => d.value as KubeObject);
}

/** Loads catalog/<slug>.yaml and catalog/fixtures/<slug>/<state>.yaml and resolves them. */
export function resolveFixture(slug: string, state: string): WorkloadTree {
  return resolveObjects(slug, fixtureObjects(slug, state), `catalog/fixtures/${slug}/${state}.yaml`);
}

/** Resolves objects (a fixture's, changed by a test) with catalog/<slug>.yaml. */
export function resolveObjects(slug: string, objects: KubeObject[], where = 'the objects'): WorkloadTree {
  const entries = loadCatalogFile(join(here, `${slug}.yaml`));
  const entry = entries[0];
  if (!entry?.compiled) throw new Error(`catalog/${slug}.yaml is invalid:\n${(entry?.errors ?? []).map((e) => e.message).join('\n')}`);
  const root = pickRoot(objects, [entry.compiled]);
  if (!root) throw new Error(`no ${entry.kind} in ${where}`);
  return resolveWorkload(entry.compiled, root, objects);
}

/** Resolves a fixture's objects after `edit` changed (a deep copy of) them: a variant the operator also produces. */
export function resolveEdited(slug: string, state: string, edit: (objects: KubeObject[]) => KubeObject[]): WorkloadTree {
  return resolveObjects(slug, edit(structuredClone(fixtureObjects(slug, state))), `the edited catalog/fixtures/${slug}/${state}.yaml`);
}

/** The gang PodGroups of a tree as the tree lists them, each with its pods sorted. */
export function gangsInTreeOrder(tree: WorkloadTree): Array<{ name: string; minMember: number | null; pods: string[] }> {
  return tree.gang.map((g) => ({ name: g.name, minMember: g.minMember, pods: [...g.pods].sort() }));
}

/** The gang PodGroups of a tree, pods sorted, PodGroups by name. */
export function gangOf(tree: WorkloadTree): Array<{ name: string; minMember: number | null; pods: string[] }> {
  return gangsInTreeOrder(tree).sort((a, b) => a.name.localeCompare(b.name));
}

export interface TreeDigest {
  status: string[];
  roles: Record<string, { desired: number | null; live: number; ready: number; gpusPerPod: Record<string, number> }>;
  pods: Record<string, string>;
  unmatched: string[];
  gpus: { desired: number; requested: number; allocated: number };
  errors: string[];
}

/** A compact, assertion-friendly digest of a tree. */
/** A devices' worth to 6 decimals: how the catalog tests write fractions of a GPU (`devices(3 / 7)`). */
export function devices(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

export function digest(tree: WorkloadTree): TreeDigest {
  return {
    status: tree.status.matched,
    roles: Object.fromEntries(tree.roles.map((r) => [r.name, { desired: r.desiredPods, live: r.livePods, ready: r.readyPods, gpusPerPod: r.gpusPerPod }])),
    pods: Object.fromEntries(tree.pods.map((p) => [p.name, `${p.component}/${p.instance ?? '?'}`])),
    unmatched: tree.unmatchedPods.map((p) => p.name),
    // Devices' worth: MIG slices are sevenths (or quarters) of a GPU; compared to 6 decimals.
    gpus: { desired: devices(tree.gpus.desired.total), requested: devices(tree.gpus.requested.total), allocated: devices(tree.gpus.allocated.total) },
    errors: tree.errors.map((e) => `${e.code}: ${e.message} @ ${e.path}`),
  };
}
