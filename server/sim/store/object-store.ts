/**
 * The simulated cluster's object store, shared by the API server (which serves it over HTTP)
 * and the simulated controllers (which read and write it directly, as in-process operators).
 */

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  [key: string]: unknown;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
  /**
   * The state before this change (MODIFIED and DELETED). The API server needs it to turn a label change
   * into ADDED/DELETED for selector-filtered watches, as the real watch cache does.
   */
  previous?: KubeObject;
}

/** Options of a delete, as in the API's DeleteOptions. */
export interface DeleteOptions {
  /** Background (default): delete now, GC removes dependents. Foreground: dependents first. Orphan: keep them. */
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  preconditions?: { uid?: string; resourceVersion?: string };
  /**
   * Seconds before a graceful delete completes (pods on a node). 0 or absent = at once, which is what
   * in-process callers (controllers, the simulated kubelet finishing a termination) want.
   */
  gracePeriodSeconds?: number;
}

export interface DeleteResult {
  /** The removed object (deleted) or the object now marked for deletion (finalizers, foreground, grace). */
  object: KubeObject;
  deleted: boolean;
}

export interface ListOptions {
  /** Omit for all namespaces (or for cluster-scoped kinds). */
  namespace?: string;
  /** Equality match on labels (every entry must hold). */
  labels?: Record<string, string>;
}

/** A failed store operation, carrying the HTTP status the API server answers with. */
export class StoreError extends Error {
  readonly status: number;
  readonly reason: 'NotFound' | 'AlreadyExists' | 'Conflict' | 'Invalid' | 'BadRequest' | 'Forbidden' | 'Expired';
  constructor(status: number, reason: StoreError['reason'], message: string) {
    super(message);
    this.status = status;
    this.reason = reason;
  }
}

/**
 * Objects returned by the store (get, list, events) are the stored objects themselves, deeply frozen:
 * reads are free, and a caller that mutates one gets a TypeError instead of corrupting the store.
 * Copy before editing (`structuredClone(obj)`), then pass the copy to update/updateStatus.
 */
export interface ObjectStore {
  /** Stores a new object: assigns uid, resourceVersion, creationTimestamp, generation (and a name from generateName). */
  create(obj: KubeObject): KubeObject;
  get(apiVersion: string, kind: string, namespace: string | undefined, name: string): KubeObject | undefined;
  list(apiVersion: string, kind: string, opts?: ListOptions): KubeObject[];
  /**
   * Replaces an object. When `metadata.resourceVersion` is set it must match (else Conflict).
   * Spec changes bump `generation`; a write that changes nothing emits no event and keeps the resourceVersion.
   */
  update(obj: KubeObject): KubeObject;
  /** Replaces only `.status` of the stored object. */
  updateStatus(obj: KubeObject): KubeObject;
  /** Deletes an object; dependents (by ownerReferences uid) are garbage-collected in the background. */
  delete(apiVersion: string, kind: string, namespace: string | undefined, name: string, options?: DeleteOptions): DeleteResult;
  /** Every change of every kind, in resourceVersion order. Returns an unsubscribe function. */
  subscribe(handler: (event: WatchEvent) => void): () => void;
  /** The current global resourceVersion. */
  resourceVersion(): string;
}
