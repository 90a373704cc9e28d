/**
 * The Events a kubelet records about a pod, read off the change of its status (pure): image pulls,
 * container creation and start, crash back-off, image-pull failures; plus the node-problem-detector's
 * `OOMKilling` node event when the kernel killed a container for memory. Messages follow kubelet
 * 1.32's wording (`Created container: main`, `Back-off restarting failed container main in pod p_ns(uid)`).
 */

import type { EventType } from './event-recorder.ts';
import { parseQuantity } from './quantity.ts';
import { fnv32 } from './random.ts';
import type { Container, ContainerStatus, Pod, PodStatus } from './types.ts';

export interface KubeletEvent {
  type: EventType;
  reason: string;
  message: string;
  /** `spec.containers{name}` for a container's events. */
  fieldPath?: string;
  /** Recorded on the node by the node-problem-detector's kernel monitor instead of on the pod. */
  node?: boolean;
}

/** `name_namespace(uid)`, how the kubelet names a pod in its messages. */
export function podRef(pod: Pod): string {
  return `${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`;
}

/** A plausible image size in bytes, stable per image. */
function imageSize(image: string): number {
  return 200_000_000 + (fnv32(image) % 9_000_000_000);
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(3).replace(/\.?0+$/, '')}s`;
}

/** The kernel's OOM-kill line for a container, with figures derived from its memory limit. */
export function oomMessage(pod: Pod, c: Container, restart: number): string {
  const h = fnv32(`${pod.metadata.uid}/${c.name}/${restart}`);
  const limit = c.resources?.limits?.memory ?? c.resources?.requests?.memory;
  const limitKb = limit !== undefined ? Math.round(parseQuantity(limit) / 1024) : 16 * 1024 * 1024;
  const anon = Math.round(limitKb * 0.985);
  const process = /python|torch|vllm|ray|nim|dynamo|sglang/i.test(c.image ?? '') ? 'python3' : (c.command?.[0]?.split('/').pop() ?? 'main');
  return `Memory cgroup out of memory: Killed process ${1000 + (h % 60_000)} (${process}) total-vm:${anon + 2_400_000 + (h % 500_000)}kB, anon-rss:${anon}kB, file-rss:${18_000 + (h % 40_000)}kB, shmem-rss:0kB, UID:0 pgtables:${Math.round(anon / 500)}kB oom_score_adj:${c.resources?.limits ? -997 : 1000}`;
}

function containerEvents(pod: Pod, c: Container, fieldPath: string, prev: ContainerStatus | undefined, next: ContainerStatus | undefined, startedMs: number, nowMs: number): KubeletEvent[] {
  const out: KubeletEvent[] = [];
  if (!next) return out;
  const image = c.image ?? '';
  const ev = (type: EventType, reason: string, message: string): void => {
    out.push({ type, reason, message, fieldPath });
  };
  const w = next.state.waiting?.reason;
  const pw = prev?.state.waiting?.reason;
  if (w === 'ErrImagePull' && pw !== 'ErrImagePull') {
    ev('Warning', 'Failed', `Failed to pull image "${image}": ${next.state.waiting?.message ?? 'not found'}`);
    ev('Warning', 'Failed', 'Error: ErrImagePull');
  } else if (w === 'ImagePullBackOff' && pw !== 'ImagePullBackOff') {
    ev('Normal', 'BackOff', `Back-off pulling image "${image}"`);
    ev('Warning', 'Failed', 'Error: ImagePullBackOff');
  }
  const wasRunning = !!prev?.state.running;
  // Started now: first start, a restart after back-off, or an init container that ran to completion.
  const started = (next.state.running && !wasRunning) || (next.state.terminated && !prev?.state.terminated && !wasRunning);
  if (started) {
    if (next.restartCount === 0) {
      const took = Math.max(0, nowMs - startedMs);
      ev('Normal', 'Pulled', `Successfully pulled image "${image}" in ${seconds(took)} (${seconds(took)} including waiting). Image size: ${imageSize(image)} bytes.`);
    } else ev('Normal', 'Pulled', `Container image "${image}" already present on machine`);
    ev('Normal', 'Created', `Created container: ${c.name}`);
    ev('Normal', 'Started', `Started container ${c.name}`);
  }
  if (wasRunning && w === 'CrashLoopBackOff') {
    ev('Warning', 'BackOff', `Back-off restarting failed container ${c.name} in pod ${podRef(pod)}`);
  }
  const term = next.state.terminated ?? (w === 'CrashLoopBackOff' ? next.lastState.terminated : undefined);
  if (wasRunning && term?.reason === 'OOMKilled') {
    out.push({ type: 'Warning', reason: 'OOMKilling', message: oomMessage(pod, c, next.restartCount), node: true });
  }
  return out;
}

/** Pure: the events of a kubelet status step from `before` to `after` at `nowMs`. */
export function kubeletEvents(pod: Pod, before: PodStatus | undefined, after: PodStatus, nowMs: number): KubeletEvent[] {
  const out: KubeletEvent[] = [];
  const inits = (pod.spec.initContainers ?? []).filter((c) => c.restartPolicy !== 'Always');
  const containers = pod.spec.containers ?? [];
  if (!before?.startTime && after.startTime) {
    // Accepted: every image is pulled first (the init containers' before the others').
    for (const c of inits) out.push({ type: 'Normal', reason: 'Pulling', message: `Pulling image "${c.image ?? ''}"`, fieldPath: `spec.initContainers{${c.name}}` });
    for (const c of containers) out.push({ type: 'Normal', reason: 'Pulling', message: `Pulling image "${c.image ?? ''}"`, fieldPath: `spec.containers{${c.name}}` });
  }
  const startedMs = after.startTime ? Date.parse(after.startTime) : nowMs;
  inits.forEach((c, i) => out.push(...containerEvents(pod, c, `spec.initContainers{${c.name}}`, before?.initContainerStatuses?.[i], after.initContainerStatuses?.[i], startedMs, nowMs)));
  containers.forEach((c, i) => out.push(...containerEvents(pod, c, `spec.containers{${c.name}}`, before?.containerStatuses?.[i], after.containerStatuses?.[i], startedMs, nowMs)));
  return out;
}

/** The Killing events of a pod being deleted: one per container still running. */
export function killingEvents(pod: Pod): KubeletEvent[] {
  const cs = pod.status?.containerStatuses ?? [];
  return (pod.spec.containers ?? [])
    .filter((_c, i) => !!cs[i]?.state.running)
    .map((c) => ({ type: 'Normal' as const, reason: 'Killing', message: `Stopping container ${c.name}`, fieldPath: `spec.containers{${c.name}}` }));
}
