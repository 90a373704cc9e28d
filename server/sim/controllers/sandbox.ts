/**
 * The Agent Sandbox controller (kubernetes-sigs/agent-sandbox, agents.x-k8s.io/v1beta1): per Sandbox one PVC
 * `<claim>-<name>` per volumeClaimTemplate, one Pod named like the Sandbox (the template's labels plus
 * `agents.x-k8s.io/sandbox-name-hash` = FNV-1a of the name, the claims mounted as volumes), a headless
 * Service `<name>` when `.spec.service` is true; all controlled by the Sandbox. The pod is never recreated:
 * a pod that ended leaves the Sandbox Finished. `operatingMode: Suspended` deletes the pod (volumes and
 * Service stay); `shutdownTime` deletes pod and Service for good (Ready False, SandboxExpired; the object is
 * deleted too with shutdownPolicy Delete). Status: Suspended, PodScheduled (mirrored), Finished and Ready
 * conditions, serviceFQDN, service, selector, podIPs, nodeName.
 */

import { ctrlRef, getCondition, isPodReady, removeCondition, setCondition } from './meta.ts';
import { buildPod } from './pods.ts';
import type { Controller, Runtime } from './runtime.ts';
import { service } from './services.ts';
import type { Condition, KubeObject, Pod, PodSpec, StringMap } from './types.ts';

export const SANDBOX_API = 'agents.x-k8s.io/v1beta1';
export const NAME_HASH_LABEL = 'agents.x-k8s.io/sandbox-name-hash';

export interface SandboxSpec {
  podTemplate: { metadata?: { labels?: StringMap; annotations?: StringMap }; spec: PodSpec };
  volumeClaimTemplates?: Array<{ metadata: { name: string; labels?: StringMap; annotations?: StringMap }; spec: Record<string, unknown> }>;
  service?: boolean;
  operatingMode?: 'Running' | 'Suspended';
  shutdownTime?: string;
  shutdownPolicy?: 'Delete' | 'Retain';
}

/** FNV-1a (32 bit) of the name as 8 hex digits: the controller's tracking label value. */
export function nameHash(name: string): string {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(name, 'utf8')) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** The pod the controller creates for a Sandbox (before admission and scheduling). */
export function sandboxPod(sb: KubeObject): Pod {
  const spec = sb.spec as SandboxSpec;
  const name = sb.metadata.name!;
  const tl = spec.podTemplate.metadata?.labels ?? {};
  const propagated = Object.keys(tl).filter((k) => !k.startsWith('agents.x-k8s.io/'));
  const claims = (spec.volumeClaimTemplates ?? []).map((t) => ({ name: t.metadata.name, persistentVolumeClaim: { claimName: `${t.metadata.name}-${name}` } }));
  const own = (spec.podTemplate.spec.volumes ?? []) as Array<{ name: string }>;
  const volumes = [...own.filter((v) => !claims.some((c) => c.name === v.name)), ...claims];
  const annotations: StringMap = { ...(spec.podTemplate.metadata?.annotations ?? {}) };
  if (propagated.length) annotations['agents.x-k8s.io/propagated-labels'] = propagated.sort().join(',');
  return buildPod({
    namespace: sb.metadata.namespace!,
    name,
    template: { metadata: { labels: tl }, spec: { ...spec.podTemplate.spec, ...(volumes.length ? { volumes } : {}) } },
    labels: { [NAME_HASH_LABEL]: nameHash(name) },
    ...(Object.keys(annotations).length ? { annotations } : {}),
    ownerRef: ctrlRef(sb),
  });
}

export interface SandboxObserved {
  pod?: Pod;
  service: boolean;
}

/** The conditions the controller computes from what it found (computeConditions). */
export function sandboxConditions(sb: KubeObject, seen: SandboxObserved, prev: Condition[] | undefined, now: string): Condition[] {
  const spec = sb.spec as SandboxSpec;
  const gen = sb.metadata.generation ?? 1;
  const suspendedMode = spec.operatingMode === 'Suspended';
  const pod = seen.pod;
  let out = [...(prev ?? [])];
  const suspended: Condition = !suspendedMode
    ? { type: 'Suspended', status: 'False', reason: 'NotSuspended', message: 'Sandbox is not suspended' }
    : pod
      ? { type: 'Suspended', status: 'False', reason: 'PodTerminating', message: 'Pod is terminating. Sandbox is suspending' }
      : { type: 'Suspended', status: 'True', reason: 'PodTerminated', message: 'Pod has been terminated. Sandbox is suspended' };
  out = setCondition(out, { ...suspended, observedGeneration: gen }, now);
  const phase = pod?.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') {
    const r = phase === 'Succeeded' ? ['PodSucceeded', 'Pod completed successfully'] : ['PodFailed', 'Pod failed'];
    out = setCondition(out, { type: 'Finished', status: 'True', reason: r[0], message: r[1], observedGeneration: gen }, now);
  } else out = removeCondition(out, 'Finished');
  const scheduled = pod && getCondition(pod, 'PodScheduled');
  if (pod) {
    out = setCondition(out, scheduled
      ? { type: 'PodScheduled', status: scheduled.status, reason: scheduled.reason || (scheduled.status === 'True' ? 'PodScheduled' : 'PodSchedulingUnknown'), message: scheduled.message ?? '', observedGeneration: gen }
      : { type: 'PodScheduled', status: 'Unknown', reason: 'PodSchedulingUnknown', message: 'Pod has not reported a PodScheduled condition yet', observedGeneration: gen }, now);
  } else out = removeCondition(out, 'PodScheduled');
  let ready: Condition;
  if (suspendedMode) ready = { type: 'Ready', status: 'False', reason: 'SandboxSuspended', message: pod ? 'Sandbox is suspending' : 'Sandbox is suspended' };
  else if (phase === 'Succeeded') ready = { type: 'Ready', status: 'False', reason: 'PodSucceeded', message: 'Pod completed successfully' };
  else if (phase === 'Failed') ready = { type: 'Ready', status: 'False', reason: 'PodFailed', message: 'Pod failed' };
  else {
    const podReady = !!pod && phase === 'Running' && isPodReady(pod) && !!pod.status?.podIP;
    let message = !pod ? 'Pod does not exist' : phase === 'Running' ? (podReady ? 'Pod is Ready' : 'Pod is Running but not Ready') : `Pod exists with phase: ${phase ?? 'Pending'}`;
    if (spec.service) message += seen.service ? '; Service Exists' : '; Service does not exist';
    const ok = podReady && (!spec.service || seen.service);
    ready = ok ? { type: 'Ready', status: 'True', reason: 'DependenciesReady', message } : { type: 'Ready', status: 'False', reason: 'DependenciesNotReady', message };
  }
  return setCondition(out, { ...ready, observedGeneration: gen }, now);
}

export class SandboxController implements Controller {
  readonly name = 'sandbox';
  readonly primary = 'agents.x-k8s.io/Sandbox';
  readonly priority = 2;
  readonly owns = ['/Pod', '/Service'];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const sb = rt.get(SANDBOX_API, 'Sandbox', ns, name);
    if (!sb || sb.metadata.deletionTimestamp) return;
    const spec = sb.spec as SandboxSpec;
    const prev = (sb.status ?? {}) as { conditions?: Condition[] };
    const hash = nameHash(name);
    const owned = (o: KubeObject | undefined): boolean => !!o?.metadata.ownerReferences?.some((r) => r.controller && r.uid === sb.metadata.uid);
    const pod = rt.get<Pod>('v1', 'Pod', ns, name);
    const svc = rt.get('v1', 'Service', ns, name);
    const expiry = spec.shutdownTime ? Date.parse(spec.shutdownTime) : undefined;
    if (expiry !== undefined && rt.nowMs() >= expiry) {
      // Expired: the pod and the Service go, the volumes stay; the object goes too with shutdownPolicy Delete.
      if (owned(pod)) rt.delete(pod!);
      if (owned(svc)) rt.delete(svc!);
      if (spec.shutdownPolicy === 'Delete') {
        rt.delete(sb);
        return;
      }
      let conds = removeCondition(prev.conditions, 'PodScheduled');
      conds = setCondition(conds, { type: 'Ready', status: 'False', reason: 'SandboxExpired', message: 'Sandbox has expired', observedGeneration: sb.metadata.generation ?? 1 }, rt.now());
      rt.setStatus(sb, { conditions: conds });
      return;
    }
    if (expiry !== undefined) rt.after(this, ns, name, Math.max(expiry - rt.nowMs(), 2000));
    for (const t of spec.volumeClaimTemplates ?? []) {
      rt.ensure({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: `${t.metadata.name}-${name}`, namespace: ns, labels: { ...(t.metadata.labels ?? {}), [NAME_HASH_LABEL]: hash }, ...(t.metadata.annotations ? { annotations: t.metadata.annotations } : {}), ownerReferences: [ctrlRef(sb)] },
        spec: t.spec,
        status: { phase: 'Bound', accessModes: (t.spec.accessModes as string[] | undefined) ?? ['ReadWriteOnce'], capacity: (t.spec.resources as { requests?: Record<string, string> } | undefined)?.requests ?? {} },
      });
    }
    let current: Pod | undefined = owned(pod) ? pod : undefined;
    if (spec.operatingMode === 'Suspended') {
      if (current && !current.metadata.deletionTimestamp) rt.delete(current);
      current = rt.get<Pod>('v1', 'Pod', ns, name);
      if (!owned(current)) current = undefined;
    } else if (!pod) {
      current = rt.createPod(sandboxPod(sb));
    }
    let service = owned(svc) ? svc : undefined;
    if (spec.service && !service) {
      service = rt.ensure(sandboxService(sb, hash));
    } else if (spec.service === false && service) {
      rt.delete(service);
      service = undefined;
    }
    const conditions = sandboxConditions(sb, { pod: current, service: !!service }, prev.conditions, rt.now());
    const ips = (current?.status as { podIPs?: Array<{ ip: string }> } | undefined)?.podIPs?.map((p) => p.ip);
    rt.setStatus(sb, {
      conditions,
      ...(service ? { service: name, serviceFQDN: `${name}.${ns}.svc.cluster.local` } : {}),
      ...(current || (prev as { selector?: string }).selector ? { selector: `${NAME_HASH_LABEL}=${hash}` } : {}),
      ...(ips?.length ? { podIPs: ips } : {}),
      ...(current?.spec?.nodeName ? { nodeName: current.spec.nodeName } : {}),
    });
  }
}

/** The headless Service `<sandbox>` on the pod's ports, selecting it by its name hash. */
function sandboxService(sb: KubeObject, hash: string): KubeObject {
  const spec = sb.spec as SandboxSpec;
  const ports = (spec.podTemplate.spec.containers ?? []).flatMap((c) => c.ports ?? []).map((p) => ({ name: p.name ?? `port-${p.containerPort}`, port: p.containerPort, targetPort: p.containerPort, protocol: p.protocol ?? 'TCP' }));
  return service({ name: sb.metadata.name!, namespace: sb.metadata.namespace!, owner: sb, headless: true, labels: { [NAME_HASH_LABEL]: hash }, selector: { [NAME_HASH_LABEL]: hash }, ports });
}
