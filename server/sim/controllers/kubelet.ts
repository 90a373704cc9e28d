/**
 * The simulated kubelet of every node: once a pod is bound it reports ContainerCreating, then Running
 * (podIP, startTime, containerStatuses, Ready/ContainersReady), and — for pods whose containers exit —
 * Succeeded/Failed or an in-place restart with CrashLoopBackOff, per restartPolicy. It also finishes the
 * graceful deletion of pods on its node.
 *
 * The timeline of a pod is derived from the pod itself (its annotations and status), not kept in memory,
 * so a restarted simulation continues where it was. `kubeletStep` is the pure part (kubelet-status.ts).
 */

import { SIM } from './pods.ts';
import type { NodeAddressing } from './kubelet-status.ts';
import { instantRunning, kubeletStep, timelineOf } from './kubelet-status.ts';
import type { KubeletEvent } from './kubelet-events.ts';
import { killingEvents, kubeletEvents } from './kubelet-events.ts';
import type { Controller, Runtime } from './runtime.ts';
import type { WatchEvent } from '../store/object-store.ts';
import type { KubeObject, Pod } from './types.ts';

export class Kubelet implements Controller {
  readonly name = 'kubelet';
  readonly primary = '/Pod';
  readonly priority = 0;
  private readonly ipCounters = new Map<string, number>();

  init(rt: Runtime): void {
    rt.instantHooks.push((pod) => this.instantStart(pod, rt));
  }

  /**
   * Bulk path: a pod placed by the scheduler is written once, already Running and Ready — the state the
   * normal path reaches after start-up and readiness (pods with a start-up annotation take that path).
   */
  private instantStart(pod: Pod, rt: Runtime): Pod {
    if (!pod.spec.nodeName || pod.metadata.annotations?.[SIM.imagePull] === 'fail' || pod.metadata.annotations?.[SIM.startup]) return pod;
    const node = this.node(rt, pod.spec.nodeName);
    if (!node) return pod;
    return { ...pod, status: instantRunning(pod, rt.nowMs(), this.addressing(node)) };
  }

  private readonly addressingCache = new WeakMap<KubeObject, NodeAddressing>();

  private addressing(node: KubeObject): NodeAddressing {
    const hit = this.addressingCache.get(node);
    if (hit) return hit;
    const a = this.makeAddressing(node);
    this.addressingCache.set(node, a);
    return a;
  }

  private makeAddressing(node: KubeObject): NodeAddressing {
    const status = (node.status ?? {}) as { addresses?: Array<{ type: string; address: string }> };
    const hostIP = status.addresses?.find((a) => a.type === 'InternalIP')?.address ?? '10.0.0.1';
    const cidr = ((node.spec as { podCIDR?: string } | undefined)?.podCIDR ?? '10.244.0.0/24').split('/')[0];
    const [a, b, c] = cidr.split('.');
    const name = node.metadata.name!;
    return {
      hostIP,
      nextPodIP: () => {
        const n = this.ipCounters.get(name) ?? 0;
        this.ipCounters.set(name, n + 1);
        return `${a}.${b}.${c}.${(n % 250) + 2}`;
      },
    };
  }

  /** Pod uid → run time of its containers (Infinity for servers), to skip pods with nothing to do. */
  private readonly runTimes = new Map<string, number>();

  /** Pods whose containers were told to stop (Killing is recorded once per deletion). */
  private readonly killed = new Set<string>();

  /** Records what the kubelet of `nodeName` saw happen, on the pod (or on the node for kernel OOM kills). */
  private record(rt: Runtime, pod: Pod, nodeName: string, events: KubeletEvent[]): void {
    for (const e of events) {
      if (e.node) {
        const node = this.node(rt, nodeName);
        if (node) rt.recordEvent(node, e.type, e.reason, e.message, { component: 'kernel-monitor', host: nodeName });
        continue;
      }
      rt.recordEvent(pod, e.type, e.reason, e.message, { component: 'kubelet', host: nodeName, fieldPath: e.fieldPath });
    }
  }

  /** Nodes by name, from the event stream (every pod transition needs its node's addresses). */
  private readonly nodes = new Map<string, KubeObject>();

  observe(event: WatchEvent): void {
    const o = event.object;
    if (o.kind === 'Pod') {
      if (event.type === 'DELETED') {
        this.runTimes.delete(o.metadata.uid!);
        this.killed.delete(o.metadata.uid!);
      }
    } else if (o.kind === 'Node' && o.apiVersion === 'v1') {
      if (event.type === 'DELETED') this.nodes.delete(o.metadata.name!);
      else this.nodes.set(o.metadata.name!, o);
    }
  }

  private node(rt: Runtime, name: string): KubeObject | undefined {
    let n = this.nodes.get(name);
    if (!n) {
      n = rt.get('v1', 'Node', undefined, name);
      if (n) this.nodes.set(name, n);
    }
    return n;
  }

  /** True when a running, ready pod has nothing to report before its exit (most events of a big cluster). */
  private steady(rt: Runtime, pod: Pod): boolean {
    const st = pod.status;
    if (st?.phase !== 'Running' || pod.metadata.deletionTimestamp) return false;
    const c0 = st.containerStatuses?.[0];
    if (!c0?.state.running || !c0.ready) return false;
    const uid = pod.metadata.uid!;
    let run = this.runTimes.get(uid);
    if (run === undefined) {
      run = timelineOf(pod, rt.options, c0.restartCount).runMs;
      this.runTimes.set(uid, run);
    }
    if (run === Infinity) return true;
    const exitAt = Date.parse(c0.state.running.startedAt) + run;
    const now = rt.nowMs();
    if (now >= exitAt) return false;
    rt.after(this, pod.metadata.namespace ?? '', pod.metadata.name!, exitAt - now);
    return true;
  }

  reconcile(rt: Runtime, ns: string, name: string): void {
    const pod = rt.get<Pod>('v1', 'Pod', ns, name);
    if (!pod || !pod.spec.nodeName) return;
    if (this.steady(rt, pod)) return;
    if (pod.metadata.deletionTimestamp) {
      // Containers are stopped; once nothing holds the object the kubelet confirms the deletion.
      const uid = pod.metadata.uid!;
      if (!this.killed.has(uid)) {
        if (this.killed.size > 10_000) this.killed.clear();
        this.killed.add(uid);
        this.record(rt, pod, pod.spec.nodeName, killingEvents(pod));
      }
      if ((pod.metadata.finalizers ?? []).length === 0) rt.delete(pod);
      return;
    }
    const phase = pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return;
    const node = this.node(rt, pod.spec.nodeName);
    if (!node) return;
    const step = kubeletStep(pod, rt.nowMs(), rt.options, this.addressing(node));
    const written = rt.setStatus(pod, step.status);
    if (written !== pod) this.record(rt, pod, pod.spec.nodeName, kubeletEvents(written, pod.status, step.status, rt.nowMs()));
    if (step.wakeAt !== undefined) rt.after(this, ns, name, Math.max(1, step.wakeAt - rt.nowMs()));
  }
}
