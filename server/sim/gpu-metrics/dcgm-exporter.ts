/**
 * NVIDIA's DCGM exporter as the GPU Operator deploys it — DaemonSet `nvidia-dcgm-exporter` in namespace
 * `gpu-operator` on every GPU node (`nvidia.com/gpu.present=true`, which GPU feature discovery sets exactly
 * where the node advertises NVIDIA GPUs), container port 9400 named `metrics`, and a Service of the same
 * name (port 9400 `gpu-metrics`) — and the server the simulation runs in process for each exporter pod's
 * port 9400: `/metrics` renders its node's GPUs from the device tracker and the load model.
 */

import { Rng } from '../controllers/random.ts';
import { service } from '../controllers/services.ts';
import type { InProcessHandler, InProcessResponse, PodServer } from '../api/proxy-targets.ts';
import type { KubeObject, ObjectStore } from '../store/object-store.ts';
import { StoreError } from '../store/object-store.ts';
import { deviceTrackerFor } from './device-tracker.ts';
import { EXPOSITION_CONTENT_TYPE, renderExposition } from './exposition.ts';
import { nodeUsage } from './gpu-usage.ts';

export const DCGM_NAMESPACE = 'gpu-operator';
export const DCGM_NAME = 'nvidia-dcgm-exporter';
export const DCGM_PORT = 9400;
export const DCGM_LABELS = { app: DCGM_NAME, 'app.kubernetes.io/name': 'dcgm-exporter', 'app.kubernetes.io/managed-by': 'gpu-operator' } as const;

const IMAGE = 'nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3-4.1.3-ubuntu22.04';

/** The objects the GPU Operator creates for the exporter (namespace, service account, DaemonSet, Service). */
export function dcgmExporterObjects(): KubeObject[] {
  const svc = service({
    name: DCGM_NAME,
    namespace: DCGM_NAMESPACE,
    labels: { app: DCGM_NAME },
    annotations: { 'prometheus.io/scrape': 'true' },
    selector: { app: DCGM_NAME },
    ports: [{ name: 'gpu-metrics', port: DCGM_PORT, targetPort: DCGM_PORT, protocol: 'TCP' }],
    rng: new Rng(0x9400),
  });
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: DCGM_NAMESPACE, labels: { 'kubernetes.io/metadata.name': DCGM_NAMESPACE, 'pod-security.kubernetes.io/enforce': 'privileged' } }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DCGM_NAME, namespace: DCGM_NAMESPACE, labels: { app: DCGM_NAME } } },
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: DCGM_NAME, namespace: DCGM_NAMESPACE, labels: { app: DCGM_NAME, 'app.kubernetes.io/managed-by': 'gpu-operator', 'helm.sh/chart': 'gpu-operator-v25.3.0' }, annotations: { 'openshift.io/scc': 'nvidia-dcgm-exporter' } },
      spec: {
        selector: { matchLabels: { app: DCGM_NAME } },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
        template: {
          metadata: { labels: { ...DCGM_LABELS } },
          spec: {
            nodeSelector: { 'nvidia.com/gpu.present': 'true' },
            tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
            priorityClassName: 'system-node-critical',
            runtimeClassName: 'nvidia',
            serviceAccountName: DCGM_NAME,
            containers: [
              {
                name: DCGM_NAME,
                image: IMAGE,
                env: [
                  { name: 'DCGM_EXPORTER_LISTEN', value: `:${DCGM_PORT}` },
                  { name: 'DCGM_EXPORTER_KUBERNETES', value: 'true' },
                  { name: 'DCGM_EXPORTER_COLLECTORS', value: '/etc/dcgm-exporter/dcp-metrics-included.csv' },
                ],
                ports: [{ name: 'metrics', containerPort: DCGM_PORT, protocol: 'TCP' }],
                readinessProbe: { httpGet: { path: '/health', port: DCGM_PORT, scheme: 'HTTP' }, initialDelaySeconds: 45, periodSeconds: 5 },
                livenessProbe: { httpGet: { path: '/health', port: DCGM_PORT, scheme: 'HTTP' }, initialDelaySeconds: 45, periodSeconds: 5 },
                securityContext: { privileged: true },
                volumeMounts: [{ name: 'pod-gpu-resources', mountPath: '/var/lib/kubelet/pod-resources', readOnly: true }],
              },
            ],
            volumes: [{ name: 'pod-gpu-resources', hostPath: { path: '/var/lib/kubelet/pod-resources', type: '' } }],
          },
        },
      },
    },
    svc,
  ];
}

/** Creates the exporter's objects that are missing (a restarted simulator keeps its own). */
export function installDcgmExporter(store: ObjectStore): void {
  for (const o of dcgmExporterObjects()) {
    if (store.get(o.apiVersion, o.kind, o.metadata.namespace, o.metadata.name!)) continue;
    try {
      store.create(o);
    } catch (e) {
      if (!(e instanceof StoreError && e.reason === 'AlreadyExists')) throw e;
    }
  }
}

export function isDcgmExporterPod(pod: KubeObject): boolean {
  return pod.metadata.namespace === DCGM_NAMESPACE && pod.metadata.labels?.app === DCGM_NAME;
}

export interface DcgmServerOptions {
  store: ObjectStore;
  seed: number;
  /** Simulated time (ms). */
  now: () => number;
}

/** The in-process server of every exporter pod's port 9400. */
export function dcgmPodServer(o: DcgmServerOptions): PodServer {
  return (pod, port) => {
    if (port !== DCGM_PORT || !isDcgmExporterPod(pod)) return undefined;
    const node = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
    const handler: InProcessHandler = (r): InProcessResponse => {
      if (r.path === '/metrics') {
        const gpus = node ? deviceTrackerFor(o.store).node(node) : undefined;
        const text = gpus ? renderExposition(nodeUsage(gpus, o.seed, o.now()), gpus.devices.driverVersion) : renderExposition([], '');
        return { status: 200, headers: { 'Content-Type': EXPOSITION_CONTENT_TYPE }, body: text };
      }
      if (r.path === '/health') return { status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: 'OK' };
      return { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' }, body: '404 page not found\n' };
    };
    return handler;
  };
}
