/**
 * What the resource handlers share: versions (what is stored, what goes out), lookups, the
 * resource-named errors of the real server, selectors and common query flags.
 */

import type { MemoryStore } from '../../store/memory-store.ts';
import { StoreError } from '../../store/object-store.ts';
import type { KubeObject } from '../../store/object-store.ts';
import { evaluateJsonPath } from '../jsonpath-lite.ts';
import type { ResourceDescriptor } from '../registry.ts';
import { gvKey } from '../registry.ts';
import type { ResourcePath } from '../request.ts';
import { equalityLabels, matchFields, matchLabels, parseFieldSelector, parseLabelSelector } from '../selectors.ts';
import { ApiError, badRequest, qualifiedResource } from '../status.ts';
import type { IncludeObject } from '../table.ts';
import { invalidError, notSupported } from '../validation/field-errors.ts';
import { goQuote } from '../validation/go-format.ts';

export function apiVersionOf(desc: ResourceDescriptor, version: string): string {
  return gvKey(desc.group, version);
}

/**
 * Objects go out in the version asked for; storage keeps what was written (no conversion needed), except
 * for a view of another kind's storage, which shows each object in its own shape.
 */
export function presenter(desc: ResourceDescriptor, version: string): (o: KubeObject) => KubeObject {
  if (desc.view) return desc.view.present;
  const av = apiVersionOf(desc, version);
  return (o) => (o.apiVersion === av ? o : { ...o, apiVersion: av });
}

/** The apiVersion the store keeps this resource's objects under (a view reads the viewed kind's). */
export function storageApiVersion(desc: ResourceDescriptor): string {
  return desc.view ? gvKey(desc.view.group, 'v1') : gvKey(desc.group, desc.versions[0]);
}

/** The kind the store keeps this resource's objects as. */
export function storageKind(desc: ResourceDescriptor): string {
  return desc.view?.kind ?? desc.kind;
}

/** `group/Kind` of the stored objects, the key store changes and watches share. */
export function storageGk(desc: ResourceDescriptor): string {
  return desc.view ? `${desc.view.group}/${desc.view.kind}` : `${desc.group}/${desc.kind}`;
}

/** The start of a `…List` body, up to the opening of `items`. */
export function listHead(desc: ResourceDescriptor, version: string, metadata: Record<string, unknown>): string {
  return `{"kind":"${desc.listKind}","apiVersion":"${apiVersionOf(desc, version)}","metadata":${JSON.stringify(metadata)},"items":[`;
}

export function resourceName(desc: ResourceDescriptor): string {
  return qualifiedResource(desc.group, desc.plural);
}

export function notFound(desc: ResourceDescriptor, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${resourceName(desc)} "${name}" not found`, { name, group: desc.group, kind: desc.plural });
}

/** The optimistic-concurrency 409 (registry store.go OptimisticLockErrorMsg). */
export function conflict(desc: ResourceDescriptor, name: string): ApiError {
  return new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${resourceName(desc)} "${name}": the object has been modified; please apply your changes to the latest version and try again`, { name, group: desc.group, kind: desc.plural });
}

export function nameMismatch(bodyName: string | undefined, urlName: string | undefined): ApiError {
  return badRequest(`the name of the object (${bodyName ?? ''}) does not match the name on the URL (${urlName})`);
}

/** Runs a store call, with its errors naming the resource as the real server's do. */
export function storeCall<T>(desc: ResourceDescriptor, name: string | undefined, call: () => T): T {
  try {
    return call();
  } catch (e) {
    if (e instanceof StoreError) throw new ApiError(e.status, e.reason, e.message, { name, group: desc.group, kind: desc.plural });
    throw e;
  }
}

/** The object named on the URL, if it exists. */
export function find(store: MemoryStore, desc: ResourceDescriptor, p: ResourcePath): KubeObject | undefined {
  return store.get(storageApiVersion(desc), storageKind(desc), p.namespace, p.name!);
}

/** The object named on the URL, or 404. */
export function current(store: MemoryStore, desc: ResourceDescriptor, p: ResourcePath): KubeObject {
  const obj = find(store, desc, p);
  if (!obj) throw notFound(desc, p.name!);
  return obj;
}

export interface Selector {
  match: (o: KubeObject) => boolean;
  /** The equality part of the label selector, which the store answers from its index. */
  labels?: Record<string, string>;
  /** Whether any selector was given. */
  filtered: boolean;
}

/** label + field selectors of a request, as one predicate. */
export function selector(desc: ResourceDescriptor, version: string, q: URLSearchParams): Selector {
  const labelReqs = parseLabelSelector(q.get('labelSelector') ?? '');
  const fieldReqs = parseFieldSelector(q.get('fieldSelector') ?? '');
  const extractors: Record<string, (o: KubeObject) => string> = { 'metadata.name': (o) => o.metadata.name ?? '' };
  if (desc.namespaced) extractors['metadata.namespace'] = (o) => o.metadata.namespace ?? '';
  Object.assign(extractors, desc.fields ?? {});
  for (const jp of desc.selectableFields?.[version] ?? []) {
    extractors[jp.replace(/^\./, '')] = (o) => {
      const v = evaluateJsonPath(o, jp)[0];
      return v === undefined || v === null ? '' : String(v);
    };
  }
  for (const r of fieldReqs) if (!extractors[r.field]) throw badRequest(`field label not supported: ${r.field}`);
  const match = (o: KubeObject) => matchLabels(labelReqs, o.metadata.labels) && matchFields(fieldReqs, (f) => extractors[f](o));
  return { match, labels: equalityLabels(labelReqs), filtered: labelReqs.length > 0 || fieldReqs.length > 0 };
}

export function includeObject(q: URLSearchParams): IncludeObject {
  const v = q.get('includeObject');
  return v === 'None' || v === 'Object' ? v : 'Metadata';
}

export function isDryRun(q: URLSearchParams): boolean {
  return q.getAll('dryRun').includes('All');
}

/**
 * The `dryRun` option of a write (query, and for deletes also the DeleteOptions body): `All` is the
 * only value there is; anything else is the options' 422 (ValidateDryRun), e.g.
 * `CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Foo"}: supported values: "All"`.
 */
export function dryRunOption(options: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions', values: string[]): boolean {
  if (values.some((v) => v !== 'All')) {
    throw invalidError(options, 'meta.k8s.io', '', [notSupported('dryRun', `[]string{${values.map((v) => goQuote(v)).join(', ')}}`, ['All'])]);
  }
  return values.length > 0;
}
