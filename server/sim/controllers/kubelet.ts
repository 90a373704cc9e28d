/**
 * The simulated kubelet of every node: once a pod is bound it reports ContainerCreating, then Running
 * (podIP, startTime, containerStatuses, Ready/ContainersReady), and — for pods whose containers exit —
 * Succeeded/Failed or an in-place restart with CrashLoopBackOff, per restartPolicy. It also finishes the
 * graceful deletion of pods on its node.
 *
 * The timeline of a pod is derived from the pod itself (its annotations and status), not kept in memory,
 * so a restarted simulation continues where it was. `kubeletStep` is the pure part.
 */

import type { ResolvedOptions } from './options.ts';
import { pick } from './options.ts';
import { SIM } from './pods.ts';
import { parseDuration, setCondition } from './meta.ts';
import { fnv32, rngFor, sha256Hex } from './random.ts';
import type { Controller, Runtime } from './runtime.ts';
import type { WatchEvent } from '../store/object-store.ts';
import type { Condition, Container, ContainerStatus, KubeObject, Pod, PodStatus } from './types.ts';

export interface NodeAddressing {
  hostIP: string;
  /** Next pod IP on this node. */
  nextPodIP(): string;
}

export interface KubeletStep {
  status: PodStatus;
  /** Simulated ms at which the pod needs another look. */
  wakeAt?: number;
}

interface Timeline {
  startupMs: number;
  readyDelayMs: number;
  runMs: number;
  exitCode: number;
  imagePullFails: boolean;
}

let lastSecond = NaN;
let lastIso = '';

function iso(ms: number): string {
  const sec = Math.floor(ms / 1000);
  if (sec !== lastSecond) {
    lastSecond = sec;
    lastIso = new Date(sec * 1000).toISOString().replace('.000Z', 'Z');
  }
  return lastIso;
}

/** The pod's simulated behaviour: from its sim annotations, else from the options' ranges (seeded per pod). */
export function timelineOf(pod: Pod, o: ResolvedOptions, attempt: number): Timeline {
  const ann = pod.metadata.annotations ?? {};
  const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
  const r = rngFor(o.seed, key);
  const startup = parseDuration(ann[SIM.startup]) ?? pick(o.podStartup, r.next());
  const readyDelay = pick(o.readinessDelay, r.next());
  let runMs: number;
  const d = ann[SIM.duration];
  if (d === 'forever') runMs = Infinity;
  else if (d && d.includes('-') && !d.startsWith('-')) {
    const [a, b] = d.split('-').map((x) => parseDuration(x));
    runMs = a !== undefined && b !== undefined ? a + (b - a) * r.next() : Infinity;
  } else if (d) runMs = parseDuration(d) ?? Infinity;
  else if ((pod.spec.restartPolicy ?? 'Always') === 'Always') runMs = Infinity;
  else runMs = pick(o.batchDuration, r.next());
  let exitCode = Number(ann[SIM.exitCode] ?? 0) || 0;
  if (ann[SIM.exitCode] === undefined && runMs !== Infinity && o.batchFailureRate > 0) {
    if (rngFor(o.seed, `${key}#${attempt}`).chance(o.batchFailureRate)) exitCode = 1;
  }
  return { startupMs: Math.round(startup), readyDelayMs: Math.round(readyDelay), runMs, exitCode, imagePullFails: ann[SIM.imagePull] === 'fail' };
}

const imageIDs = new Map<string, string>();

function imageID(image: string): string {
  let id = imageIDs.get(image);
  if (!id) {
    const repo = image.split('@')[0].replace(/:[^/:]+$/, '');
    id = `${repo}@sha256:${sha256Hex(image)}`;
    if (imageIDs.size < 10_000) imageIDs.set(image, id);
  }
  return id;
}

function containerID(pod: Pod, c: Container, restart: number): string {
  const r = rngFor(fnv32(`${pod.metadata.namespace}/${pod.metadata.name}`), `${c.name}#${restart}`);
  return `containerd://${r.hex(64)}`;
}

function baseStatus(c: Container, restartCount: number, state: ContainerStatus['state'], lastState: ContainerStatus['state'], ready: boolean): ContainerStatus {
  return {
    name: c.name,
    state,
    lastState,
    ready,
    restartCount,
    image: c.image ?? '',
    imageID: state.waiting && restartCount === 0 ? '' : imageID(c.image ?? ''),
    ...(state.waiting && restartCount === 0 ? {} : {}),
    started: !!state.running,
  };
}

function conds(prev: Condition[] | undefined, now: string, set: Array<[string, 'True' | 'False', string?]>): Condition[] {
  let out = prev ? [...prev] : [];
  for (const [type, status, reason] of set) {
    out = setCondition(out, { type, status, lastProbeTime: null, ...(reason ? { reason } : {}) }, now);
  }
  // The order kubectl shows: the kubelet's conditions, then PodScheduled.
  const order = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];
  return out.sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type));
}

/**
 * Pure: the next status of a bound, non-terminal pod at `nowMs`, and when to look again.
 * States: accepted (ContainerCreating) → running (ready after the readiness delay) → exited → Succeeded /
 * Failed, or back-off and a restart in place.
 */
export function kubeletStep(pod: Pod, nowMs: number, o: ResolvedOptions, node: NodeAddressing): KubeletStep {
  const now = iso(nowMs);
  const st = pod.status ?? {};
  const containers = pod.spec.containers ?? [];
  const inits = (pod.spec.initContainers ?? []).filter((c) => c.restartPolicy !== 'Always');
  const cs = st.containerStatuses ?? [];
  const restarts = cs[0]?.restartCount ?? 0;
  const tl = timelineOf(pod, o, restarts);
  const hasProbe = containers.some((c) => !!c.readinessProbe);

  // 1. Accepted by the kubelet: pulling images / creating containers.
  if (!st.startTime) {
    const startTime = now;
    const accepted: PodStatus = {
      ...st,
      phase: 'Pending',
      hostIP: node.hostIP,
      hostIPs: [{ ip: node.hostIP }],
      startTime,
      conditions: conds(st.conditions, now, [
        ['PodReadyToStartContainers', 'False'],
        ['Initialized', inits.length > 0 ? 'False' : 'True', inits.length > 0 ? 'ContainersNotInitialized' : undefined],
        ['Ready', 'False', 'ContainersNotReady'],
        ['ContainersReady', 'False', 'ContainersNotReady'],
      ]),
      ...(inits.length > 0
        ? { initContainerStatuses: inits.map((c) => baseStatus(c, 0, { waiting: { reason: 'PodInitializing' } }, {}, false)) }
        : {}),
      containerStatuses: containers.map((c) =>
        baseStatus(c, 0, { waiting: { reason: inits.length > 0 ? 'PodInitializing' : 'ContainerCreating' } }, {}, false),
      ),
    };
    if (tl.startupMs > 0 || tl.imagePullFails) return { status: accepted, wakeAt: nowMs + Math.max(tl.startupMs, 1) };
    return kubeletStep({ ...pod, status: accepted }, nowMs, o, node);
  }

  const startedAt = Date.parse(st.startTime);
  const waiting = cs[0]?.state.waiting;

  // 2. Image pull failure: the pod never starts.
  if (tl.imagePullFails) {
    const reason = waiting?.reason === 'ErrImagePull' || waiting?.reason === 'ImagePullBackOff' ? 'ImagePullBackOff' : 'ErrImagePull';
    const image = containers[0]?.image ?? '';
    const message = reason === 'ErrImagePull'
      ? `failed to pull and unpack image "${image}": failed to resolve reference "${image}": not found`
      : `Back-off pulling image "${image}"`;
    const status: PodStatus = {
      ...st,
      containerStatuses: containers.map((c) => baseStatus(c, 0, { waiting: { reason, message } }, {}, false)),
    };
    return { status, wakeAt: reason === 'ErrImagePull' ? nowMs + 10_000 : undefined };
  }

  // 3. Start (first time, or again after a crash back-off).
  if (waiting && (waiting.reason === 'ContainerCreating' || waiting.reason === 'PodInitializing' || waiting.reason === 'CrashLoopBackOff')) {
    const due = waiting.reason === 'CrashLoopBackOff' ? Date.parse(backoffUntil(cs[0]) ?? now) : startedAt + tl.startupMs;
    if (nowMs < due) return { status: st, wakeAt: due };
    const podIP = st.podIP ?? node.nextPodIP();
    const ready = !hasProbe;
    const status: PodStatus = {
      ...st,
      phase: 'Running',
      podIP,
      podIPs: [{ ip: podIP }],
      conditions: conds(st.conditions, now, [
        ['PodReadyToStartContainers', 'True'],
        ['Initialized', 'True'],
        ['Ready', ready ? 'True' : 'False', ready ? undefined : 'ContainersNotReady'],
        ['ContainersReady', ready ? 'True' : 'False', ready ? undefined : 'ContainersNotReady'],
      ]),
      ...(inits.length > 0
        ? {
            initContainerStatuses: inits.map((c) =>
              baseStatus(c, 0, { terminated: { exitCode: 0, reason: 'Completed', startedAt: st.startTime, finishedAt: now, containerID: containerID(pod, c, 0) } }, {}, false),
            ),
          }
        : {}),
      containerStatuses: containers.map((c, i) => {
        const prev = cs[i];
        return { ...baseStatus(c, prev?.restartCount ?? 0, { running: { startedAt: now } }, prev?.lastState ?? {}, ready), containerID: containerID(pod, c, prev?.restartCount ?? 0) };
      }),
    };
    const wake = Math.min(ready ? Infinity : nowMs + tl.readyDelayMs, nowMs + tl.runMs);
    return { status, wakeAt: Number.isFinite(wake) ? wake : undefined };
  }

  const running = cs[0]?.state.running;
  if (!running) return { status: st };
  const runStart = Date.parse(running.startedAt);
  const exitAt = runStart + tl.runMs;

  // 4. Exit of the main containers.
  if (nowMs >= exitAt) {
    const code = tl.exitCode;
    const policy = pod.spec.restartPolicy ?? 'Always';
    const terminated = (c: Container, i: number): ContainerStatus['state'] => ({
      terminated: {
        exitCode: code,
        reason: code === 0 ? 'Completed' : 'Error',
        startedAt: running.startedAt,
        finishedAt: now,
        containerID: cs[i]?.containerID ?? containerID(pod, c, restarts),
      },
    });
    if (policy === 'Never' || (policy === 'OnFailure' && code === 0)) {
      const phase = code === 0 ? 'Succeeded' : 'Failed';
      const status: PodStatus = {
        ...st,
        phase,
        conditions: conds(st.conditions, now, [
          ['PodReadyToStartContainers', 'False'],
          ['Ready', 'False', 'PodCompleted'],
          ['ContainersReady', 'False', 'PodCompleted'],
        ]),
        containerStatuses: containers.map((c, i) => ({ ...baseStatus(c, restarts, terminated(c, i), cs[i]?.lastState ?? {}, false), containerID: cs[i]?.containerID })),
      };
      return { status };
    }
    // Restart in place: the kubelet backs off 10 s, 20 s, 40 s … up to 5 minutes.
    const backoff = Math.min(o.crashBackoffMs * 2 ** restarts, 300_000);
    const status: PodStatus = {
      ...st,
      conditions: conds(st.conditions, now, [
        ['Ready', 'False', 'ContainersNotReady'],
        ['ContainersReady', 'False', 'ContainersNotReady'],
      ]),
      containerStatuses: containers.map((c, i) => ({
        ...baseStatus(
          c,
          restarts + 1,
          { waiting: { reason: 'CrashLoopBackOff', message: `back-off ${Math.round(backoff / 1000)}s restarting failed container=${c.name} pod=${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})` } },
          terminated(c, i),
          false,
        ),
        containerID: cs[i]?.containerID,
      })),
    };
    return { status, wakeAt: nowMs + backoff };
  }

  // 5. Readiness (after a failed probe, readiness comes back one readiness delay later).
  const readyCond = st.conditions?.find((c) => c.type === 'Ready');
  const notReadySince = readyCond?.status === 'False' && readyCond.lastTransitionTime ? Math.max(runStart, Date.parse(readyCond.lastTransitionTime)) : runStart;
  if (readyCond?.status !== 'True' && nowMs >= notReadySince + tl.readyDelayMs) {
    const status: PodStatus = {
      ...st,
      conditions: conds(st.conditions, now, [
        ['Ready', 'True'],
        ['ContainersReady', 'True'],
      ]),
      containerStatuses: cs.map((c) => ({ ...c, ready: true })),
    };
    return { status, wakeAt: Number.isFinite(exitAt) ? exitAt : undefined };
  }
  const next = Math.min(readyCond?.status === 'True' ? Infinity : notReadySince + tl.readyDelayMs, exitAt);
  return { status: st, wakeAt: Number.isFinite(next) ? next : undefined };
}

/** The status of a pod that was accepted, started and became ready at `nowMs` (bulk path). */
export function instantRunning(pod: Pod, nowMs: number, node: NodeAddressing): PodStatus {
  const now = iso(nowMs);
  const st = pod.status ?? {};
  const podIP = node.nextPodIP();
  const inits = (pod.spec.initContainers ?? []).filter((c) => c.restartPolicy !== 'Always');
  const cond = (type: string): Condition => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: now });
  const scheduled = st.conditions?.find((c) => c.type === 'PodScheduled');
  return {
    ...st,
    phase: 'Running',
    hostIP: node.hostIP,
    hostIPs: [{ ip: node.hostIP }],
    startTime: now,
    conditions: [cond('PodReadyToStartContainers'), cond('Initialized'), cond('Ready'), cond('ContainersReady'), scheduled ?? cond('PodScheduled')],
    podIP,
    podIPs: [{ ip: podIP }],
    ...(inits.length > 0
      ? { initContainerStatuses: inits.map((c) => baseStatus(c, 0, { terminated: { exitCode: 0, reason: 'Completed', startedAt: now, finishedAt: now, containerID: containerID(pod, c, 0) } }, {}, false)) }
      : {}),
    containerStatuses: (pod.spec.containers ?? []).map((c) => ({ ...baseStatus(c, 0, { running: { startedAt: now } }, {}, true), containerID: containerID(pod, c, 0) })),
  };
}

/** When a container in CrashLoopBackOff may start again (finish time of the last run + back-off). */
function backoffUntil(c: ContainerStatus | undefined): string | undefined {
  const fin = c?.lastState.terminated?.finishedAt;
  const m = /back-off (\d+)s/.exec(c?.state.waiting?.message ?? '');
  if (!fin || !m) return fin;
  return iso(Date.parse(fin) + Number(m[1]) * 1000);
}

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

  /** Nodes by name, from the event stream (every pod transition needs its node's addresses). */
  private readonly nodes = new Map<string, KubeObject>();

  observe(event: WatchEvent): void {
    const o = event.object;
    if (o.kind === 'Pod') {
      if (event.type === 'DELETED') this.runTimes.delete(o.metadata.uid!);
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
      if ((pod.metadata.finalizers ?? []).length === 0) rt.delete(pod);
      return;
    }
    const phase = pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return;
    const node = this.node(rt, pod.spec.nodeName);
    if (!node) return;
    const step = kubeletStep(pod, rt.nowMs(), rt.options, this.addressing(node));
    rt.setStatus(pod, step.status);
    if (step.wakeAt !== undefined) rt.after(this, ns, name, Math.max(1, step.wakeAt - rt.nowMs()));
  }
}
