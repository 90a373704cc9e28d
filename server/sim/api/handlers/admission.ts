/**
 * Admission and the create/update strategies of the real server: bodies checked against the URL,
 * NamespaceLifecycle, the defaults some kinds get on create, and what the main endpoint of a kind
 * with a status subresource may not change.
 */

import type { MemoryStore } from '../../store/memory-store.ts';
import type { KubeObject } from '../../store/object-store.ts';
import { isPlainObject } from '../../store/object-utils.ts';
import { validateCrd } from '../crd.ts';
import type { ResourceDescriptor } from '../registry.ts';
import type { ResourcePath } from '../request.ts';
import { ApiError, badRequest } from '../status.ts';
import { apiVersionOf, resourceName } from './resource.ts';

/** Checks and completes an object from a request body for the resource in the URL. */
export function normalizeBody(desc: ResourceDescriptor, p: ResourcePath, body: unknown): KubeObject {
  if (!isPlainObject(body)) throw badRequest('the body of the request must be an object');
  const obj = body as KubeObject;
  const av = apiVersionOf(desc, p.version);
  if (obj.kind === undefined) obj.kind = desc.kind;
  if (obj.apiVersion === undefined) obj.apiVersion = av;
  if (obj.kind !== desc.kind || (obj.apiVersion !== av && !servesApiVersion(desc, obj.apiVersion))) {
    throw badRequest(`the API version in the data (${obj.apiVersion}) does not match the expected API version (${av})`);
  }
  if (!isPlainObject(obj.metadata)) obj.metadata = {};
  if (desc.namespaced) {
    const ns = obj.metadata.namespace;
    if (ns && p.namespace && ns !== p.namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    if (p.namespace) obj.metadata.namespace = p.namespace;
    if (!obj.metadata.namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  } else delete obj.metadata.namespace;
  delete obj.metadata.managedFields;
  return obj;
}

/** Whether one of the resource's served versions is this apiVersion. */
export function servesApiVersion(desc: ResourceDescriptor, apiVersion: string): boolean {
  return desc.versions.some((v) => apiVersionOf(desc, v) === apiVersion);
}

/** NamespaceLifecycle admission, then the create strategy: what a new object goes into the store as. */
export function admitCreate(store: MemoryStore, desc: ResourceDescriptor, obj: KubeObject): void {
  admitNamespace(store, desc, obj);
  prepareForCreate(desc, obj);
}

/** NamespaceLifecycle admission: the namespace must exist and not be terminating. */
function admitNamespace(store: MemoryStore, desc: ResourceDescriptor, obj: KubeObject): void {
  if (!desc.namespaced) return;
  const ns = store.get('v1', 'Namespace', undefined, obj.metadata.namespace!);
  if (!ns) throw new ApiError(404, 'NotFound', `namespaces "${obj.metadata.namespace}" not found`, { name: obj.metadata.namespace, kind: 'namespaces' });
  if (ns.metadata.deletionTimestamp) {
    throw new ApiError(403, 'Forbidden', `${resourceName(desc)} "${obj.metadata.name ?? obj.metadata.generateName ?? ''}" is forbidden: unable to create new content in namespace ${obj.metadata.namespace} because it is being terminated`, { name: obj.metadata.name, group: desc.group, kind: desc.plural, causes: [{ type: 'NamespaceTerminating', message: `namespace ${obj.metadata.namespace} is being terminated`, field: 'metadata.namespace' }] });
  }
}

/** What the real create strategies do to a new object of some kinds. */
function prepareForCreate(desc: ResourceDescriptor, obj: KubeObject): void {
  if (!desc.builtin && desc.subresources.includes('status')) delete obj.status;
  const key = `${desc.group}/${desc.kind}`;
  if (key === '/Namespace') {
    obj.spec = { finalizers: ['kubernetes'] };
    obj.status = { phase: 'Active' };
  } else if (key === '/Pod') {
    const spec = (isPlainObject(obj.spec) ? obj.spec : (obj.spec = {})) as Record<string, unknown>;
    spec.restartPolicy ??= 'Always';
    spec.schedulerName ??= 'default-scheduler';
    spec.terminationGracePeriodSeconds ??= 30;
    spec.dnsPolicy ??= 'ClusterFirst';
    obj.status = { phase: 'Pending', qosClass: 'BestEffort' };
  } else if (key === '/Service') {
    const spec = (isPlainObject(obj.spec) ? obj.spec : (obj.spec = {})) as Record<string, unknown>;
    spec.type ??= 'ClusterIP';
    if (spec.clusterIP === undefined && spec.type !== 'ExternalName') spec.clusterIP = allocateClusterIp();
  } else if (key === '/Secret') {
    // stringData is write-only: merged into data, as the Secret strategy does.
    if (isPlainObject(obj.stringData)) {
      const data = (isPlainObject(obj.data) ? obj.data : (obj.data = {})) as Record<string, unknown>;
      for (const [k, v] of Object.entries(obj.stringData)) data[k] = Buffer.from(String(v)).toString('base64');
    }
    delete obj.stringData;
    obj.type ??= 'Opaque';
  } else if (key === 'apiextensions.k8s.io/CustomResourceDefinition') {
    const err = validateCrd(obj);
    if (err) throw err;
    delete obj.status;
  } else if (desc.builtin && desc.subresources.includes('status') && key !== '/Node' && key !== '/PersistentVolume') {
    delete obj.status;
  }
}

/** The update strategy of the main endpoint (not the status subresource). */
export function prepareForUpdate(desc: ResourceDescriptor, next: KubeObject, current: KubeObject): void {
  if (desc.subresources.includes('status') || desc.group === 'apiextensions.k8s.io') {
    // With a status subresource, the main endpoint cannot change status.
    if (current.status === undefined) delete next.status;
    else next.status = current.status;
  }
  if (desc.kind === 'CustomResourceDefinition' && desc.group === 'apiextensions.k8s.io') {
    const err = validateCrd(next);
    if (err) throw err;
  }
}

let nextIp = 1;
/** Cluster IPs from 10.96.0.0/12, in order (the real allocator picks at random; order keeps tests stable). */
function allocateClusterIp(): string {
  const n = nextIp++;
  return `10.96.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
}
