/**
 * The pure part of the simulated kubelet (kubelet.ts): a pod's timeline (start-up, readiness, run time,
 * exit code) and, from it and the pod's own status, its next status and when to look again.
 */

import type { ResolvedOptions } from './options.ts';
import { pick } from './options.ts';
import { SIM } from './pods.ts';
import { parseDuration, setCondition } from './meta.ts';
import { fnv32, rngFor, sha256Hex } from './random.ts';
import type { Condition, Container, ContainerStatus, Pod, PodStatus } from './types.ts';

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
  /** `terminated.reason` of a non-zero exit (Error, or OOMKilled when the kernel killed it). */
  exitReason: string;
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
  const exitReason = ann[SIM.exitReason] || 'Error';
  return { startupMs: Math.round(startup), readyDelayMs: Math.round(readyDelay), runMs, exitCode, exitReason, imagePullFails: ann[SIM.imagePull] === 'fail' };
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
        reason: code === 0 ? 'Completed' : tl.exitReason,
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
