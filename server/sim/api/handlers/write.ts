/** create, update (PUT) and patch (JSON, merge, strategic merge, server-side apply). */

import type { KubeObject } from '../../store/object-store.ts';
import { clone, isPlainObject, rfc3339 } from '../../store/object-utils.ts';
import type { ResourceRequest } from '../context.ts';
import { applyConfiguration, applyJsonPatch, applyMergePatch, strategicMerge } from '../patch.ts';
import { mediaType } from '../request.ts';
import { readJsonBody } from '../request-body.ts';
import { sendJson } from '../respond.ts';
import { encodeObject } from '../serialize.ts';
import { ApiError, badRequest, invalid, methodNotAllowed, unsupportedMediaType } from '../status.ts';
import { admitCreate, normalizeBody, prepareForUpdate, servesApiVersion } from './admission.ts';
import { current, find, isDryRun, nameMismatch, notFound, presenter, storeCall } from './resource.ts';
import { patchScale, writeScale } from './scale.ts';

const CR_PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];
const BUILTIN_PATCH_TYPES = [...CR_PATCH_TYPES, 'application/strategic-merge-patch+json'];

function managedEntry(manager: string, operation: 'Apply' | 'Update', apiVersion: string): Record<string, unknown> {
  return { manager, operation, apiVersion, time: rfc3339(new Date()), fieldsType: 'FieldsV1', fieldsV1: {} };
}

/** Stores an admitted new object and answers 201 with it. */
function commitCreate({ ctx, res, desc, p }: ResourceRequest, obj: KubeObject): void {
  const created = storeCall(desc, obj.metadata.name, () => ctx.store.create(obj));
  sendJson(res, 201, encodeObject(presenter(desc, p.version)(created)));
}

/** Stores the result of a PUT or PATCH, with the main-endpoint / status-subresource split, and answers with it. */
function commitUpdate({ ctx, res, url, desc, p }: ResourceRequest, next: KubeObject, existing: KubeObject): void {
  if (isDryRun(url.searchParams)) return sendJson(res, 200, presenter(desc, p.version)(next));
  if (next.metadata.name !== p.name) throw nameMismatch(next.metadata.name, p.name);
  next.kind = desc.kind;
  if (!servesApiVersion(desc, next.apiVersion)) next.apiVersion = existing.apiVersion;
  const stored = storeCall(desc, p.name, () => {
    if (p.subresource === 'status') return ctx.store.updateStatus(next);
    if (p.subresource === 'scale') throw methodNotAllowed('GET');
    prepareForUpdate(desc, next, existing);
    return ctx.store.update(next);
  });
  sendJson(res, 200, encodeObject(presenter(desc, p.version)(stored)));
}

export async function create(r: ResourceRequest): Promise<void> {
  const { ctx, req, res, url, desc, p } = r;
  const obj = normalizeBody(desc, p, await readJsonBody(req));
  admitCreate(ctx.store, desc, obj);
  if (isDryRun(url.searchParams)) return sendJson(res, 201, presenter(desc, p.version)(obj));
  commitCreate(r, obj);
}

export async function replace(r: ResourceRequest): Promise<void> {
  const { ctx, req, desc, p } = r;
  const body = await readJsonBody(req);
  if (p.subresource === 'scale') return writeScale(r, body);
  const obj = normalizeBody(desc, p, body);
  const existing = current(ctx.store, desc, p);
  if (!obj.metadata.resourceVersion && !desc.allowUnconditionalUpdate) {
    throw invalid(desc.kind, desc.group, p.name!, 'metadata.resourceVersion', 'Invalid value: 0x0: must be specified for an update');
  }
  commitUpdate(r, obj, existing);
}

export async function patch(r: ResourceRequest): Promise<void> {
  const { ctx, req, url, desc, p } = r;
  const q = url.searchParams;
  const type = mediaType(req.headers['content-type']);
  const allowed = desc.builtin ? BUILTIN_PATCH_TYPES : CR_PATCH_TYPES;
  if (!allowed.includes(type)) throw unsupportedMediaType(allowed);
  const isApply = type === 'application/apply-patch+yaml';
  if (q.has('force') && !isApply) throw invalid('PatchOptions', 'meta.k8s.io', '', 'force', 'Forbidden: may not be specified for non-apply patch', 'FieldValueForbidden');
  const manager = q.get('fieldManager');
  if (isApply && !manager) throw invalid('PatchOptions', 'meta.k8s.io', '', 'fieldManager', 'Required value: is required for apply patch', 'FieldValueRequired');
  const body = await readJsonBody(req, isApply);
  if (body === undefined) throw badRequest('the body of the request was empty');
  const existing = find(ctx.store, desc, p);
  if (p.subresource === 'scale') {
    if (!existing) throw notFound(desc, p.name!);
    return patchScale(r, existing, type, body);
  }
  if (!existing) {
    if (!isApply) throw notFound(desc, p.name!);
    // Server-side apply creates what is missing.
    const obj = normalizeBody(desc, p, clone(body));
    if (obj.metadata.name !== p.name) throw nameMismatch(obj.metadata.name, p.name);
    admitCreate(ctx.store, desc, obj);
    obj.metadata.managedFields = [managedEntry(manager!, 'Apply', obj.apiVersion)];
    return commitCreate(r, obj);
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
  if (obj.metadata.uid !== existing.metadata.uid && obj.metadata.uid !== undefined) {
    throw invalid(desc.kind, desc.group, p.name!, 'metadata.uid', `Invalid value: "${String(obj.metadata.uid)}": field is immutable`);
  }
  if (desc.namespaced) obj.metadata.namespace = p.namespace;
  // A resourceVersion in the patch is a precondition; otherwise the patch applies to what was read.
  if (!obj.metadata.resourceVersion) obj.metadata.resourceVersion = existing.metadata.resourceVersion;
  commitUpdate(r, obj, existing);
}
