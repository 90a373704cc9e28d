/**
 * create, update (PUT) and patch (JSON, merge, strategic merge, server-side apply), in the real server's
 * order: read the body (size limit), decode it (nesting limit, the kind's Go types), admission, the
 * strategy's preparation and validation, storage encoding, and only then the store. Nothing that can
 * fail comes after the store call, so a failed write is never stored (see validate.ts).
 */

import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../store/object-store.ts';
import { clone, isPlainObject, rfc3339 } from '../../store/object-utils.ts';
import type { ResourceRequest } from '../context.ts';
import type { NumberLiterals } from '../json-scan.ts';
import { applyConfiguration, applyJsonPatch, applyMergePatch, strategicMerge } from '../patch.ts';
import { mediaType } from '../request.ts';
import type { BodyUse } from '../request-body.ts';
import { decodeBody, readRawBody } from '../request-body.ts';
import { sendJson } from '../respond.ts';
import { encodeObject } from '../serialize.ts';
import { ApiError, badRequest, invalid, methodNotAllowed, unsupportedMediaType } from '../status.ts';
import { invalidError, invalidValue, q } from '../validation/field-errors.ts';
import { goV } from '../validation/go-format.ts';
import { admitCreate, normalizeBody, prepareForUpdate, servesApiVersion } from './admission.ts';
import { conflict, current, dryRunOption, find, nameMismatch, notFound, presenter, resourceName, storeCall } from './resource.ts';
import { patchScale, writeScale } from './scale.ts';
import { checkDecodes, checkStorable, decodeProblem, pruneUnknown, validateObject, warningHeaders } from './validate.ts';

const CR_PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];
const BUILTIN_PATCH_TYPES = [...CR_PATCH_TYPES, 'application/strategic-merge-patch+json'];

const PATCH_USE: Record<string, BodyUse> = {
  'application/json-patch+json': 'json-patch',
  'application/merge-patch+json': 'merge-patch',
  'application/strategic-merge-patch+json': 'strategic-merge-patch',
  'application/apply-patch+yaml': 'apply',
};

function managedEntry(manager: string, operation: 'Apply' | 'Update', apiVersion: string): Record<string, unknown> {
  return { manager, operation, apiVersion, time: rfc3339(new Date()), fieldsType: 'FieldsV1', fieldsV1: {} };
}

/** `strconv.ParseUint(resourceVersion, 10, 64)`: the storage layer's reading of a resourceVersion. */
function parseResourceVersion(rv: string): void {
  if (/^\d+$/.test(rv) && BigInt(rv) < 2n ** 64n) return;
  const why = /^\d+$/.test(rv) ? 'value out of range' : 'invalid syntax';
  // Not a Status error in the real store: the server answers 500 with the bare Go error.
  throw new ApiError(500, '', `strconv.ParseUint: parsing ${JSON.stringify(rv)}: ${why}`);
}

interface WriteOptions {
  numbers: NumberLiterals;
  warnings: string[];
  dryRun: boolean;
}

const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * What a dry-run create answers: the object as it would be stored (the registry runs up to the storage
 * call: a name from generateName, uid, creationTimestamp, generation 1), no resourceVersion, and the
 * same AlreadyExists as a real create.
 */
function dryRunCreated(r: ResourceRequest, obj: KubeObject): KubeObject {
  const { ctx, desc } = r;
  const m = obj.metadata;
  const taken = (name: string) => ctx.store.get(obj.apiVersion, obj.kind, m.namespace, name) !== undefined;
  if (!m.name && m.generateName) {
    do m.name = m.generateName.slice(0, 58) + Array.from({ length: 5 }, () => NAME_ALPHABET[Math.floor(Math.random() * NAME_ALPHABET.length)]).join('');
    while (taken(m.name));
  } else if (m.name && taken(m.name)) {
    throw new ApiError(409, 'AlreadyExists', `${resourceName(desc)} "${m.name}" already exists`, { name: m.name, group: desc.group, kind: desc.plural });
  }
  m.uid = randomUUID();
  m.creationTimestamp = rfc3339(new Date(ctx.now()));
  if (desc.generation) m.generation = 1;
  return obj;
}

/** Validates, encodes and stores a new object, and answers 201 with it. */
function commitCreate(r: ResourceRequest, obj: KubeObject, o: WriteOptions): void {
  const { ctx, res, desc, p } = r;
  admitCreate(ctx.store, desc, obj);
  validateObject(r, obj, { numbers: o.numbers });
  const rv = obj.metadata.resourceVersion;
  if (rv && /^\d+$/.test(rv) && BigInt(rv) !== 0n) throw new ApiError(500, '', 'resourceVersion should not be set on objects to be created');
  delete obj.metadata.resourceVersion;
  checkStorable(obj);
  const headers = warningHeaders(o.warnings);
  if (o.dryRun) return sendJson(res, 201, encodeObject(presenter(desc, p.version)(dryRunCreated(r, obj))), headers);
  const created = storeCall(desc, obj.metadata.name, () => ctx.store.create(obj));
  sendJson(res, 201, encodeObject(presenter(desc, p.version)(created)), headers);
}

/**
 * Stores the result of a PUT or PATCH, with the main-endpoint / status-subresource split, after the
 * storage checks (resourceVersion, preconditions) and the strategy's validation, and answers with it.
 */
function commitUpdate(r: ResourceRequest, next: KubeObject, existing: KubeObject, o: WriteOptions): void {
  const { ctx, res, desc, p } = r;
  if (next.metadata.name !== p.name) throw nameMismatch(next.metadata.name, p.name);
  next.kind = desc.kind;
  if (!servesApiVersion(desc, next.apiVersion)) next.apiVersion = existing.apiVersion;
  if (p.subresource === 'scale') throw methodNotAllowed('GET');
  const rv = next.metadata.resourceVersion;
  if (rv) parseResourceVersion(rv);
  else if (!desc.allowUnconditionalUpdate) {
    throw invalid(desc.kind, desc.group, p.name!, 'metadata.resourceVersion', 'Invalid value: 0x0: must be specified for an update');
  }
  if (rv && rv !== existing.metadata.resourceVersion) throw conflict(desc, p.name!);
  // What would be stored: the status subresource changes status only.
  let candidate: KubeObject;
  if (p.subresource === 'status') {
    candidate = { ...existing, metadata: { ...existing.metadata }, status: next.status };
    if (next.status === undefined) delete candidate.status;
  } else {
    prepareForUpdate(desc, next, existing);
    candidate = next;
  }
  validateObject(r, candidate, { old: existing, numbers: o.numbers, status: p.subresource === 'status' });
  checkStorable(candidate);
  const headers = warningHeaders(o.warnings);
  if (o.dryRun) return sendJson(res, 200, presenter(desc, p.version)(candidate), headers);
  const stored = storeCall(desc, p.name, () => (p.subresource === 'status' ? ctx.store.updateStatus(next) : ctx.store.update(next)));
  sendJson(res, 200, encodeObject(presenter(desc, p.version)(stored)), headers);
}

export async function create(r: ResourceRequest): Promise<void> {
  const { req, url, desc, p } = r;
  const dryRun = dryRunOption('CreateOptions', url.searchParams.getAll('dryRun'));
  const raw = await readRawBody(req);
  const body = decodeBody(raw, 'object', { kind: desc.kind, fieldValidation: url.searchParams.get('fieldValidation') });
  const numbers = body?.numbers ?? new Map();
  checkDecodes(desc, p.version, body?.value, numbers);
  const obj = normalizeBody(desc, p, body?.value);
  const warnings = pruneUnknown(r, obj);
  commitCreate(r, obj, { numbers, warnings, dryRun });
}

export async function replace(r: ResourceRequest): Promise<void> {
  const { ctx, req, url, desc, p } = r;
  const dryRun = dryRunOption('UpdateOptions', url.searchParams.getAll('dryRun'));
  const raw = await readRawBody(req);
  const body = decodeBody(raw, 'object', { kind: p.subresource === 'scale' ? 'Scale' : desc.kind, fieldValidation: url.searchParams.get('fieldValidation') });
  const numbers = body?.numbers ?? new Map();
  if (p.subresource === 'scale') return writeScale(r, body?.value, numbers, dryRun);
  checkDecodes(desc, p.version, body?.value, numbers);
  const obj = normalizeBody(desc, p, body?.value);
  const existing = current(ctx.store, desc, p);
  const warnings = pruneUnknown(r, obj);
  commitUpdate(r, obj, existing, { numbers, warnings, dryRun });
}

/** A patch result that does not decode into the kind's types: the patch handler's 422. */
function patchedDecodeError(r: ResourceRequest, type: string, next: unknown, patchBody: unknown, numbers: NumberLiterals): void {
  const err = decodeProblem(r.desc, next, numbers);
  if (!err) return;
  const shown = type === 'application/strategic-merge-patch+json' ? goV(patchBody) : JSON.stringify(next);
  throw invalidError('', '', '', [invalidValue('patch', q(shown), err)]);
}

export async function patch(r: ResourceRequest): Promise<void> {
  const { ctx, req, url, desc, p } = r;
  const query = url.searchParams;
  const type = mediaType(req.headers['content-type']);
  const allowed = desc.builtin ? BUILTIN_PATCH_TYPES : CR_PATCH_TYPES;
  if (!allowed.includes(type)) throw unsupportedMediaType(allowed);
  const dryRun = dryRunOption('PatchOptions', query.getAll('dryRun'));
  const isApply = type === 'application/apply-patch+yaml';
  if (query.has('force') && !isApply) throw invalid('PatchOptions', 'meta.k8s.io', '', 'force', 'Forbidden: may not be specified for non-apply patch', 'FieldValueForbidden');
  const manager = query.get('fieldManager');
  if (isApply && !manager) throw invalid('PatchOptions', 'meta.k8s.io', '', 'fieldManager', 'Required value: is required for apply patch', 'FieldValueRequired');
  const raw = await readRawBody(req);
  const existing = find(ctx.store, desc, p);
  if (!existing && !(isApply && p.subresource === undefined)) throw notFound(desc, p.name!);
  const use = PATCH_USE[type];
  const decoded = decodeBody(raw, use, { kind: desc.kind, fieldValidation: query.get('fieldValidation') });
  if (decoded === undefined) throw badRequest('the body of the request was empty');
  const body = decoded.value;
  // JSON-patch paths are not object paths: their literals say nothing about the result.
  const numbers: NumberLiterals = type === 'application/json-patch+json' ? new Map() : decoded.numbers;
  if (p.subresource === 'scale') return patchScale(r, existing!, type, body, numbers, dryRun);
  if (!existing) {
    // Server-side apply creates what is missing.
    checkDecodes(desc, p.version, body, numbers);
    const obj = normalizeBody(desc, p, clone(body));
    if (obj.metadata.name !== p.name) throw nameMismatch(obj.metadata.name, p.name);
    obj.metadata.managedFields = [managedEntry(manager!, 'Apply', obj.apiVersion)];
    const warnings = pruneUnknown(r, obj);
    return commitCreate(r, obj, { numbers, warnings, dryRun });
  }
  const base = clone(existing);
  let next: unknown;
  switch (type) {
    case 'application/json-patch+json':
      next = applyJsonPatch(base, body);
      break;
    case 'application/merge-patch+json':
      if (!isPlainObject(body)) throw badRequest('merge patch must be a JSON object');
      next = applyMergePatch(base, body);
      break;
    case 'application/strategic-merge-patch+json':
      if (!isPlainObject(body)) throw badRequest('strategic merge patch must be a JSON object');
      next = strategicMerge(base, body);
      break;
    default: {
      if (!isPlainObject(body)) throw badRequest('apply patch must be an object');
      const applied = body as KubeObject;
      if (applied.metadata?.name && applied.metadata.name !== p.name) throw nameMismatch(applied.metadata.name, p.name);
      next = applyConfiguration(base, { ...applied, metadata: { ...(applied.metadata ?? {}), managedFields: undefined } });
      const m = (next as KubeObject).metadata;
      const entries = ((existing.metadata.managedFields as Array<Record<string, unknown>> | undefined) ?? []).filter((f) => !(f.manager === manager && f.operation === 'Apply'));
      m.managedFields = [...entries, managedEntry(manager!, 'Apply', String(applied.apiVersion ?? existing.apiVersion))];
    }
  }
  if (!isPlainObject(next)) throw new ApiError(422, 'Invalid', 'the patch produced something that is not an object');
  const obj = next as KubeObject;
  if (!isPlainObject(obj.metadata)) throw new ApiError(422, 'Invalid', 'the patch removed metadata');
  patchedDecodeError(r, type, obj, body, numbers);
  if (obj.metadata.uid !== existing.metadata.uid && obj.metadata.uid !== undefined) {
    throw invalid(desc.kind, desc.group, p.name!, 'metadata.uid', `Invalid value: "${String(obj.metadata.uid)}": field is immutable`);
  }
  if (desc.namespaced) obj.metadata.namespace = p.namespace;
  // A resourceVersion in the patch is a precondition; otherwise the patch applies to what was read.
  if (!obj.metadata.resourceVersion) obj.metadata.resourceVersion = existing.metadata.resourceVersion;
  const warnings = pruneUnknown(r, obj);
  commitUpdate(r, obj, existing, { numbers, warnings, dryRun });
}
