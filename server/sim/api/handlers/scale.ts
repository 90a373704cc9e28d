/** The scale subresource: an `autoscaling/v1` Scale view of a replica count, read, replaced or patched. */

import type { KubeObject } from '../../store/object-store.ts';
import { clone, isPlainObject } from '../../store/object-utils.ts';
import type { ResourceRequest } from '../context.ts';
import { evaluateJsonPath } from '../jsonpath-lite.ts';
import { applyJsonPatch, applyMergePatch } from '../patch.ts';
import type { ResourceDescriptor } from '../registry.ts';
import { sendJson } from '../respond.ts';
import { badRequest, invalid } from '../status.ts';
import type { NumberLiterals } from '../json-scan.ts';
import { goDecodeError, goTypeOf } from '../validation/builtin-types.ts';
import { conflict, current, storeCall } from './resource.ts';
import { checkStorable, validateObject } from './validate.ts';

function scalePaths(desc: ResourceDescriptor): { spec: string; status: string; selector?: string } {
  if (desc.scale) return { spec: desc.scale.specReplicasPath, status: desc.scale.statusReplicasPath, selector: desc.scale.labelSelectorPath };
  return { spec: '.spec.replicas', status: '.status.replicas' };
}

export function scaleOf(desc: ResourceDescriptor, obj: KubeObject): unknown {
  const paths = scalePaths(desc);
  const specReplicas = evaluateJsonPath(obj, paths.spec)[0];
  const statusReplicas = evaluateJsonPath(obj, paths.status)[0];
  let selector: string | undefined;
  if (paths.selector) {
    const s = evaluateJsonPath(obj, paths.selector)[0];
    if (typeof s === 'string') selector = s;
  } else {
    const sel = (obj.spec as Record<string, unknown> | undefined)?.selector as { matchLabels?: Record<string, string> } | undefined;
    if (sel?.matchLabels) selector = Object.entries(sel.matchLabels).map(([k, v]) => `${k}=${v}`).join(',');
  }
  const m = obj.metadata;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas: typeof specReplicas === 'number' ? specReplicas : desc.builtin ? 1 : 0 },
    status: { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0, ...(selector ? { selector } : {}) },
  };
}

/**
 * PUT of a Scale: sets the replica count on the object (a resourceVersion in the Scale is a
 * precondition). A dry run answers the Scale it would store and stores nothing.
 */
export function writeScale(r: ResourceRequest, body: unknown, numbers: NumberLiterals = new Map(), dryRun = false): void {
  const { ctx, res, desc, p } = r;
  const decodeError = goDecodeError(body, goTypeOf('autoscaling/Scale', 'Scale')!, numbers);
  if (decodeError) throw badRequest(`Scale in version "v1" cannot be handled as a Scale: ${decodeError}`);
  const replicas = isPlainObject(body) && isPlainObject(body.spec) ? body.spec.replicas : undefined;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw invalid('Scale', 'autoscaling', p.name!, 'spec.replicas', `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`);
  }
  const obj = current(ctx.store, desc, p);
  const rv = isPlainObject(body) && isPlainObject(body.metadata) ? (body.metadata.resourceVersion as string | undefined) : undefined;
  const next = clone(obj);
  const path = scalePaths(desc).spec.replace(/^\./, '').split('.');
  let cur = next as Record<string, unknown>;
  for (const k of path.slice(0, -1)) cur = (isPlainObject(cur[k]) ? cur[k] : (cur[k] = {})) as Record<string, unknown>;
  cur[path[path.length - 1]] = replicas;
  next.metadata.resourceVersion = rv || obj.metadata.resourceVersion;
  // The object behind the Scale is validated and encoded like any other update before it is stored.
  validateObject(r, next, { old: obj, numbers: new Map() });
  checkStorable(next);
  if (dryRun) {
    if (rv && rv !== obj.metadata.resourceVersion) throw conflict(desc, p.name!);
    return sendJson(res, 200, scaleOf(desc, next));
  }
  const stored = storeCall(desc, p.name, () => ctx.store.update(next));
  sendJson(res, 200, scaleOf(desc, stored));
}

/** PATCH of a Scale: the patch applies to the Scale view, then the result is written like a PUT. */
export function patchScale(r: ResourceRequest, existing: KubeObject, patchType: string, body: unknown, numbers: NumberLiterals, dryRun = false): void {
  const scale = scaleOf(r.desc, existing);
  const patched = patchType === 'application/json-patch+json' ? applyJsonPatch(scale, body) : applyMergePatch(scale, body);
  writeScale(r, patched, numbers, dryRun);
}
