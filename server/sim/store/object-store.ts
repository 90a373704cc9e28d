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
  readonly reason: 'NotFound' | 'AlreadyExists' | 'Conflict' | 'Invalid' | 'BadRequest';
  constructor(status: number, reason: StoreError['reason'], message: string) {
    super(message);
    this.status = status;
    this.reason = reason;
  }
}

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
  delete(apiVersion: string, kind: string, namespace: string | undefined, name: string): void;
  /** Every change of every kind, in resourceVersion order. Returns an unsubscribe function. */
  subscribe(handler: (event: WatchEvent) => void): () => void;
  /** The current global resourceVersion. */
  resourceVersion(): string;
}
