/**
 * Drilling into one pod or one workload beyond what the watches hold: Events (read on demand, as
 * `kubectl describe` does — the server watches no Events, a busy cluster makes thousands an hour)
 * and container logs (streamed through the API server's `pods/log`). Only pods the index holds are
 * reachable: the dashboard is no open proxy to the API server.
 */
import type { EventItem, EventList, PodDetail } from '../../contract/pod.ts';
import { podSpecGpus, podWhy, type KubeObject } from '../engine/index.ts';
import { eventItem, newestFirst, podConditions, podContainers } from './pod-facts.ts';
import { findRow } from './views.ts';
import type { WorkloadIndex } from './workload-index.ts';

/** What reading a cluster takes: one GET, one streamed GET (ClusterConnection provides both). */
export interface ClusterReader {
  getJson<T>(path: string, signal?: AbortSignal): Promise<T>;
  streamText(path: string, onChunk: (text: string) => void, signal: AbortSignal, onOpen?: () => void): Promise<void>;
}

/** Events shown for one pod or workload, at most (newest first; the rest are counted). */
export const EVENTS_LIMIT = 300;
/** Events read from a namespace for a workload's timeline, at most (pages of 500). */
const SCAN_LIMIT = 5000;

type Rec = Record<string, unknown>;
const enc = encodeURIComponent;

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Events about any of `uids` in a namespace. One pod: the API server filters by uid (a field
 * selector). A workload: the namespace's events are paged through and filtered here, since one
 * selector cannot name thousands of objects.
 */
export async function eventsAbout(reader: ClusterReader, namespace: string, uids: ReadonlySet<string>, now: number, signal?: AbortSignal): Promise<EventList> {
  const base = namespace ? `/api/v1/namespaces/${enc(namespace)}/events` : '/api/v1/events';
  const at = new Date(now).toISOString();
  const found: EventItem[] = [];
  try {
    if (uids.size === 1) {
      const [uid] = uids;
      const list = await reader.getJson<{ items?: Rec[] }>(`${base}?fieldSelector=${enc(`involvedObject.uid=${uid}`)}&limit=${SCAN_LIMIT}`, signal);
      for (const e of list.items ?? []) found.push(eventItem(e));
    } else {
      let cont = '';
      let read = 0;
      do {
        const list = await reader.getJson<{ items?: Rec[]; metadata?: { continue?: string } }>(`${base}?limit=500${cont ? `&continue=${enc(cont)}` : ''}`, signal);
        for (const e of list.items ?? []) {
          const item = eventItem(e);
          if (item.object.uid && uids.has(item.object.uid)) found.push(item);
        }
        read += list.items?.length ?? 0;
        cont = list.metadata?.continue ?? '';
      } while (cont && read < SCAN_LIMIT);
    }
  } catch (e) {
    return { events: [], at, truncated: 0, error: `the events could not be read: ${errorText(e)}` };
  }
  found.sort(newestFirst);
  return { events: found.slice(0, EVENTS_LIMIT), at, truncated: Math.max(0, found.length - EVENTS_LIMIT), error: null };
}

/** A pod the index holds, by uid when the caller knows it (fast), else by namespace and name. */
export function findPod(index: WorkloadIndex, cluster: string, namespace: string, name: string, uid?: string | null): KubeObject | null {
  if (uid) {
    const o = index.object(cluster, uid);
    if (o && o.kind === 'Pod' && o.metadata?.name === name && (o.metadata?.namespace ?? '') === namespace) return o;
  }
  for (const p of index.pods(cluster)) if (p.metadata?.name === name && (p.metadata?.namespace ?? '') === namespace) return p;
  return null;
}

/** Everything the pod panel shows; null when the index holds no such pod. */
export async function podDetail(index: WorkloadIndex, reader: ClusterReader | null, cluster: string, namespace: string, name: string, uid: string | null, now: number): Promise<PodDetail | null> {
  const pod = findPod(index, cluster, namespace, name, uid);
  if (!pod) return null;
  const podUid = pod.metadata?.uid ?? '';
  const rowId = podUid ? index.rowIdOf(cluster, podUid) : undefined;
  const row = rowId ? index.row(rowId) : undefined;
  const status = (pod.status ?? {}) as Rec;
  const events = reader ? await eventsAbout(reader, namespace, new Set([podUid]), now) : { events: [], at: new Date(now).toISOString(), truncated: 0, error: `cluster ${cluster} is not connected` };
  const { managedFields: _m, ...metadata } = (pod.metadata ?? {}) as Rec;
  const conditions = podConditions(pod);
  return {
    cluster,
    namespace,
    name,
    uid: podUid,
    phase: typeof status.phase === 'string' ? status.phase : 'Pending',
    ready: conditions.some((c) => c.type === 'Ready' && c.status === 'True'),
    node: typeof (pod.spec as Rec | undefined)?.nodeName === 'string' ? ((pod.spec as Rec).nodeName as string) : null,
    podIP: typeof status.podIP === 'string' ? status.podIP : null,
    qosClass: typeof status.qosClass === 'string' ? status.qosClass : null,
    startedAt: typeof status.startTime === 'string' ? status.startTime : null,
    createdAt: typeof metadata.creationTimestamp === 'string' ? metadata.creationTimestamp : null,
    why: podWhy(pod),
    conditions,
    containers: podContainers(pod, index.isGpuResource),
    gpus: podSpecGpus(pod.spec, index.isGpuResource),
    workload: row ? { id: row.id, kind: row.kind, name: row.name } : null,
    object: { ...pod, metadata },
    events,
  };
}

/** The events of a workload: its root and everything it owns (pods included), newest first. */
export async function workloadEvents(index: WorkloadIndex, reader: ClusterReader | null, cluster: string, namespace: string, kind: string, name: string, now: number): Promise<EventList | null> {
  const row = findRow(index, cluster, namespace, kind, name);
  const at = row ? index.rootOfRow(row.id) : undefined;
  if (!row || !at) return null;
  const uids = new Set([at.uid, ...index.ownedUids(at.cluster, at.uid)]);
  if (!reader) return { events: [], at: new Date(now).toISOString(), truncated: 0, error: `cluster ${cluster} is not connected` };
  return eventsAbout(reader, row.namespace, uids, now);
}

export interface LogQuery {
  container?: string;
  previous?: boolean;
  tailLines?: number;
  sinceSeconds?: number;
  timestamps?: boolean;
  follow?: boolean;
  limitBytes?: number;
}

/** The API server path of a container's log, with kubectl's parameters. */
export function logPath(namespace: string, name: string, q: LogQuery): string {
  const params = new URLSearchParams();
  if (q.container) params.set('container', q.container);
  if (q.previous) params.set('previous', 'true');
  if (q.tailLines !== undefined) params.set('tailLines', String(q.tailLines));
  if (q.sinceSeconds !== undefined) params.set('sinceSeconds', String(q.sinceSeconds));
  if (q.timestamps) params.set('timestamps', 'true');
  if (q.follow) params.set('follow', 'true');
  if (q.limitBytes !== undefined) params.set('limitBytes', String(q.limitBytes));
  const qs = params.toString();
  return `/api/v1/namespaces/${enc(namespace)}/pods/${enc(name)}/log${qs ? `?${qs}` : ''}`;
}
