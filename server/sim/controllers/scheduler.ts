/**
 * The simulated kube-scheduler: binds pending pods to nodes whose allocatable CPU, memory, pods and
 * extended resources (nvidia.com/gpu, nvidia.com/mig-*) leave room, honouring nodeSelector, required node
 * affinity, taints and `spec.unschedulable`. A pod that fits nowhere stays Pending with
 * `PodScheduled=False, reason Unschedulable` and the real scheduler's message format. Grove pods
 * (label `grove.io/podgang`) are placed all-or-nothing per PodGang, as the gang scheduler does.
 *
 * Capacity is tracked in memory from the event stream: a pod holds its node's capacity from binding
 * until it finishes or is deleted.
 */

import type { WatchEvent } from '../store/object-store.ts';
import { isPodActive, isPodTerminal, setCondition } from './meta.ts';
import { formatQuantity, isGpuResource, parseQuantity, podRequests } from './quantity.ts';
import type { Resources } from './quantity.ts';
import type { Controller, Runtime } from './runtime.ts';
import type { Dict, KubeObject, Pod, StringMap, Taint, Toleration } from './types.ts';

interface NodeInfo {
  name: string;
  allocatable: Resources;
  used: Resources;
  labels: StringMap;
  taints: Taint[];
  unschedulable: boolean;
  ready: boolean;
  hasGpu: boolean;
  pods: number;
}

export const GANG_LABEL = 'grove.io/podgang';

function fmt(resource: string, v: number): string {
  return formatQuantity(resource, v);
}

/** Pure: why a node cannot run a pod (empty when it can). Filter order follows the default plugins. */
export function nodeRejects(node: NodeInfo, pod: Pod, req: Resources): string[] {
  if (node.unschedulable) return ['node(s) were unschedulable'];
  if (!node.ready) return ['node(s) had untolerated taint {node.kubernetes.io/not-ready: }'];
  for (const t of node.taints) {
    if (t.effect !== 'NoSchedule' && t.effect !== 'NoExecute') continue;
    if (!tolerates(pod.spec.tolerations ?? [], t)) return [`node(s) had untolerated taint {${t.key}: ${t.value ?? ''}}`];
  }
  if (!selectorMatches(node.labels, pod.spec.nodeSelector) || !affinityMatches(node.labels, pod.spec.affinity)) {
    return ["node(s) didn't match Pod's node affinity/selector"];
  }
  const out: string[] = [];
  if (node.pods + 1 > (node.allocatable.pods ?? 110)) out.push('Too many pods');
  for (const r in req) {
    if (r === 'pods') continue;
    const free = (node.allocatable[r] ?? 0) - (node.used[r] ?? 0);
    if (req[r] > free + 1e-9) out.push(`Insufficient ${r}`);
  }
  return out;
}

function tolerates(tols: Toleration[], t: Taint): boolean {
  return tols.some((x) => {
    if (x.effect && x.effect !== t.effect) return false;
    if (!x.key) return x.operator === 'Exists';
    if (x.key !== t.key) return false;
    return x.operator === 'Exists' || (x.value ?? '') === (t.value ?? '');
  });
}

function selectorMatches(labels: StringMap, sel: StringMap | undefined): boolean {
  if (!sel) return true;
  for (const k in sel) if (labels[k] !== sel[k]) return false;
  return true;
}

interface MatchExpression {
  key: string;
  operator: string;
  values?: string[];
}

function affinityMatches(labels: StringMap, affinity: Dict | undefined): boolean {
  const req = (affinity?.nodeAffinity as Dict | undefined)?.requiredDuringSchedulingIgnoredDuringExecution as
    | { nodeSelectorTerms?: Array<{ matchExpressions?: MatchExpression[] }> }
    | undefined;
  const terms = req?.nodeSelectorTerms;
  if (!terms || terms.length === 0) return true;
  return terms.some((term) =>
    (term.matchExpressions ?? []).every((e) => {
      const v = labels[e.key];
      switch (e.operator) {
        case 'In':
          return v !== undefined && (e.values ?? []).includes(v);
        case 'NotIn':
          return v === undefined || !(e.values ?? []).includes(v);
        case 'Exists':
          return v !== undefined;
        case 'DoesNotExist':
          return v === undefined;
        case 'Gt':
          return v !== undefined && Number(v) > Number(e.values?.[0]);
        case 'Lt':
          return v !== undefined && Number(v) < Number(e.values?.[0]);
        default:
          return false;
      }
    }),
  );
}

/** Pure: the scheduler's FitError message, e.g. "0/8 nodes are available: 8 Insufficient nvidia.com/gpu. preemption: …". */
export function unschedulableMessage(total: number, reasons: Map<string, number>, resourceNodes: number): string {
  if (total === 0) return 'no nodes available to schedule pods';
  const parts = [...reasons.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([r, n]) => `${n} ${r}`);
  const pre: string[] = [];
  if (resourceNodes > 0) pre.push(`${resourceNodes} No preemption victims found for incoming pod`);
  if (total - resourceNodes > 0) pre.push(`${total - resourceNodes} Preemption is not helpful for scheduling`);
  pre.sort();
  return `0/${total} nodes are available: ${parts.join(', ')}. preemption: 0/${total} nodes are available: ${pre.join(', ')}.`;
}

function nodeInfoFrom(node: KubeObject, prev: NodeInfo | undefined): NodeInfo {
  const status = (node.status ?? {}) as { allocatable?: Record<string, string>; capacity?: Record<string, string>; conditions?: Array<{ type: string; status: string }> };
  const spec = (node.spec ?? {}) as { taints?: Taint[]; unschedulable?: boolean };
  const alloc: Resources = {};
  const src = status.allocatable ?? status.capacity ?? {};
  for (const k in src) alloc[k] = parseQuantity(src[k]);
  const ready = status.conditions?.find((c) => c.type === 'Ready');
  let hasGpu = false;
  for (const k in alloc) if (isGpuResource(k) && alloc[k] > 0) hasGpu = true;
  return {
    name: node.metadata.name!,
    allocatable: alloc,
    used: prev?.used ?? {},
    labels: node.metadata.labels ?? {},
    taints: spec.taints ?? [],
    unschedulable: !!spec.unschedulable,
    ready: !ready || ready.status === 'True',
    hasGpu,
    pods: prev?.pods ?? 0,
  };
}

export class Scheduler implements Controller {
  readonly name = 'scheduler';
  readonly primary = '/Pod';
  readonly priority = 0;
  private readonly nodes = new Map<string, NodeInfo>();
  private cpuNodes: NodeInfo[] = [];
  private gpuNodes: NodeInfo[] = [];
  /** Pod uid → where it holds capacity. */
  private readonly assigned = new Map<string, { node: string; req: Resources }>();
  /** Pods waiting for capacity (ns/name → uid), oldest first. */
  private readonly waiting = new Map<string, string>();
  private readonly requests = new Map<string, Resources>();
  /** First-fit cursors per request shape, so packing many similar pods stays linear. */
  private readonly cursors = new Map<string, number>();
  private capacityFreed = false;
  /**
   * Bumped whenever capacity can have grown (a pod released its node, a node changed). A pod shape that
   * fitted nowhere stays unfit until then, as bookings only take capacity away: pending pods of a big
   * cluster are not re-scanned against every node on every event.
   */
  private epoch = 0;
  private readonly unfit = new Map<string, number>();
  private readonly messages = new Map<string, { epoch: number; message: string }>();

  init(rt: Runtime): void {
    for (const n of rt.list('v1', 'Node')) this.upsertNode(n);
    for (const p of rt.list<Pod>('v1', 'Pod')) this.account(p);
    rt.instantHooks.push((pod) => this.instantBind(pod, rt));
  }

  /** Bulk path: picks the node before the pod is stored (capacity is booked when its ADDED event arrives). */
  private instantBind(pod: Pod, rt: Runtime): Pod {
    if (pod.spec.nodeName || (pod.spec.schedulingGates ?? []).length > 0 || pod.metadata.labels?.[GANG_LABEL]) return pod;
    const req = podRequests(pod.spec);
    const node = this.findFit(pod, req);
    if (!node) return pod;
    this.preRequests.set(`${pod.metadata.namespace}/${pod.metadata.name}`, req);
    const st = pod.status ?? {};
    return {
      ...pod,
      spec: { ...pod.spec, nodeName: node.name },
      status: { ...st, conditions: setCondition(st.conditions, { type: 'PodScheduled', status: 'True', lastProbeTime: null }, rt.now()) },
    };
  }

  private upsertNode(n: KubeObject): void {
    const prev = this.nodes.get(n.metadata.name!);
    const info = nodeInfoFrom(n, prev);
    this.nodes.set(info.name, info);
    if (!prev) (info.hasGpu ? this.gpuNodes : this.cpuNodes).push(info);
    else if (prev.hasGpu !== info.hasGpu) this.rebuildLists();
    else {
      const list = info.hasGpu ? this.gpuNodes : this.cpuNodes;
      list[list.indexOf(prev)] = info;
    }
    this.capacityFreed = true;
    this.epoch++;
  }

  private rebuildLists(): void {
    const all = [...this.nodes.values()];
    this.cpuNodes = all.filter((n) => !n.hasGpu);
    this.gpuNodes = all.filter((n) => n.hasGpu);
  }

  /** Requests computed by the bulk path before the pod had a uid, by ns/name. */
  private readonly preRequests = new Map<string, Resources>();

  private requestOf(pod: Pod): Resources {
    const uid = pod.metadata.uid!;
    let r = this.requests.get(uid);
    if (!r) {
      const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
      r = this.preRequests.get(key) ?? podRequests(pod.spec);
      this.preRequests.delete(key);
      this.requests.set(uid, r);
    }
    return r;
  }

  /** Books or releases a pod's capacity from what the event says. */
  private account(pod: Pod): void {
    const uid = pod.metadata.uid!;
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    const holds = this.assigned.get(uid);
    const active = !isPodTerminal(pod) && !!pod.spec.nodeName;
    if (holds && !active) this.release(uid);
    else if (!holds && active) this.book(uid, pod.spec.nodeName!, this.requestOf(pod));
    if (pod.spec.nodeName || isPodTerminal(pod)) this.waiting.delete(key);
  }

  private book(uid: string, nodeName: string, req: Resources): void {
    const node = this.nodes.get(nodeName);
    this.assigned.set(uid, { node: nodeName, req });
    if (!node) return;
    for (const r in req) node.used[r] = (node.used[r] ?? 0) + req[r];
    node.pods++;
  }

  private release(uid: string): void {
    const a = this.assigned.get(uid);
    if (!a) return;
    this.assigned.delete(uid);
    const node = this.nodes.get(a.node);
    if (node) {
      for (const r in a.req) node.used[r] = (node.used[r] ?? 0) - a.req[r];
      node.pods--;
    }
    this.capacityFreed = true;
    this.epoch++;
  }

  observe(event: WatchEvent): void {
    const obj = event.object;
    if (obj.kind === 'Node' && obj.apiVersion === 'v1') {
      if (event.type === 'DELETED') {
        this.nodes.delete(obj.metadata.name!);
        this.rebuildLists();
      } else this.upsertNode(obj);
      return;
    }
    if (obj.kind !== 'Pod' || obj.apiVersion !== 'v1') return;
    const pod = obj as Pod;
    if (event.type === 'DELETED') {
      this.release(pod.metadata.uid!);
      this.requests.delete(pod.metadata.uid!);
      this.waiting.delete(`${pod.metadata.namespace}/${pod.metadata.name}`);
      return;
    }
    this.account(pod);
  }

  onIdle(rt: Runtime): void {
    if (!this.capacityFreed) return;
    this.capacityFreed = false;
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
      this.markPending(rt, pod, 'SchedulingGated', 'Scheduling is blocked due to non-empty scheduling gates');
      return;
    }
    const gang = pod.metadata.labels?.[GANG_LABEL];
    if (gang) {
      this.scheduleGang(rt, pod, gang);
      return;
    }
    const node = this.findFit(pod, this.requestOf(pod));
    if (node) this.bind(rt, pod, node);
    else this.markUnschedulable(rt, pod);
  }

  private isGpu(req: Resources): boolean {
    for (const r in req) if (isGpuResource(r)) return true;
    return false;
  }

  private candidates(req: Resources): NodeInfo[][] {
    const gpu = this.isGpu(req);
    // CPU-only pods prefer CPU nodes and keep GPU nodes free for GPU work (a common scoring setup).
    return gpu ? [this.gpuNodes] : [this.cpuNodes, this.gpuNodes];
  }

  private readonly keyCache = new WeakMap<object, string>();

  private memoKey(o: object | undefined): string {
    if (!o) return '';
    let k = this.keyCache.get(o);
    if (k === undefined) {
      k = JSON.stringify(o);
      this.keyCache.set(o, k);
    }
    return k;
  }

  /**
   * What decides where a pod fits: its requests, selector, affinity and the tolerations that can matter
   * (the admission defaults every pod gets are left out, so the key stays cheap and shared).
   */
  private shapeOf(pod: Pod, req: Resources): string {
    let tol = '';
    for (const t of pod.spec.tolerations ?? []) {
      if (t.key === 'node.kubernetes.io/not-ready' || t.key === 'node.kubernetes.io/unreachable') continue;
      if (t.key && t.operator === 'Exists' && t.effect === 'NoSchedule' && req[t.key] !== undefined) continue;
      tol += `${t.key ?? ''}=${t.value ?? ''}:${t.effect ?? ''}/${t.operator ?? ''},`;
    }
    let r = '';
    for (const k in req) r += `${k}=${req[k]},`;
    return `${r}|${this.memoKey(pod.spec.nodeSelector)}|${this.memoKey(pod.spec.affinity)}|${tol}`;
  }

  private findFit(pod: Pod, req: Resources): NodeInfo | undefined {
    const full = this.shapeOf(pod, req);
    if (this.unfit.get(full) === this.epoch) return undefined;
    const found = this.scan(pod, req);
    if (!found) {
      this.unfit.set(full, this.epoch);
      if (this.unfit.size > 50_000) this.unfit.clear();
    }
    return found;
  }

  private scan(pod: Pod, req: Resources): NodeInfo | undefined {
    let names = '';
    for (const k in req) names += `${k},`;
    const shape = `${names}|${this.memoKey(pod.spec.nodeSelector)}|${this.memoKey(pod.spec.affinity)}`;
    for (const [li, list] of this.candidates(req).entries()) {
      const n = list.length;
      if (n === 0) continue;
      const ck = `${li}|${shape}`;
      const start = (this.cursors.get(ck) ?? 0) % n;
      for (let k = 0; k < n; k++) {
        const node = list[(start + k) % n];
        if (nodeRejects(node, pod, req).length === 0) {
          // GPU pods are bin-packed (whole nodes stay free for big jobs); CPU pods are spread
          // round-robin, close to the default scheduler's least-allocated scoring.
          this.cursors.set(ck, li === 0 && !this.isGpu(req) ? (start + k + 1) % n : (start + k) % n);
          return node;
        }
      }
    }
    return undefined;
  }

  private bind(rt: Runtime, pod: Pod, node: NodeInfo): void {
    this.book(pod.metadata.uid!, node.name, this.requestOf(pod));
    this.waiting.delete(`${pod.metadata.namespace}/${pod.metadata.name}`);
    // Like the pods/binding subresource: nodeName and the PodScheduled condition in one write. A store
    // that keeps status on main-resource updates (status subresource semantics) gets a status write too.
    const st = pod.status ?? {};
    const status = { ...st, conditions: setCondition(st.conditions, { type: 'PodScheduled', status: 'True', lastProbeTime: null }, rt.now()) };
    const bound = rt.update<Pod>({ ...pod, spec: { ...pod.spec, nodeName: node.name }, status });
    if (bound.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status !== 'True') rt.setStatus(bound, status);
  }

  private markPending(rt: Runtime, pod: Pod, reason: string, message: string): void {
    const status = pod.status ?? {};
    const conditions = setCondition(status.conditions, { type: 'PodScheduled', status: 'False', reason, message, lastProbeTime: null }, rt.now());
    rt.setStatus(pod, { ...status, phase: 'Pending', conditions });
  }

  private failureMessage(pod: Pod, req: Resources): string {
    const key = this.shapeOf(pod, req);
    const hit = this.messages.get(key);
    if (hit && hit.epoch === this.epoch) return hit.message;
    const message = this.computeMessage(pod, req);
    if (this.messages.size > 50_000) this.messages.clear();
    this.messages.set(key, { epoch: this.epoch, message });
    return message;
  }

  private computeMessage(pod: Pod, req: Resources): string {
    const reasons = new Map<string, number>();
    let resourceNodes = 0;
    for (const node of this.nodes.values()) {
      const rej = nodeRejects(node, pod, req);
      if (rej.length === 0) continue;
      if (rej[0] === 'Too many pods' || rej[0].startsWith('Insufficient ')) resourceNodes++;
      for (const r of rej) reasons.set(r, (reasons.get(r) ?? 0) + 1);
    }
    return unschedulableMessage(this.nodes.size, reasons, resourceNodes);
  }

  private markUnschedulable(rt: Runtime, pod: Pod, message?: string): void {
    this.waiting.set(`${pod.metadata.namespace}/${pod.metadata.name}`, pod.metadata.uid!);
    this.markPending(rt, pod, 'Unschedulable', message ?? this.failureMessage(pod, this.requestOf(pod)));
  }

  /** All gate-free, unbound pods of a PodGang get nodes together, or none does. */
  private scheduleGang(rt: Runtime, pod: Pod, gang: string): void {
    const members = rt
      .list<Pod>('v1', 'Pod', { namespace: pod.metadata.namespace, labels: { [GANG_LABEL]: gang } })
      .filter((p) => isPodActive(p) && !p.spec.nodeName);
    if (members.some((p) => (p.spec.schedulingGates ?? []).length > 0)) {
      // Part of the gang is still gated: wait for the whole gang (the gated ones report their own state).
      this.markPending(rt, pod, 'SchedulingGated', 'Scheduling is blocked due to non-empty scheduling gates');
      return;
    }
    const placed: Array<{ pod: Pod; node: NodeInfo }> = [];
    let failed: Pod | undefined;
    for (const m of members) {
      const req = this.requestOf(m);
      const node = this.findFit(m, req);
      if (!node) {
        failed = m;
        break;
      }
      // Tentative booking so the next member sees the reduced capacity.
      this.book(m.metadata.uid!, node.name, req);
      placed.push({ pod: m, node });
    }
    if (failed) {
      for (const p of placed) {
        this.assigned.delete(p.pod.metadata.uid!);
        const req = this.requestOf(p.pod);
        for (const r in req) p.node.used[r] -= req[r];
        p.node.pods--;
      }
      // The rollback gives capacity back: shapes judged unfit during the attempt may fit again.
      if (placed.length > 0) this.epoch++;
      // One message for the whole gang, computed on the state without tentative placements so that
      // it is the same whichever member triggered the attempt.
      const gangMsg = `pod group ${gang} cannot be scheduled as a gang: ${this.gangShortfall(members)}`;
      for (const m of members) this.markUnschedulable(rt, m, gangMsg);
      return;
    }
    for (const p of placed) {
      this.assigned.delete(p.pod.metadata.uid!);
      const req = this.requestOf(p.pod);
      for (const r in req) p.node.used[r] -= req[r];
      p.node.pods--;
      const fresh = rt.get<Pod>('v1', 'Pod', p.pod.metadata.namespace, p.pod.metadata.name!);
      if (fresh && !fresh.spec.nodeName) this.bind(rt, fresh, p.node);
    }
  }

  /** "N pods need nvidia.com/gpu: 24, free 16 (at most 8 on one node)" for the resources a gang is short of. */
  private gangShortfall(members: Pod[]): string {
    const need: Resources = {};
    for (const m of members) {
      const r = this.requestOf(m);
      for (const k in r) need[k] = (need[k] ?? 0) + r[k];
    }
    const parts: string[] = [];
    for (const k of Object.keys(need).sort()) {
      let free = 0;
      let most = 0;
      for (const n of this.nodes.values()) {
        if (n.unschedulable || !n.ready) continue;
        const f = Math.max(0, (n.allocatable[k] ?? 0) - (n.used[k] ?? 0));
        free += f;
        most = Math.max(most, f);
      }
      if (need[k] > free || isGpuResource(k)) parts.push(`${k}: ${fmt(k, need[k])} requested, ${fmt(k, free)} free (at most ${fmt(k, most)} on one node)`);
    }
    return `${members.length} pods; ${parts.join('; ') || 'no combination of nodes fits all of them'}`;
  }

  /** For tests and the scenarios: free capacity of a node per resource. */
  freeOn(nodeName: string): Resources {
    const n = this.nodes.get(nodeName);
    if (!n) return {};
    const out: Resources = {};
    for (const r in n.allocatable) out[r] = n.allocatable[r] - (n.used[r] ?? 0);
    return out;
  }
}
