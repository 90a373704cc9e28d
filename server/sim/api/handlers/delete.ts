/**
 * delete and deletecollection: DeleteOptions from the body or the query, graceful deletion of pods
 * on a node, propagation to dependents (done by the store's garbage collector), and CRD cleanup.
 */

import type { DeleteOptions, KubeObject } from '../../store/object-store.ts';
import { markedForDeletion, propagationFinalizer } from '../../store/graceful-deletion.ts';
import { isPlainObject } from '../../store/object-utils.ts';
import type { ResourceRequest, ServerContext } from '../context.ts';
import type { ResourceDescriptor } from '../registry.ts';
import { gvKey } from '../registry.ts';
import { boolParam } from '../request.ts';
import { readJsonBody } from '../request-body.ts';
import { sendJson } from '../respond.ts';
import { encodeObject } from '../serialize.ts';
import { ApiError, invalid, success } from '../status.ts';
import { current, dryRunOption, listHead, presenter, resourceName, selector, storageApiVersion, storeCall } from './resource.ts';

interface DeleteRequest {
  opts: DeleteOptions;
  dryRun: boolean;
  gracePeriod?: number;
}

async function deleteOptions({ req, url }: ResourceRequest): Promise<DeleteRequest> {
  const q = url.searchParams;
  const body = await readJsonBody(req);
  const b = (isPlainObject(body) ? body : {}) as Record<string, unknown>;
  let policy = (b.propagationPolicy as string | undefined) ?? q.get('propagationPolicy') ?? undefined;
  const orphan = b.orphanDependents ?? (q.has('orphanDependents') ? boolParam(q.get('orphanDependents')) : undefined);
  if (policy === undefined && orphan !== undefined) policy = orphan ? 'Orphan' : 'Background';
  if (policy !== undefined && !['Background', 'Foreground', 'Orphan'].includes(policy)) {
    throw invalid('DeleteOptions', 'meta.k8s.io', '', 'propagationPolicy', `Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan", "nil"`, 'FieldValueNotSupported');
  }
  const graceRaw = b.gracePeriodSeconds ?? q.get('gracePeriodSeconds') ?? undefined;
  const gracePeriod = graceRaw === undefined || graceRaw === null ? undefined : Number(graceRaw);
  const pre = isPlainObject(b.preconditions) ? (b.preconditions as { uid?: string; resourceVersion?: string }) : undefined;
  const dryRun = dryRunOption('DeleteOptions', [...q.getAll('dryRun'), ...(Array.isArray(b.dryRun) ? b.dryRun.map(String) : [])]);
  return { opts: { propagationPolicy: policy as DeleteOptions['propagationPolicy'], preconditions: pre }, dryRun, gracePeriod };
}

/** Pods on a node terminate gracefully (the kubelet finishes them); everything else goes at once. */
function graceFor(desc: ResourceDescriptor, obj: KubeObject, requested: number | undefined): number {
  if (desc.group !== '' || desc.kind !== 'Pod') return 0;
  const spec = (obj.spec ?? {}) as Record<string, unknown>;
  const phase = (obj.status as Record<string, unknown> | undefined)?.phase;
  if (!spec.nodeName || phase === 'Succeeded' || phase === 'Failed') return 0;
  if (requested !== undefined && Number.isFinite(requested)) return Math.max(0, requested);
  return typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : 30;
}

function deleteObject({ store, registry }: ServerContext, desc: ResourceDescriptor, obj: KubeObject, d: DeleteRequest): { object: KubeObject; deleted: boolean } {
  const name = obj.metadata.name!;
  if (desc.group === 'apiextensions.k8s.io' && desc.kind === 'CustomResourceDefinition') {
    // CRD deletion removes every custom resource of it first, as the cleanup finalizer does.
    const spec = (obj.spec ?? {}) as { group?: string; names?: { kind?: string }; versions?: Array<{ name: string; storage?: boolean }> };
    const served = registry.byGroupKind(spec.group ?? '', spec.names?.kind ?? '');
    if (served && served.crd === name) {
      const av = gvKey(served.group, served.versions[0]);
      for (const cr of store.list(av, served.kind)) {
        try {
          store.delete(av, served.kind, cr.metadata.namespace, cr.metadata.name!);
        } catch {
          // Already gone.
        }
      }
    }
  }
  return storeCall(desc, name, () => store.delete(obj.apiVersion, obj.kind, obj.metadata.namespace, name, { ...d.opts, gracePeriodSeconds: graceFor(desc, obj, d.gracePeriod) }));
}

/**
 * What a delete would do, without doing it (the dry-run storage checks the preconditions, then the
 * registry decides as for a real delete): the object marked for deletion when finalizers, a propagation
 * policy that adds one, or a pod's grace period hold it; otherwise gone (deleted: true).
 */
function dryRunDelete(ctx: ServerContext, desc: ResourceDescriptor, obj: KubeObject, d: DeleteRequest): { object: KubeObject; deleted: boolean } {
  const pre = d.opts.preconditions;
  const name = obj.metadata.name!;
  if (pre?.uid && pre.uid !== obj.metadata.uid) {
    throw new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${resourceName(desc)} "${name}": Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${obj.metadata.uid}`, { name, group: desc.group, kind: desc.plural });
  }
  if (pre?.resourceVersion && pre.resourceVersion !== obj.metadata.resourceVersion) {
    throw new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${resourceName(desc)} "${name}": Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${obj.metadata.resourceVersion}`, { name, group: desc.group, kind: desc.plural });
  }
  if (obj.metadata.deletionTimestamp) return { object: obj, deleted: (obj.metadata.finalizers ?? []).length === 0 };
  if (desc.group === '' && desc.kind === 'Namespace') {
    // Namespaces always terminate first (the namespace lifecycle controller empties them).
    const marked = markedForDeletion(obj, undefined, 0, new Date(ctx.now()));
    marked.status = { ...(isPlainObject(marked.status) ? marked.status : {}), phase: 'Terminating' };
    return { object: marked, deleted: false };
  }
  const add = propagationFinalizer(d.opts.propagationPolicy);
  const grace = graceFor(desc, obj, d.gracePeriod);
  if ((obj.metadata.finalizers ?? []).length === 0 && !add && grace <= 0) return { object: obj, deleted: true };
  return { object: markedForDeletion(obj, add, grace, new Date(ctx.now())), deleted: false };
}

export async function deleteOne(r: ResourceRequest): Promise<void> {
  const { ctx, res, desc, p } = r;
  const d = await deleteOptions(r);
  const obj = current(ctx.store, desc, p);
  const present = presenter(desc, p.version);
  const result = d.dryRun ? dryRunDelete(ctx, desc, obj, d) : deleteObject(ctx, desc, obj, d);
  if (result.deleted) {
    return sendJson(res, 200, success({ name: p.name, group: desc.group, kind: desc.plural, uid: obj.metadata.uid }));
  }
  // Still there: finalizers or a graceful pod deletion; the answer is the object being deleted.
  sendJson(res, 200, encodeObject(present(result.object)));
}

export async function deleteCollection(r: ResourceRequest): Promise<void> {
  const { ctx, res, url, desc, p } = r;
  const d = await deleteOptions(r);
  const sel = selector(desc, p.version, url.searchParams);
  const present = presenter(desc, p.version);
  const items = ctx.store.list(storageApiVersion(desc), desc.kind, { namespace: p.namespace, labels: sel.labels }).filter(sel.match);
  const out: KubeObject[] = [];
  for (const o of items) {
    if (d.dryRun) out.push(o);
    else {
      try {
        out.push(deleteObject(ctx, desc, o, d).object);
      } catch {
        // Deleted meanwhile (e.g. by the garbage collector).
      }
    }
  }
  sendJson(res, 200, `${listHead(desc, p.version, { resourceVersion: ctx.store.resourceVersion() })}${out.map((o) => encodeObject(present(o))).join(',')}]}`);
}
