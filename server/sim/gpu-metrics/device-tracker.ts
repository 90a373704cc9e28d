/**
 * Which pod holds which GPU of a node, as the kubelet's device manager decides it: when a pod is bound to
 * a node, each of its containers asking for an NVIDIA resource gets free units of that resource (whole
 * devices, MIG instances, time-slices), the lowest free ones first; the pod keeps them while it lives and
 * gives them back when it finishes or is deleted. Assignments never exceed what the node advertises: a
 * pod that finds too few free units holds nothing until some are released.
 *
 * Kept incrementally from the store's event stream with a per-node index, so that one node's metrics
 * never scan the cluster's pods. One tracker per store (`deviceTrackerFor`); it is seeded from what the
 * store holds, pods taken in creationTimestamp-then-name order, so the same store state gives the same
 * assignment.
 */

import { containerRequests } from '../controllers/quantity.ts';
import type { Container, Pod } from '../controllers/types.ts';
import type { KubeObject, ObjectStore, WatchEvent } from '../store/object-store.ts';
import type { LoadProfile } from './load-model.ts';
import { LOAD_LABEL, profileOf } from './load-model.ts';
import type { DeviceUnit, NodeDevices } from './node-devices.ts';
import { nodeDevices } from './node-devices.ts';

/** A pod as the holder of units (one object shared by all its units, updated in place as the pod changes). */
export interface Holder {
  uid: string;
  namespace: string;
  pod: string;
  /** Whether the pod's containers run (only then do they load the GPU). */
  running: boolean;
  /** Simulated ms when the pod started (status.startTime, else its creation). */
  startedAt: number;
  profile: LoadProfile;
}

/** One unit a container holds. */
export interface Held {
  holder: Holder;
  container: string;
}

export interface NodeGpus {
  devices: NodeDevices;
  /** Per resource, parallel to `devices.units.get(resource)`: who holds each unit. */
  holders: Map<string, Array<Held | undefined>>;
}

interface Ask {
  container: string;
  resource: string;
  count: number;
}

interface PodState {
  holder: Holder;
  node: string;
  units: Array<{ resource: string; index: number }>;
  /** The load label as last seen (a change re-chooses the profile). */
  label: string | undefined;
  topOwnerKind: string | undefined;
  created: string;
}

interface Waiting {
  namespace: string;
  name: string;
  created: string;
}

function isNvidiaResource(r: string): boolean {
  return r === 'nvidia.com/gpu' || r === 'nvidia.com/gpu.shared' || r.startsWith('nvidia.com/mig-');
}

/** Pure: what each container of a pod asks of NVIDIA resources (app containers and sidecars, else the largest init container's). */
export function gpuAsks(pod: Pod): Ask[] {
  const asks: Ask[] = [];
  const add = (c: Container): void => {
    const req = containerRequests(c);
    for (const r of Object.keys(req).sort()) if (isNvidiaResource(r) && req[r] >= 1) asks.push({ container: c.name, resource: r, count: Math.floor(req[r]) });
  };
  for (const c of pod.spec.containers ?? []) add(c);
  for (const c of pod.spec.initContainers ?? []) if (c.restartPolicy === 'Always') add(c);
  if (asks.length > 0) return asks;
  // Only init containers ask: the device manager gives the pod what the largest of them needs.
  let best: Ask[] = [];
  for (const c of pod.spec.initContainers ?? []) {
    const before = asks.length;
    add(c);
    const mine = asks.splice(before);
    if (mine.reduce((n, a) => n + a.count, 0) > best.reduce((n, a) => n + a.count, 0)) best = mine;
  }
  return best;
}

function holdsDevices(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return !!pod.spec.nodeName && phase !== 'Succeeded' && phase !== 'Failed';
}

function startedAtOf(pod: Pod): number {
  const t = Date.parse((pod.status as { startTime?: string } | undefined)?.startTime ?? pod.metadata.creationTimestamp ?? '');
  return Number.isFinite(t) ? t : 0;
}

function byCreation(a: Waiting, b: Waiting): number {
  if (a.created !== b.created) return a.created < b.created ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : a.namespace < b.namespace ? -1 : 1;
}

export class DeviceTracker {
  private readonly nodes = new Map<string, NodeGpus>();
  private readonly pods = new Map<string, PodState>();
  /** Pod uid → its asks (null: asks for no NVIDIA resource), computed once: a pod's spec does not change. */
  private readonly asks = new Map<string, Ask[] | null>();
  /** Pods bound to a node that could not get their units (or whose node is unknown yet), by node. */
  private readonly waiting = new Map<string, Map<string, Waiting>>();
  private readonly unsubscribe: () => void;

  constructor(private readonly store: ObjectStore) {
    for (const n of store.list('v1', 'Node')) this.upsertNode(n);
    const pods = store.list('v1', 'Pod') as Pod[];
    const eligible = pods.filter((p) => holdsDevices(p) && this.asksOf(p));
    eligible.sort((a, b) => byCreation(waitingOf(a), waitingOf(b)));
    for (const p of eligible) this.podChanged(p);
    this.unsubscribe = store.subscribe((e) => this.onEvent(e));
  }

  stop(): void {
    this.unsubscribe();
  }

  /** Names of the nodes with NVIDIA GPUs, sorted. */
  gpuNodes(): string[] {
    return [...this.nodes.keys()].sort();
  }

  node(name: string): NodeGpus | undefined {
    return this.nodes.get(name);
  }

  /** The units a pod holds (tests, diagnostics). */
  unitsOf(namespace: string, name: string): Array<DeviceUnit & { container: string }> {
    for (const st of this.pods.values()) {
      if (st.holder.namespace !== namespace || st.holder.pod !== name) continue;
      const n = this.nodes.get(st.node);
      if (!n) return [];
      return st.units.map(({ resource, index }) => ({ ...n.devices.units.get(resource)![index], container: n.holders.get(resource)![index]!.container }));
    }
    return [];
  }

  private onEvent(e: WatchEvent): void {
    const o = e.object;
    if (o.apiVersion !== 'v1') return;
    if (o.kind === 'Pod') {
      if (e.type === 'DELETED') this.podGone(o.metadata.uid!, o.spec ? (o as Pod).spec.nodeName : undefined);
      else this.podChanged(o as Pod);
    } else if (o.kind === 'Node') {
      if (e.type === 'DELETED') this.nodeGone(o.metadata.name!);
      else this.upsertNode(o);
    }
  }

  private asksOf(pod: Pod): Ask[] | null {
    const uid = pod.metadata.uid!;
    let a = this.asks.get(uid);
    if (a === undefined) {
      const list = gpuAsks(pod);
      a = list.length > 0 ? list : null;
      this.asks.set(uid, a);
    }
    return a;
  }

  private podChanged(pod: Pod): void {
    const uid = pod.metadata.uid!;
    const asks = this.asksOf(pod);
    if (!asks) return;
    const st = this.pods.get(uid);
    const node = pod.spec.nodeName;
    if (!holdsDevices(pod)) {
      if (st) this.release(uid);
      else if (node) this.waiting.get(node)?.delete(uid);
      return;
    }
    if (st && st.node === node) {
      this.refresh(st, pod);
      return;
    }
    if (st) this.release(uid);
    this.assign(pod, asks);
  }

  private podGone(uid: string, node: string | undefined): void {
    this.asks.delete(uid);
    if (this.pods.has(uid)) this.release(uid);
    else if (node) this.waiting.get(node)?.delete(uid);
  }

  /** Keeps a holder's running state, start and profile in line with the pod. */
  private refresh(st: PodState, pod: Pod): void {
    const h = st.holder;
    h.running = pod.status?.phase === 'Running';
    h.startedAt = startedAtOf(pod);
    const label = pod.metadata.labels?.[LOAD_LABEL];
    if (label !== st.label) {
      st.label = label;
      h.profile = profileOf(label, st.topOwnerKind);
    }
  }

  /** Gives a bound pod its units, all or none; without enough free units it waits for a release. */
  private assign(pod: Pod, asks: Ask[]): void {
    const uid = pod.metadata.uid!;
    const nodeName = pod.spec.nodeName!;
    const n = this.nodes.get(nodeName);
    const wait = (): void => this.waitOn(nodeName, uid, waitingOf(pod));
    if (!n) return wait();
    const picks: Array<{ resource: string; index: number; container: string }> = [];
    for (const a of asks) {
      const holders = n.holders.get(a.resource);
      if (!holders) continue; // the node does not offer it: nothing to hold (the pod could not run there)
      let got = 0;
      for (let i = 0; i < holders.length && got < a.count; i++) {
        if (holders[i] || picks.some((p) => p.resource === a.resource && p.index === i)) continue;
        picks.push({ resource: a.resource, index: i, container: a.container });
        got++;
      }
      if (got < a.count) return wait();
    }
    this.waiting.get(nodeName)?.delete(uid);
    const label = pod.metadata.labels?.[LOAD_LABEL];
    const topOwnerKind = this.topOwnerKind(pod);
    const holder: Holder = { uid, namespace: pod.metadata.namespace!, pod: pod.metadata.name!, running: pod.status?.phase === 'Running', startedAt: startedAtOf(pod), profile: profileOf(label, topOwnerKind) };
    for (const p of picks) n.holders.get(p.resource)![p.index] = { holder, container: p.container };
    this.pods.set(uid, { holder, node: nodeName, units: picks.map(({ resource, index }) => ({ resource, index })), label, topOwnerKind, created: pod.metadata.creationTimestamp ?? '' });
  }

  private release(uid: string): void {
    const st = this.pods.get(uid);
    if (!st) return;
    this.pods.delete(uid);
    const n = this.nodes.get(st.node);
    if (n) for (const u of st.units) n.holders.get(u.resource)![u.index] = undefined;
    this.retryWaiting(st.node);
  }

  /** Pods waiting on a node try again, oldest first. */
  private retryWaiting(nodeName: string): void {
    const w = this.waiting.get(nodeName);
    if (!w || w.size === 0) return;
    for (const [uid, who] of [...w.entries()].sort((a, b) => byCreation(a[1], b[1]))) {
      const pod = this.store.get('v1', 'Pod', who.namespace, who.name) as Pod | undefined;
      if (!pod || pod.metadata.uid !== uid || !holdsDevices(pod) || pod.spec.nodeName !== nodeName) {
        w.delete(uid);
        continue;
      }
      this.assign(pod, this.asksOf(pod) ?? []);
    }
  }

  /** The kind at the top of a pod's controller chain, read through the store as the garbage collector links it. */
  private topOwnerKind(pod: KubeObject): string | undefined {
    let cur: KubeObject = pod;
    let kind: string | undefined;
    for (let depth = 0; depth < 10; depth++) {
      const refs = cur.metadata.ownerReferences ?? [];
      const ref = refs.find((r) => r.controller) ?? refs[0];
      if (!ref) break;
      kind = ref.kind;
      const owner = this.store.get(ref.apiVersion, ref.kind, cur.metadata.namespace, ref.name);
      if (!owner || owner.metadata.uid !== ref.uid) break;
      cur = owner;
    }
    return kind;
  }

  private upsertNode(node: KubeObject): void {
    const name = node.metadata.name!;
    const devices = nodeDevices(node);
    const cur = this.nodes.get(name);
    if (cur && devices && cur.devices.key === devices.key) return;
    // A new layout (or GPUs gone): every holder here gives its units back and asks again.
    if (cur) this.evict(name);
    if (!devices) {
      this.nodes.delete(name);
      return;
    }
    const h = new Map<string, Array<Held | undefined>>();
    for (const [r, list] of devices.units) h.set(r, new Array<Held | undefined>(list.length).fill(undefined));
    this.nodes.set(name, { devices, holders: h });
    this.retryWaiting(name);
  }

  private waitOn(node: string, uid: string, who: Waiting): void {
    let w = this.waiting.get(node);
    if (!w) this.waiting.set(node, (w = new Map()));
    w.set(uid, who);
  }

  private nodeGone(name: string): void {
    this.evict(name);
    this.nodes.delete(name);
  }

  /** Every holder on a node gives its units back and waits to be assigned again (rare: a node's GPUs changed). */
  private evict(name: string): void {
    for (const [uid, st] of [...this.pods.entries()]) {
      if (st.node !== name) continue;
      this.pods.delete(uid);
      this.waitOn(name, uid, { namespace: st.holder.namespace, name: st.holder.pod, created: st.created });
    }
  }
}

function waitingOf(pod: KubeObject): Waiting {
  return { namespace: pod.metadata.namespace ?? '', name: pod.metadata.name!, created: pod.metadata.creationTimestamp ?? '' };
}

const trackers = new WeakMap<ObjectStore, DeviceTracker>();

/** The store's tracker, created (and seeded from the store) on first use. */
export function deviceTrackerFor(store: ObjectStore): DeviceTracker {
  let t = trackers.get(store);
  if (!t) {
    t = new DeviceTracker(store);
    trackers.set(store, t);
  }
  return t;
}

/** Stops and forgets a store's tracker (the simulator's stop). */
export function stopDeviceTracker(store: ObjectStore): void {
  trackers.get(store)?.stop();
  trackers.delete(store);
}
