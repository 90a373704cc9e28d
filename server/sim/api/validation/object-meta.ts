/**
 * ObjectMeta validation (k8s.io/apimachinery/pkg/api/validation/objectmeta.go, pure): the name rule of
 * the kind, generateName, namespace, labels (qualified keys, values of at most 63 characters),
 * annotations (qualified keys, 256 KiB in total), owner references and finalizers.
 */

import type { KubeObject } from '../../store/object-store.ts';
import { isPlainObject } from '../../store/object-utils.ts';
import type { FieldError } from './field-errors.ts';
import { forbidden, invalidValue, q, required, tooLong } from './field-errors.ts';
import type { NameRule } from './names.ts';
import { isQualifiedName, isValidLabelValue, nameIsDNSLabel, nameIsDNSSubdomain, nameIsDNS1035Label, nameIsPathSegment } from './names.ts';

/** `TotalAnnotationSizeLimitB`: keys and values of all annotations together. */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/** Finalizer names without a domain that built-in kinds accept (helper.IsStandardFinalizerName and metav1's). */
const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/** The name rule of each built-in kind (their registry strategies); everything else is a DNS subdomain. */
export function nameRuleOf(group: string, kind: string): NameRule {
  if (group === '' && kind === 'Namespace') return nameIsDNSLabel;
  if (group === '' && kind === 'Service') return nameIsDNS1035Label;
  if (group === 'rbac.authorization.k8s.io') return nameIsPathSegment;
  return nameIsDNSSubdomain;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Bytes of a string as Go counts len(). */
function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

export interface MetaOptions {
  group: string;
  kind: string;
  namespaced: boolean;
  /** Built-in kinds also check finalizer names without a domain. */
  builtin: boolean;
}

/** ValidateLabels: qualified keys, valid values (also for pod templates, at `spec.template.labels`). */
export function validateLabels(raw: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(isPlainObject(raw) ? raw : {})) {
    for (const m of isQualifiedName(k)) errs.push(invalidValue(field, q(k), m));
    for (const m of isValidLabelValue(String(v))) errs.push(invalidValue(field, q(String(v)), m));
  }
  return errs;
}

/** ValidateAnnotations: qualified keys (case-insensitive) and their total size. */
export function validateAnnotations(raw: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(isPlainObject(raw) ? raw : {})) {
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(invalidValue(field, q(k), m));
    size += byteLength(k) + byteLength(String(v));
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(tooLong(field, TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

/** Labels, annotations, owner references and finalizers (the checks create and update share). */
function validateMaps(meta: Record<string, unknown>, o: MetaOptions): FieldError[] {
  const errs: FieldError[] = [...validateLabels(meta.labels, 'metadata.labels'), ...validateAnnotations(meta.annotations, 'metadata.annotations')];
  const refs = Array.isArray(meta.ownerReferences) ? meta.ownerReferences : [];
  let controllers = 0;
  for (const r of refs) {
    if (!isPlainObject(r)) continue;
    const av = str(r.apiVersion);
    const version = av.includes('/') ? av.slice(av.indexOf('/') + 1) : av;
    if (!version) errs.push(invalidValue('metadata.ownerReferences.apiVersion', q(av), 'version must not be empty'));
    if (!str(r.kind)) errs.push(invalidValue('metadata.ownerReferences.kind', q(str(r.kind)), 'kind must not be empty'));
    if (!str(r.name)) errs.push(invalidValue('metadata.ownerReferences.name', q(str(r.name)), 'name must not be empty'));
    if (!str(r.uid)) errs.push(invalidValue('metadata.ownerReferences.uid', q(str(r.uid)), 'uid must not be empty'));
    if (r.controller === true) controllers++;
  }
  if (controllers > 1) {
    const names = refs.filter((r) => isPlainObject(r) && r.controller === true).map((r) => `${str((r as Record<string, unknown>).kind)}/${str((r as Record<string, unknown>).name)}`);
    errs.push(invalidValue('metadata.ownerReferences', '[]v1.OwnerReference{...}', `Only one reference can have Controller set to true. Found "true" in references for ${names.join(' and ')}`));
  }
  const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
  for (const f of finalizers) {
    const name = String(f);
    const msgs = isQualifiedName(name);
    for (const m of msgs) errs.push(invalidValue('metadata.finalizers', q(name), m));
    if (msgs.length === 0 && o.builtin && !name.includes('/') && !STANDARD_FINALIZERS.has(name)) {
      errs.push(invalidValue('metadata.finalizers', q(name), 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  }
  return errs;
}

/** ValidateObjectMetaAccessor: what a new object's metadata must satisfy. */
export function validateObjectMetaCreate(obj: KubeObject, o: MetaOptions): FieldError[] {
  const meta = (isPlainObject(obj.metadata) ? obj.metadata : {}) as Record<string, unknown>;
  const rule = nameRuleOf(o.group, o.kind);
  const errs: FieldError[] = [];
  const generateName = str(meta.generateName);
  if (generateName) for (const m of rule(generateName, true)) errs.push(invalidValue('metadata.generateName', q(generateName), m));
  const name = str(meta.name);
  if (!name) {
    if (!generateName) errs.push(required('metadata.name', 'name or generateName is required'));
  } else {
    for (const m of rule(name, false)) errs.push(invalidValue('metadata.name', q(name), m));
  }
  const ns = str(meta.namespace);
  if (o.namespaced) {
    if (!ns) errs.push(required('metadata.namespace'));
    else for (const m of nameIsDNSLabel(ns, false)) errs.push(invalidValue('metadata.namespace', q(ns), m));
  } else if (ns) errs.push(forbidden('metadata.namespace', 'not allowed on this type'));
  errs.push(...validateMaps(meta, o));
  return errs;
}

/** ValidateObjectMetaAccessorUpdate: the same maps again (identity fields are the store's to keep). */
export function validateObjectMetaUpdate(obj: KubeObject, old: KubeObject, o: MetaOptions): FieldError[] {
  const meta = (isPlainObject(obj.metadata) ? obj.metadata : {}) as Record<string, unknown>;
  const errs: FieldError[] = [];
  const gen = meta.generation;
  const oldGen = old.metadata.generation;
  if (typeof gen === 'number' && typeof oldGen === 'number' && gen < oldGen) errs.push(invalidValue('metadata.generation', String(gen), 'must not be decremented'));
  errs.push(...validateMaps(meta, o));
  return errs;
}
