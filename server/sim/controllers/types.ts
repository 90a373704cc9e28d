/**
 * The few Kubernetes shapes the simulated controllers read and write. Deliberately partial: objects in the
 * store are plain JSON, and each controller only names the fields it touches.
 */

import type { KubeObject, ObjectMeta, OwnerReference } from '../store/object-store.ts';

export type { KubeObject, ObjectMeta, OwnerReference };

export type Dict = Record<string, unknown>;
export type StringMap = Record<string, string>;

export interface ResourceRequirements {
  limits?: Record<string, string | number>;
  requests?: Record<string, string | number>;
  [key: string]: unknown;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: unknown;
}

export interface ContainerPort {
  name?: string;
  containerPort: number;
  protocol?: string;
}

export interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  ports?: ContainerPort[];
  resources?: ResourceRequirements;
  readinessProbe?: unknown;
  livenessProbe?: unknown;
  startupProbe?: unknown;
  restartPolicy?: string;
  [key: string]: unknown;
}

export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  restartPolicy?: 'Always' | 'OnFailure' | 'Never';
  nodeName?: string;
  nodeSelector?: StringMap;
  affinity?: Dict;
  tolerations?: Toleration[];
  schedulingGates?: Array<{ name: string }>;
  hostname?: string;
  subdomain?: string;
  schedulerName?: string;
  priority?: number;
  overhead?: Record<string, string>;
  [key: string]: unknown;
}

export interface PodTemplateSpec {
  metadata?: { labels?: StringMap; annotations?: StringMap; name?: string; [key: string]: unknown };
  spec: PodSpec;
}

/** The Kubernetes core condition shape (Pod, Job, Deployment …). */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastUpdateTime?: string;
  lastProbeTime?: string | null;
  observedGeneration?: number;
  severity?: string;
}

export interface ContainerState {
  waiting?: { reason: string; message?: string };
  running?: { startedAt: string };
  terminated?: { exitCode: number; reason: string; message?: string; startedAt?: string; finishedAt?: string; containerID?: string };
}

export interface ContainerStatus {
  name: string;
  ready: boolean;
  started?: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
  state: ContainerState;
  lastState: ContainerState;
  [key: string]: unknown;
}

export interface PodStatus {
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  conditions?: Condition[];
  hostIP?: string;
  hostIPs?: Array<{ ip: string }>;
  podIP?: string;
  podIPs?: Array<{ ip: string }>;
  startTime?: string;
  qosClass?: string;
  containerStatuses?: ContainerStatus[];
  initContainerStatuses?: ContainerStatus[];
  message?: string;
  reason?: string;
  [key: string]: unknown;
}

export interface Pod extends KubeObject {
  spec: PodSpec;
  status?: PodStatus;
}

export interface LabelSelector {
  matchLabels?: StringMap;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

/** Reads `obj.spec` / `obj.status` with a chosen partial type (objects in the store are untyped JSON). */
export function specOf<T>(obj: KubeObject): T {
  return (obj.spec ?? {}) as T;
}

export function statusOf<T>(obj: KubeObject): T {
  return (obj.status ?? {}) as T;
}
