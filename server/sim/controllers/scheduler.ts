/**
 * The simulated kube-scheduler: binds pending pods to nodes whose allocatable CPU, memory, pods and
 * extended resources (nvidia.com/gpu, nvidia.com/mig-*) leave room, honouring nodeSelector, required node
 * affinity, taints and `spec.unschedulable`. A pod that fits nowhere stays Pending with
 * `PodScheduled=False, reason Unschedulable` and the real scheduler's message format. Grove pods
 * (label `grove.io/podgang`) are placed all-or-nothing per PodGang, as the gang scheduler does.
 *
 * Capacity is tracked in memory from the event stream (scheduler-cache.ts); whether a pod fits a node
 * is the pure part (scheduler-fit.ts). This file is the scheduling loop: the queue of waiting pods,
 * binding, and the conditions a pod reports.
 */

import type { WatchEvent } from '../store/object-store.ts';
import { isPodActive, isPodTerminal, setCondition } from './meta.ts';
import { podRequests } from './quantity.ts';
import type { Resources } from './quantity.ts';
import type { Controller, Runtime } from './runtime.ts';
import { SchedulerCache } from './scheduler-cache.ts';
import type { NodeInfo } from './scheduler-fit.ts';
import type { EventSource } from './event-recorder.ts';
import type { Pod } from './types.ts';

export const GANG_LABEL = 'grove.io/podgang';

/** kube-scheduler records through the events.k8s.io API: series, reportingController, action. */
function schedulerEvents(action: 'Scheduling' | 'Binding'): EventSource {
  return { component: 'default-scheduler', instance: 'default-scheduler-sim-control-plane', style: 'series', action };
}

const GATED_MESSAGE = 'Scheduling is blocked due to non-empty scheduling gates';

export class Scheduler implements Controller {
  readonly name = 'scheduler';
  readonly primary = '/Pod';
  readonly priority = 0;
  private readonly cache = new SchedulerCache();
  /** Pods waiting for capacity (ns/name → uid), oldest first. */
  private readonly waiting = new Map<string, string>();

  init(rt: Runtime): void {
    for (const n of rt.list('v1', 'Node')) this.cache.upsertNode(n);
    for (const p of rt.list<Pod>('v1', 'Pod')) this.account(p);
    rt.instantHooks.push((pod) => this.instantBind(pod, rt));
  }

  /** Bulk path: picks the node before the pod is stored (capacity is booked when its ADDED event arrives). */
  private instantBind(pod: Pod, rt: Runtime): Pod {
    if (pod.spec.nodeName || (pod.spec.schedulingGates ?? []).length > 0 || pod.metadata.labels?.[GANG_LABEL]) return pod;
    const req = podRequests(pod.spec);
    const node = this.cache.findFit(pod, req);
    if (!node) return pod;
    this.cache.rememberRequest(`${pod.metadata.namespace}/${pod.metadata.name}`, req);
    const st = pod.status ?? {};
    return {
      ...pod,
      spec: { ...pod.spec, nodeName: node.name },
      status: { ...st, conditions: setCondition(st.conditions, { type: 'PodScheduled', status: 'True', lastProbeTime: null }, rt.now()) },
    };
  }

  /** Books or releases a pod's capacity from what the event says; a bound or finished pod waits no more. */
  private account(pod: Pod): void {
    this.cache.account(pod);
    if (pod.spec.nodeName || isPodTerminal(pod)) this.waiting.delete(`${pod.metadata.namespace}/${pod.metadata.name}`);
  }

  observe(event: WatchEvent): void {
    const obj = event.object;
    if (obj.kind === 'Node' && obj.apiVersion === 'v1') {
      if (event.type === 'DELETED') this.cache.deleteNode(obj.metadata.name!);
      else this.cache.upsertNode(obj);
      return;
    }
    if (obj.kind !== 'Pod' || obj.apiVersion !== 'v1') return;
    const pod = obj as Pod;
    if (event.type === 'DELETED') {
      this.cache.forget(pod.metadata.uid!);
      this.waiting.delete(`${pod.metadata.namespace}/${pod.metadata.name}`);
      return;
    }
    this.account(pod);
  }

  onIdle(rt: Runtime): void {
    if (!this.cache.takeCapacityFreed()) return;
    if (this.waiting.size === 0) return;
    // Retry waiting pods in priority order, oldest first within a priority (the scheduling queue's order).
    const items: Array<{ key: string; prio: number; i: number }> = [];
    let i = 0;
    for (const key of this.waiting.keys()) {
      const [ns, name] = key.split('/');
      const p = rt.get<Pod>('v1', 'Pod', ns, name);
      items.push({ key, prio: p?.spec.priority ?? 0, i: i++ });
    }
    items.sort((a, b) => b.prio - a.prio || a.i - b.i);
    for (const it of items) {
      const [ns, name] = it.key.split('/');
      rt.enqueue(this, ns, name);
    }
  }

  reconcile(rt: Runtime, ns: string, name: string): void {
    const pod = rt.get<Pod>('v1', 'Pod', ns, name);
    if (!pod || pod.spec.nodeName || !isPodActive(pod)) return;
    const gates = pod.spec.schedulingGates ?? [];
    if (gates.length > 0) {
      // Like kube-scheduler's SchedulingGates PreEnqueue: a condition, no event, no scheduling attempt.
      this.markPending(rt, pod, 'SchedulingGated', GATED_MESSAGE);
      return;
    }
    const gang = pod.metadata.labels?.[GANG_LABEL];
    if (gang) {
      this.scheduleGang(rt, pod, gang);
      return;
    }
    const node = this.cache.findFit(pod, this.cache.requestOf(pod));
    if (node) this.bind(rt, pod, node);
    else this.markUnschedulable(rt, pod);
  }

  private bind(rt: Runtime, pod: Pod, node: NodeInfo): void {
    this.cache.book(pod.metadata.uid!, node.name, this.cache.requestOf(pod));
    this.waiting.delete(`${pod.metadata.namespace}/${pod.metadata.name}`);
    // Like the pods/binding subresource: nodeName and the PodScheduled condition in one write. A store
    // that keeps status on main-resource updates (status subresource semantics) gets a status write too.
    const st = pod.status ?? {};
    const status = { ...st, conditions: setCondition(st.conditions, { type: 'PodScheduled', status: 'True', lastProbeTime: null }, rt.now()) };
    const bound = rt.update<Pod>({ ...pod, spec: { ...pod.spec, nodeName: node.name }, status });
    if (bound.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status !== 'True') rt.setStatus(bound, status);
    rt.recordEvent(bound, 'Normal', 'Scheduled', `Successfully assigned ${pod.metadata.namespace}/${pod.metadata.name} to ${node.name}`, schedulerEvents('Binding'));
  }

  private markPending(rt: Runtime, pod: Pod, reason: string, message: string): void {
    const status = pod.status ?? {};
    const conditions = setCondition(status.conditions, { type: 'PodScheduled', status: 'False', reason, message, lastProbeTime: null }, rt.now());
    rt.setStatus(pod, { ...status, phase: 'Pending', conditions });
  }

  /** Each failed attempt is a FailedScheduling event (repeats grow its series) and the pod's condition. */
  private markUnschedulable(rt: Runtime, pod: Pod, message?: string): void {
    this.waiting.set(`${pod.metadata.namespace}/${pod.metadata.name}`, pod.metadata.uid!);
    const msg = message ?? this.cache.failureMessage(pod, this.cache.requestOf(pod));
    this.markPending(rt, pod, 'Unschedulable', msg);
    rt.recordEvent(pod, 'Warning', 'FailedScheduling', msg, schedulerEvents('Scheduling'));
  }

  /** All gate-free, unbound pods of a PodGang get nodes together, or none does. */
  private scheduleGang(rt: Runtime, pod: Pod, gang: string): void {
    const members = rt
      .list<Pod>('v1', 'Pod', { namespace: pod.metadata.namespace, labels: { [GANG_LABEL]: gang } })
      .filter((p) => isPodActive(p) && !p.spec.nodeName);
    const gated = members.filter((p) => (p.spec.schedulingGates ?? []).length > 0);
    if (gated.length > 0) {
      // Part of the gang is still gated: every member waits for the whole gang, and says so.
      const own = (pod.spec.schedulingGates ?? []).length > 0;
      const names = [...new Set(gated.flatMap((p) => (p.spec.schedulingGates ?? []).map((g) => g.name)))].sort().join(', ');
      const message = own ? GATED_MESSAGE : `waiting for pod gang ${gang}: ${gated.length} of its ${members.length} pods are still gated (${names})`;
      this.markPending(rt, pod, 'SchedulingGated', message);
      return;
    }
    const placed: Array<{ pod: Pod; node: NodeInfo }> = [];
    let failed: Pod | undefined;
    for (const m of members) {
      const req = this.cache.requestOf(m);
      const node = this.cache.findFit(m, req);
      if (!node) {
        failed = m;
        break;
      }
      // Tentative booking so the next member sees the reduced capacity.
      this.cache.book(m.metadata.uid!, node.name, req);
      placed.push({ pod: m, node });
    }
    if (failed) {
      for (const p of placed) this.cache.unbook(p.pod, p.node);
      // The rollback gives capacity back: shapes judged unfit during the attempt may fit again.
      if (placed.length > 0) this.cache.capacityReturned();
      // One message for the whole gang, computed on the state without tentative placements so that
      // it is the same whichever member triggered the attempt.
      const gangMsg = `waiting for its gang: pod group ${gang} cannot be scheduled as a gang (all of its pods or none): ${this.cache.gangShortfall(members)}`;
      for (const m of members) this.markUnschedulable(rt, m, gangMsg);
      return;
    }
    for (const p of placed) {
      this.cache.unbook(p.pod, p.node);
      const fresh = rt.get<Pod>('v1', 'Pod', p.pod.metadata.namespace, p.pod.metadata.name!);
      if (fresh && !fresh.spec.nodeName) this.bind(rt, fresh, p.node);
    }
  }

  /** For tests and the scenarios: free capacity of a node per resource. */
  freeOn(nodeName: string): Resources {
    return this.cache.freeOn(nodeName);
  }
}
