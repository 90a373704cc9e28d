/**
 * What a write must pass before it is stored, in the real server's order: the body decodes into the
 * kind's Go types (400), the custom resource is pruned to its structural schema (unknown fields: 400
 * with fieldValidation=Strict, a Warning header otherwise), the registry strategy validates metadata,
 * the kind and (CRs) the schema and scale replicas (422), and the storage layer encodes the object (an
 * object etcd would refuse is a 500). Every check runs before the store is touched, so a write that
 * fails leaves no trace: no object, no resourceVersion, no watch event.
 */

import { encodeJson } from '../../store/deep-json.ts';
import type { KubeObject } from '../../store/object-store.ts';
import { isPlainObject } from '../../store/object-utils.ts';
import type { ResourceRequest } from '../context.ts';
import type { NumberLiterals } from '../json-scan.ts';
import type { ResourceDescriptor } from '../registry.ts';
import { ApiError, badRequest } from '../status.ts';
import { goDecodeError, goTypeOf } from '../validation/builtin-types.ts';
import { validateBuiltin } from '../validation/builtin.ts';
import type { FieldError } from '../validation/field-errors.ts';
import { invalidError } from '../validation/field-errors.ts';
import { validateObjectMetaCreate, validateObjectMetaUpdate } from '../validation/object-meta.ts';
import type { Schema } from '../validation/schema.ts';
import { prune, scaleErrors, validateAgainstSchema } from '../validation/schema.ts';

/** etcd's default `--max-request-bytes` (1.5 MiB): a bigger value is refused by storage. */
export const MAX_STORED_OBJECT_BYTES = 1.5 * 1024 * 1024;

function versionOfApiVersion(apiVersion: unknown, fallback: string): string {
  if (typeof apiVersion !== 'string' || !apiVersion) return fallback;
  const i = apiVersion.indexOf('/');
  return i < 0 ? apiVersion : apiVersion.slice(i + 1);
}

function kindOfBody(body: unknown, desc: ResourceDescriptor): string {
  return isPlainObject(body) && typeof body.kind === 'string' && body.kind ? body.kind : desc.kind;
}

/** The decoder's 400 for a body that does not fit the kind's Go types (transformDecodeError). */
export function checkDecodes(desc: ResourceDescriptor, version: string, body: unknown, numbers: NumberLiterals): void {
  const err = decodeProblem(desc, body, numbers);
  if (err) {
    const kind = kindOfBody(body, desc);
    const v = isPlainObject(body) ? versionOfApiVersion(body.apiVersion, version) : version;
    throw badRequest(`${kind} in version "${v}" cannot be handled as a ${desc.kind}: ${err}`);
  }
}

/** The decoder's message for a body, or undefined when it decodes. */
export function decodeProblem(desc: ResourceDescriptor, body: unknown, numbers: NumberLiterals): string | undefined {
  if (desc.builtin) {
    const type = goTypeOf(`${desc.group}/${desc.kind}`, desc.kind);
    return type ? goDecodeError(body, type, numbers) : undefined;
  }
  // Custom resources decode into maps: only numbers beyond float64 fail.
  for (const literal of numbers.values()) {
    if (!Number.isFinite(Number(literal))) return `json: cannot unmarshal number ${literal} into Go value of type float64`;
  }
  return undefined;
}

/** The openAPIV3Schema of one version of the CRD behind a resource. */
export function crdSchema(r: ResourceRequest, version: string): Schema | undefined {
  const { ctx, desc } = r;
  if (desc.builtin || !desc.crd) return undefined;
  const crd = ctx.store.get('apiextensions.k8s.io/v1', 'CustomResourceDefinition', undefined, desc.crd);
  const versions = (crd?.spec as { versions?: Array<{ name?: string; schema?: { openAPIV3Schema?: unknown } }> } | undefined)?.versions ?? [];
  const v = versions.find((x) => x.name === version) ?? versions[0];
  const s = v?.schema?.openAPIV3Schema;
  return isPlainObject(s) ? s : undefined;
}

export interface AdmitOptions {
  /** The stored object for an update; absent for a create. */
  old?: KubeObject;
  numbers: NumberLiterals;
  /** A write through the status subresource. */
  status?: boolean;
}

/**
 * Prunes a custom resource to its schema (in place) and applies the fieldValidation directive to what
 * was dropped; returns the warnings to send.
 */
export function pruneUnknown(r: ResourceRequest, obj: KubeObject): string[] {
  const schema = crdSchema(r, versionOfApiVersion(obj.apiVersion, r.p.version));
  if (!schema) return [];
  const pruned = prune(obj as unknown as Record<string, unknown>, schema);
  if (pruned.length === 0) return [];
  const directive = r.url.searchParams.get('fieldValidation') ?? 'Warn';
  const unknown = pruned.map((p) => `unknown field "${p}"`);
  if (directive === 'Strict') {
    throw badRequest(`${obj.kind} in version "${versionOfApiVersion(obj.apiVersion, r.p.version)}" cannot be handled as a ${r.desc.kind}: strict decoding error: ${unknown.join(', ')}`);
  }
  return directive === 'Ignore' ? [] : unknown;
}

/** The strategy's Validate / ValidateUpdate: a 422 with every field error, or nothing. */
export function validateObject(r: ResourceRequest, obj: KubeObject, o: AdmitOptions): void {
  const { desc } = r;
  const meta = { group: desc.group, kind: desc.kind, namespaced: desc.namespaced, builtin: desc.builtin };
  const errs: FieldError[] = [];
  errs.push(...(o.old ? validateObjectMetaUpdate(obj, o.old, meta) : validateObjectMetaCreate(obj, meta)));
  if (desc.builtin) errs.push(...validateBuiltin(`${desc.group}/${desc.kind}`, obj, o.numbers));
  else {
    const schema = crdSchema(r, versionOfApiVersion(obj.apiVersion, r.p.version));
    if (schema) errs.push(...validateAgainstSchema(obj, schema, o.numbers));
    if (desc.scale) errs.push(...scaleErrors(obj as unknown as Record<string, unknown>, desc.scale.specReplicasPath, desc.scale.statusReplicasPath, o.numbers));
  }
  if (errs.length > 0) throw invalidError(desc.kind, desc.group, obj.metadata.name ?? '', errs);
}

/**
 * The storage layer's last word: the object is encoded (as etcd3's store does before its transaction),
 * and an encoding beyond etcd's request limit is refused the way etcd refuses it.
 */
export function checkStorable(obj: KubeObject): void {
  const text = encodeJson(obj);
  if (Buffer.byteLength(text) > MAX_STORED_OBJECT_BYTES) throw new ApiError(500, '', 'etcdserver: request is too large');
}

/** The Warning headers for a response. */
export function warningHeaders(warnings: string[]): Record<string, string> {
  return warnings.length ? { Warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(', ') } : {};
}
