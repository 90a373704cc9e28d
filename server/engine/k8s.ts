/** Reading the parts of Kubernetes objects the engine needs, tolerating objects of unexpected shape. */

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: Array<{ apiVersion?: string; kind?: string; name?: string; uid?: string; controller?: boolean }>;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    resourceVersion?: string;
    [k: string]: unknown;
  };
  spec?: unknown;
  status?: unknown;
  [k: string]: unknown;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function meta(o: KubeObject): NonNullable<KubeObject['metadata']> {
  return isRecord(o.metadata) ? o.metadata : {};
}

export function objectName(o: KubeObject): string {
  const m = meta(o);
  return typeof m.name === 'string' ? m.name : '';
}

export function objectNamespace(o: KubeObject): string {
  const m = meta(o);
  return typeof m.namespace === 'string' ? m.namespace : '';
}

/** `Pod default/train-0`, for messages. */
export function describeObject(o: KubeObject): string {
  const ns = objectNamespace(o);
  return `${typeof o.kind === 'string' ? o.kind : 'object'} ${ns ? `${ns}/` : ''}${objectName(o) || '(unnamed)'}`;
}

export function apiGroupOf(apiVersion: unknown): string {
  if (typeof apiVersion !== 'string') return '';
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

export function isPod(o: KubeObject): boolean {
  return o.kind === 'Pod' && (o.apiVersion === 'v1' || o.apiVersion === undefined);
}

export function podPhase(pod: KubeObject): string {
  const s = isRecord(pod.status) ? pod.status : {};
  return typeof s.phase === 'string' && s.phase ? s.phase : 'Pending';
}

export function podIsFinished(pod: KubeObject): boolean {
  const p = podPhase(pod);
  return p === 'Succeeded' || p === 'Failed';
}

/** Being deleted: still holds its node's resources, but no longer part of the workload's demand. */
export function podIsTerminating(pod: KubeObject): boolean {
  return typeof meta(pod).deletionTimestamp === 'string';
}

export function podNode(pod: KubeObject): string | null {
  const s = isRecord(pod.spec) ? pod.spec : {};
  return typeof s.nodeName === 'string' && s.nodeName ? s.nodeName : null;
}

export function podReady(pod: KubeObject): boolean {
  const s = isRecord(pod.status) ? pod.status : {};
  if (!Array.isArray(s.conditions)) return false;
  return s.conditions.some((c) => isRecord(c) && c.type === 'Ready' && c.status === 'True');
}

export function podRestarts(pod: KubeObject): number {
  const s = isRecord(pod.status) ? pod.status : {};
  let n = 0;
  for (const list of [s.containerStatuses, s.initContainerStatuses]) {
    if (!Array.isArray(list)) continue;
    for (const cs of list) if (isRecord(cs) && typeof cs.restartCount === 'number') n += cs.restartCount;
  }
  return n;
}
