/** CustomResourceDefinition rules (pure): validation, the descriptor it serves, the status the server writes. */

import type { KubeObject } from '../store/object-store.ts';
import { invalid } from './status.ts';
import type { ApiError } from './status.ts';
import type { PrinterColumn, ResourceDescriptor } from './registry.ts';
import { sortVersions } from './registry.ts';

interface CrdVersion {
  name: string;
  served?: boolean;
  storage?: boolean;
  subresources?: { status?: unknown; scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string } };
  additionalPrinterColumns?: PrinterColumn[];
  selectableFields?: Array<{ jsonPath: string }>;
}

interface CrdSpec {
  group?: string;
  scope?: string;
  names?: { plural?: string; singular?: string; kind?: string; listKind?: string; shortNames?: string[]; categories?: string[] };
  versions?: CrdVersion[];
}

function specOf(crd: KubeObject): CrdSpec {
  return (crd.spec ?? {}) as CrdSpec;
}

/** The 422 the real server gives for a malformed CRD, or undefined when it is acceptable. */
export function validateCrd(crd: KubeObject): ApiError | undefined {
  const name = crd.metadata.name ?? '';
  const bad = (field: string, detail: string) => invalid('CustomResourceDefinition', 'apiextensions.k8s.io', name, field, detail);
  const spec = specOf(crd);
  const n = spec.names ?? {};
  if (!spec.group) return bad('spec.group', 'Required value');
  if (!n.plural) return bad('spec.names.plural', 'Required value');
  if (!n.kind) return bad('spec.names.kind', 'Required value');
  if (name !== `${n.plural}.${spec.group}`) return bad('metadata.name', `Invalid value: "${name}": must be spec.names.plural+"."+spec.group`);
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') return bad('spec.scope', `Unsupported value: "${spec.scope ?? ''}": supported values: "Cluster", "Namespaced"`);
  const versions = spec.versions ?? [];
  if (versions.length === 0) return bad('spec.versions', 'Invalid value: null: must have exactly one version marked as storage version');
  if (versions.filter((v) => v.storage).length !== 1) return bad('spec.versions', `Invalid value: ${JSON.stringify(versions.map((v) => v.name))}: must have exactly one version marked as storage version`);
  return undefined;
}

/** The resource a CRD serves; undefined when no version is served. */
export function descriptorFromCrd(crd: KubeObject): ResourceDescriptor | undefined {
  const spec = specOf(crd);
  const n = spec.names!;
  const served = (spec.versions ?? []).filter((v) => v.served !== false);
  if (served.length === 0) return undefined;
  // Like the real server, the preferred version of a CRD is the highest by version priority, not the storage one.
  const versions = sortVersions(served.map((v) => v.name));
  const columns: Record<string, PrinterColumn[]> = {};
  const selectable: Record<string, string[]> = {};
  const subs = new Set<string>();
  let scale: ResourceDescriptor['scale'];
  for (const v of served) {
    columns[v.name] = v.additionalPrinterColumns ?? [];
    selectable[v.name] = (v.selectableFields ?? []).map((f) => f.jsonPath);
    if (v.subresources?.status !== undefined) subs.add('status');
    if (v.subresources?.scale) {
      subs.add('scale');
      scale = v.subresources.scale;
    }
  }
  return {
    group: spec.group!,
    versions,
    kind: n.kind!,
    listKind: n.listKind ?? `${n.kind}List`,
    plural: n.plural!,
    singular: n.singular ?? n.kind!.toLowerCase(),
    namespaced: spec.scope !== 'Cluster',
    shortNames: n.shortNames ?? [],
    categories: n.categories ?? [],
    subresources: [...subs].sort(),
    builtin: false,
    allowUnconditionalUpdate: false,
    generation: true,
    columns,
    selectableFields: selectable,
    scale,
    crd: crd.metadata.name,
  };
}

/**
 * The status the naming and establishing controllers write: acceptedNames, NamesAccepted and
 * Established conditions, storedVersions. Transition times are kept when a condition does not change.
 */
export function crdStatus(crd: KubeObject, conflict: string | undefined, now: string): Record<string, unknown> {
  const spec = specOf(crd);
  const old = (crd.status ?? {}) as { conditions?: Array<Record<string, string>>; storedVersions?: string[] };
  const cond = (type: string, status: string, reason: string, message: string) => {
    const prev = old.conditions?.find((c) => c.type === type);
    return { type, status, lastTransitionTime: prev && prev.status === status ? prev.lastTransitionTime : now, reason, message };
  };
  const storage = (spec.versions ?? []).find((v) => v.storage)?.name;
  const stored = [...(old.storedVersions ?? [])];
  if (storage && !stored.includes(storage)) stored.push(storage);
  const names = { ...(spec.names ?? {}) } as Record<string, unknown>;
  if (!names.listKind && names.kind) names.listKind = `${String(names.kind)}List`;
  if (!names.singular && names.kind) names.singular = String(names.kind).toLowerCase();
  const conditions = conflict
    ? [cond('NamesAccepted', 'False', 'PluralConflict', conflict), cond('Established', 'False', 'NotAccepted', 'not all names are accepted')]
    : [cond('NamesAccepted', 'True', 'NoConflicts', 'no conflicts found'), cond('Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted')];
  return { conditions, acceptedNames: conflict ? {} : names, storedVersions: stored };
}
