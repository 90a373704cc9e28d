/**
 * Building pods from templates the way the API server's defaulting and admission plugins leave them
 * (restartPolicy, schedulerName, default tolerations, ExtendedResourceToleration, QoS class …), so that
 * pods created by the simulated controllers look like pods read from a real cluster.
 */

import { isGpuResource, containerRequests } from './quantity.ts';
import type { Container, EnvVar, OwnerReference, Pod, PodSpec, PodTemplateSpec, StringMap, Toleration } from './types.ts';
import { mergeMaps } from './meta.ts';

/** Annotations that steer the simulated kubelet (they are part of the workload's template, like any annotation). */
export const SIM = {
  /** Run time of the main containers: "90s", "10m", "5m-15m", or "forever". */
  duration: 'sim.workload-map.io/duration',
  /** Exit code at the end of the run (default 0). */
  exitCode: 'sim.workload-map.io/exit-code',
  /** Termination reason of a failing exit (default Error), e.g. "OOMKilled" with exit code 137. */
  exitReason: 'sim.workload-map.io/exit-reason',
  /** Image pull + start time override, e.g. "30s". */
  startup: 'sim.workload-map.io/startup',
  /** "fail": the image cannot be pulled (ErrImagePull, then ImagePullBackOff). */
  imagePull: 'sim.workload-map.io/image-pull',
} as const;

export interface PodArgs {
  namespace: string;
  name?: string;
  generateName?: string;
  template: PodTemplateSpec;
  labels?: StringMap;
  annotations?: StringMap;
  ownerRef?: OwnerReference;
  finalizers?: string[];
  hostname?: string;
  subdomain?: string;
  /** Environment added to every container (and init container), before the template's own. */
  env?: EnvVar[];
  schedulingGates?: string[];
  restartPolicy?: PodSpec['restartPolicy'];
}

const DEFAULT_TOLERATIONS: Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
];

function defaultContainer(c: Container, env: EnvVar[] | undefined): Container {
  const image = c.image ?? 'busybox:latest';
  const out: Container = {
    ...c,
    image,
    imagePullPolicy: (c.imagePullPolicy as string | undefined) ?? (image.endsWith(':latest') || !image.includes(':') ? 'Always' : 'IfNotPresent'),
    terminationMessagePath: (c.terminationMessagePath as string | undefined) ?? '/dev/termination-log',
    terminationMessagePolicy: (c.terminationMessagePolicy as string | undefined) ?? 'File',
    resources: c.resources ?? {},
  };
  if (env && env.length > 0) {
    const own = new Set((c.env ?? []).map((e) => e.name));
    out.env = [...env.filter((e) => !own.has(e.name)), ...(c.env ?? [])];
  }
  return out;
}

/** The QoS class the API server computes for a pod spec. */
export function qosClass(spec: PodSpec): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const all = [...(spec.containers ?? []), ...(spec.initContainers ?? [])];
  let any = false;
  let guaranteed = true;
  for (const c of all) {
    const lim = c.resources?.limits ?? {};
    const req = c.resources?.requests ?? {};
    for (const r of ['cpu', 'memory']) {
      const l = lim[r];
      const q = req[r] ?? l;
      if (l !== undefined || q !== undefined) any = true;
      if (l === undefined || String(q) !== String(l)) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/**
 * ExtendedResourceToleration admission: a pod requesting an extended resource tolerates taints keyed by
 * that resource name (how GPU node pools tainted `nvidia.com/gpu:NoSchedule` admit GPU pods).
 */
function extendedResourceTolerations(spec: PodSpec): Toleration[] {
  const names = new Set<string>();
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    for (const r in containerRequests(c)) if (isGpuResource(r)) names.add(r);
  }
  return [...names].sort().map((key) => ({ key, operator: 'Exists', effect: 'NoSchedule' }));
}

export function buildPod(a: PodArgs): Pod {
  const t = a.template;
  const ts = t.spec ?? { containers: [] };
  const spec: PodSpec = {
    ...ts,
    containers: (ts.containers ?? []).map((c) => defaultContainer(c, a.env)),
    restartPolicy: a.restartPolicy ?? ts.restartPolicy ?? 'Always',
    schedulerName: ts.schedulerName ?? 'default-scheduler',
    terminationGracePeriodSeconds: (ts.terminationGracePeriodSeconds as number | undefined) ?? 30,
    dnsPolicy: (ts.dnsPolicy as string | undefined) ?? 'ClusterFirst',
    serviceAccountName: (ts.serviceAccountName as string | undefined) ?? 'default',
    serviceAccount: (ts.serviceAccountName as string | undefined) ?? 'default',
    securityContext: (ts.securityContext as object | undefined) ?? {},
    enableServiceLinks: (ts.enableServiceLinks as boolean | undefined) ?? true,
    priority: ts.priority ?? 0,
    preemptionPolicy: (ts.preemptionPolicy as string | undefined) ?? 'PreemptLowerPriority',
  };
  if (ts.initContainers) spec.initContainers = ts.initContainers.map((c) => defaultContainer(c, a.env));
  const tolerations = [...(ts.tolerations ?? [])];
  for (const tol of [...extendedResourceTolerations(spec), ...DEFAULT_TOLERATIONS]) {
    if (!tolerations.some((x) => x.key === tol.key && x.effect === tol.effect)) tolerations.push(tol);
  }
  spec.tolerations = tolerations;
  if (a.hostname !== undefined) spec.hostname = a.hostname;
  if (a.subdomain !== undefined) spec.subdomain = a.subdomain;
  if (a.schedulingGates && a.schedulingGates.length > 0) spec.schedulingGates = a.schedulingGates.map((name) => ({ name }));
  const labels = mergeMaps(t.metadata?.labels, a.labels);
  const annotations = mergeMaps(t.metadata?.annotations, a.annotations);
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      namespace: a.namespace,
      ...(a.name ? { name: a.name } : {}),
      ...(a.generateName ? { generateName: a.generateName } : {}),
      ...(labels ? { labels } : {}),
      ...(annotations ? { annotations } : {}),
      ...(a.ownerRef ? { ownerReferences: [a.ownerRef] } : {}),
      ...(a.finalizers && a.finalizers.length > 0 ? { finalizers: a.finalizers } : {}),
    },
    spec,
    status: { phase: 'Pending', qosClass: qosClass(spec) },
  };
  return pod;
}

/** Deep-enough copy of a template with extra labels/annotations (for controllers that stamp templates). */
export function stampTemplate(t: PodTemplateSpec, labels?: StringMap, annotations?: StringMap): PodTemplateSpec {
  const l = mergeMaps(t.metadata?.labels, labels);
  const an = mergeMaps(t.metadata?.annotations, annotations);
  return {
    ...t,
    metadata: { ...(t.metadata ?? {}), ...(l ? { labels: l } : {}), ...(an ? { annotations: an } : {}) },
    spec: t.spec,
  };
}

/** Adds env vars to a container, after its own; a name it sets already keeps the container's value. */
export function addEnv(c: Container, env: EnvVar[]): Container {
  const own = new Set((c.env ?? []).map((e) => e.name));
  return { ...c, env: [...(c.env ?? []), ...env.filter((e) => !own.has(e.name))] };
}

/** Adds env vars to every container of a template (operators injecting MASTER_ADDR, LWS_* …). */
export function withEnv(t: PodTemplateSpec, env: EnvVar[]): PodTemplateSpec {
  const addTo = (c: Container): Container => addEnv(c, env);
  return {
    ...t,
    spec: {
      ...t.spec,
      containers: (t.spec?.containers ?? []).map(addTo),
      ...(t.spec?.initContainers ? { initContainers: t.spec.initContainers.map(addTo) } : {}),
    },
  };
}
