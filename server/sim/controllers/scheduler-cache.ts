/**
 * The scheduler's cache, as in kube-scheduler: what every node offers and what the pods bound to it hold,
 * tracked in memory from the event stream (a pod holds its node's capacity from binding until it
 * finishes or is deleted), and the search for a node that fits a pod, memoised so that a big cluster's
 * pending pods are not re-scanned against every node on every event.
 */

import { isPodTerminal } from './meta.ts';
import { formatQuantity, isGpuResource, podRequests } from './quantity.ts';
import type { Resources } from './quantity.ts';
import type { NodeInfo } from './scheduler-fit.ts';
import { nodeInfoFrom, nodeRejects, pinnedNodeNames, unschedulableMessage } from './scheduler-fit.ts';
import type { KubeObject, Pod } from './types.ts';

function needsGpu(req: Resources): boolean {
  for (const r in req) if (isGpuResource(r)) return true;
  return false;
}

export class SchedulerCache {
  private readonly nodes = new Map<string, NodeInfo>();
  private cpuNodes: NodeInfo[] = [];
  private gpuNodes: NodeInfo[] = [];
  /** Pod uid → where it holds capacity. */
  private readonly assigned = new Map<string, { node: string; req: Resources }>();
  private readonly requests = new Map<string, Resources>();
  /** Requests computed by the bulk path before the pod had a uid, by ns/name. */
  private readonly preRequests = new Map<string, Resources>();
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
  private readonly keyCache = new WeakMap<object, string>();

  upsertNode(n: KubeObject): void {
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

  deleteNode(name: string): void {
    this.nodes.delete(name);
    this.rebuildLists();
  }

  private rebuildLists(): void {
    const all = [...this.nodes.values()];
    this.cpuNodes = all.filter((n) => !n.hasGpu);
    this.gpuNodes = all.filter((n) => n.hasGpu);
  }

  /** Whether capacity can have grown since the last call (then waiting pods deserve another try). */
  takeCapacityFreed(): boolean {
    const freed = this.capacityFreed;
    this.capacityFreed = false;
    return freed;
  }

  requestOf(pod: Pod): Resources {
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

  /** Bulk path: the requests of a pod placed before it was stored (it has no uid yet), by ns/name. */
  rememberRequest(key: string, req: Resources): void {
    this.preRequests.set(key, req);
  }

  /** Books or releases a pod's capacity from what the event says. */
  account(pod: Pod): void {
    const uid = pod.metadata.uid!;
    const holds = this.assigned.get(uid);
    const active = !isPodTerminal(pod) && !!pod.spec.nodeName;
    if (holds && !active) this.release(uid);
    else if (!holds && active) this.book(uid, pod.spec.nodeName!, this.requestOf(pod));
  }

  /** A pod was deleted: its capacity and its requests go. */
  forget(uid: string): void {
    this.release(uid);
    this.requests.delete(uid);
  }

  book(uid: string, nodeName: string, req: Resources): void {
    const node = this.nodes.get(nodeName);
    this.assigned.set(uid, { node: nodeName, req });
    if (!node) return;
    for (const r in req) node.used[r] = (node.used[r] ?? 0) + req[r];
    node.pods++;
  }

  /** Takes back a tentative booking on `node` (a gang's), without signalling freed capacity. */
  unbook(pod: Pod, node: NodeInfo): void {
    this.assigned.delete(pod.metadata.uid!);
    const req = this.requestOf(pod);
    for (const r in req) node.used[r] -= req[r];
    node.pods--;
  }

  /** Tentative bookings were rolled back: shapes judged unfit during the attempt may fit again. */
  capacityReturned(): void {
    this.epoch++;
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

  private candidates(req: Resources): NodeInfo[][] {
    const gpu = needsGpu(req);
    // CPU-only pods prefer CPU nodes and keep GPU nodes free for GPU work (a common scoring setup).
    return gpu ? [this.gpuNodes] : [this.cpuNodes, this.gpuNodes];
  }

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

  findFit(pod: Pod, req: Resources): NodeInfo | undefined {
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
    const pinned = pinnedNodeNames(pod.spec.affinity);
    if (pinned) {
      // NodeAffinity PreFilter: only the named nodes can match (DaemonSet pods name exactly one).
      for (const name of pinned) {
        const node = this.nodes.get(name);
        if (node && nodeRejects(node, pod, req).length === 0) return node;
      }
      return undefined;
    }
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
          this.cursors.set(ck, li === 0 && !needsGpu(req) ? (start + k + 1) % n : (start + k) % n);
          return node;
        }
      }
    }
    return undefined;
  }

  /** Why a pod fits nowhere, in the scheduler's words (memoised per shape until capacity grows). */
  failureMessage(pod: Pod, req: Resources): string {
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

  /** "N pods need nvidia.com/gpu: 24, free 16 (at most 8 on one node)" for the resources a gang is short of. */
  gangShortfall(members: Pod[]): string {
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
      if (need[k] > free || isGpuResource(k)) {
        parts.push(`${k}: ${formatQuantity(k, need[k])} requested, ${formatQuantity(k, free)} free (at most ${formatQuantity(k, most)} on one node)`);
      }
    }
    return `${members.length} pods; ${parts.join('; ') || 'no combination of nodes fits all of them'}`;
  }

  /** Free capacity of a node per resource. */
  freeOn(nodeName: string): Resources {
    const n = this.nodes.get(nodeName);
    if (!n) return {};
    const out: Resources = {};
    for (const r in n.allocatable) out[r] = n.allocatable[r] - (n.used[r] ?? 0);
    return out;
  }
}
