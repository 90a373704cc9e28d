/** What the cluster layer knows of objects: their envelope. It knows no definitions. */

export interface ClusterObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    annotations?: Record<string, string>;
    ownerReferences?: Array<{ apiVersion?: string; kind?: string; name?: string; uid?: string; controller?: boolean }>;
    [k: string]: unknown;
  };
  [k: string]: unknown;
}

/** One served resource, e.g. `{group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment'}`. */
export interface ServedResource {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  /** `jobset`; kubectl accepts it, the plural, the kind and the short names (`lws`) as the resource's name. */
  singular?: string;
  shortNames?: string[];
}

/** `apps/Deployment`, `/Pod`: how kinds are named across versions. */
export function groupKind(group: string, kind: string): string {
  return `${group}/${kind}`;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/**
 * Whom a request is sent as, when not as the kubeconfig context itself: a user's own bearer token,
 * or that user impersonated from the context's account (which needs the `impersonate` verb).
 */
export type ActAs = { kind: 'bearer'; token: string } | { kind: 'impersonate'; user: string; groups: string[]; uid?: string };
