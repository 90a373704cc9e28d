/**
 * What the API server's proxy can reach in a simulated cluster, which has no pod network: servers that
 * the simulation runs in process for some pods' ports (the DCGM exporters), and external HTTP backends
 * registered for a Service port (a real Prometheus started next to the simulator).
 */

import type { IncomingHttpHeaders } from 'node:http';
import type { KubeObject, ObjectStore } from '../store/object-store.ts';

export interface InProcessRequest {
  method: string;
  /** The path after `/proxy` (at least `/`). */
  path: string;
  /** The query string without `?` (may be empty). */
  query: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface InProcessResponse {
  status: number;
  headers?: Record<string, string>;
  body: string | Buffer;
}

export type InProcessHandler = (r: InProcessRequest) => InProcessResponse | Promise<InProcessResponse>;

/** Finds the in-process server listening on a pod's port, if the simulation runs one there. */
export type PodServer = (pod: KubeObject, port: number) => InProcessHandler | undefined;

/** External backends of Service ports, keyed `namespace/name:port` (the Service's port number). */
export class ServiceBackends {
  private readonly urls = new Map<string, string>();

  constructor(initial: Record<string, string> = {}) {
    for (const [k, v] of Object.entries(initial)) this.set(k, v);
  }

  /** Registers (or with `undefined` removes) a backend; the key must read `namespace/name:port`. */
  set(key: string, url: string | undefined): void {
    const parsed = parseBackendKey(key);
    const k = `${parsed.namespace}/${parsed.name}:${parsed.port}`;
    if (url === undefined) {
      this.urls.delete(k);
      return;
    }
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`service backend ${key}: ${url} is not an http(s) URL`);
    this.urls.set(k, url.replace(/\/+$/, ''));
  }

  get(namespace: string, name: string, port: number): string | undefined {
    return this.urls.get(`${namespace}/${name}:${port}`);
  }
}

export function parseBackendKey(key: string): { namespace: string; name: string; port: number } {
  const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-a-z0-9]*[a-z0-9])?):(\d{1,5})$/.exec(key);
  const port = m ? Number(m[5]) : 0;
  if (!m || port < 1 || port > 65535) throw new Error(`service backend key "${key}" must read namespace/name:port (e.g. monitoring/prometheus-k8s:9090)`);
  return { namespace: m[1], name: m[3], port };
}

/** Marks a Service the simulator created for an external backend (removed again with the backend). */
export const BACKEND_ANNOTATION = 'sim.workload-map.dev/external-backend';

/** kube-prometheus's labels on its Prometheus Service, which clients discovering Prometheus look for. */
function prometheusLabels(name: string): Record<string, string> {
  const instance = name.replace(/^prometheus-?/, '') || 'k8s';
  return { 'app.kubernetes.io/name': 'prometheus', 'app.kubernetes.io/component': 'prometheus', 'app.kubernetes.io/instance': instance, 'app.kubernetes.io/part-of': 'kube-prometheus' };
}

/**
 * The Service an external backend stands behind, as its real deployment would name it: a selector-less
 * ClusterIP Service with the port of the key (`web` for a Prometheus, else `http`) and the usual labels.
 */
export function backendServiceObject(key: string): KubeObject {
  const { namespace, name, port } = parseBackendKey(key);
  const prometheus = name.includes('prometheus');
  const ip = `10.96.${(port >> 8) & 0xff}.${(port & 0xff) || 1}`;
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, labels: prometheus ? prometheusLabels(name) : { 'app.kubernetes.io/name': name }, annotations: { [BACKEND_ANNOTATION]: 'true' } },
    spec: {
      type: 'ClusterIP',
      clusterIP: ip,
      clusterIPs: [ip],
      ports: [{ name: prometheus ? 'web' : 'http', port, protocol: 'TCP', targetPort: prometheus ? 'web' : port }],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
      sessionAffinity: 'None',
    },
    status: { loadBalancer: {} },
  };
}

/**
 * Registers (or with `undefined` removes) a backend, and keeps its Service: created with its namespace
 * when missing (so clients discovering it by listing Services find it), deleted with the backend when
 * the simulator created it. An existing Service of the cluster's own is left as it is.
 */
export function registerServiceBackend(store: ObjectStore, backends: ServiceBackends, key: string, url: string | undefined): void {
  const { namespace, name } = parseBackendKey(key);
  backends.set(key, url);
  const existing = store.get('v1', 'Service', namespace, name);
  if (url === undefined) {
    if (existing?.metadata.annotations?.[BACKEND_ANNOTATION] === 'true') store.delete('v1', 'Service', namespace, name);
    return;
  }
  if (existing) return;
  if (!store.get('v1', 'Namespace', undefined, namespace)) {
    store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, labels: { 'kubernetes.io/metadata.name': namespace } }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
  }
  store.create(backendServiceObject(key));
}
