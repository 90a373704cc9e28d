/** Choosing the workload root among a set of objects, and the definition that serves it. */
import type { CompiledDefinition } from './definition/compile.ts';
import { apiGroupOf, meta, type KubeObject } from './k8s.ts';
import { ownedClosure } from './resolve/ownership.ts';

export function definitionForRoot(defs: readonly CompiledDefinition[], obj: KubeObject): CompiledDefinition | undefined {
  const group = apiGroupOf(obj.apiVersion);
  const version = typeof obj.apiVersion === 'string' ? obj.apiVersion.split('/').pop() : '';
  const sameKind = defs.filter((d) => d.rootKind.kind === obj.kind && d.rootKind.group === group);
  return sameKind.find((d) => d.rootKind.version === version) ?? sameKind[0];
}

/**
 * The top-level object: the one a definition serves that owns the most of the others (a JobSet over
 * its Jobs, although a Job definition also exists); objects owned by another object in the set come last.
 */
export function pickRoot(objects: readonly KubeObject[], defs: readonly CompiledDefinition[]): KubeObject | undefined {
  const uids = new Set(objects.map((o) => meta(o).uid).filter((u): u is string => typeof u === 'string' && u !== ''));
  const ownedHere = (o: KubeObject) => (meta(o).ownerReferences ?? []).some((r) => r && typeof r.uid === 'string' && uids.has(r.uid));
  const served = objects.filter((o) => definitionForRoot(defs, o));
  const candidates = served.filter((o) => !ownedHere(o));
  const pool = candidates.length > 0 ? candidates : served;
  let best: KubeObject | undefined;
  let bestCount = -1;
  for (const o of pool) {
    const n = ownedClosure(o, objects).length;
    if (n > bestCount) {
      best = o;
      bestCount = n;
    }
  }
  return best;
}
