/**
 * `wmap get workloads -w`: after the first listing, the rows as they change. The CLI has no server
 * to stream from, so it watches the cluster as the live index does — a list+watch (ListWatch) per
 * kind the snapshot read, in the same places (cluster-wide, or the namespaces it could read) — feeds
 * the snapshot's index, and hands each flush's changed rows to the caller, removed rows with their
 * last state (kubectl -w prints a deleted object's last row too). Ends when `until` resolves.
 */
import { ListWatch, type ClusterObject } from '../cluster/index.ts';
import type { KubeObject } from '../engine/index.ts';
import type { WorkloadRow } from '../workloads/index.ts';
import type { Snapshot } from './snapshot.ts';

export interface RowChange {
  row: WorkloadRow;
  deleted: boolean;
}

function uidOf(o: { metadata?: { uid?: unknown } }): string {
  return typeof o.metadata?.uid === 'string' ? o.metadata.uid : '';
}

export async function watchRows(snap: Snapshot, onChanges: (changes: RowChange[]) => void, until: Promise<void>, opts: { coalesceMs?: number } = {}): Promise<void> {
  const { index, cluster } = snap;
  const last = new Map<string, WorkloadRow>(index.allRows().map((r) => [r.id, r]));
  // What each watch last delivered (its kind in its namespace), to tell a relist's removals.
  const held = new Map<string, Map<string, KubeObject>>();
  const keyOf = (gk: string, ns: string | null) => `${gk}\u0000${ns ?? ''}`;
  for (const l of snap.listed) {
    for (const ns of l.namespaces ?? [null]) {
      const m = new Map<string, KubeObject>();
      for (const o of snap.objects.get(l.gk) ?? []) if (ns === null || o.metadata?.namespace === ns) m.set(uidOf(o), o);
      held.set(keyOf(l.gk, ns), m);
    }
  }
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flushSoon = () => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      const changes: RowChange[] = [];
      for (const d of index.flush()) {
        if (d.op === 'upsert') {
          last.set(d.id, d.row);
          changes.push({ row: d.row, deleted: false });
        } else {
          const row = last.get(d.id);
          last.delete(d.id);
          if (row) changes.push({ row, deleted: true });
        }
      }
      if (changes.length > 0) onChanges(changes);
    }, opts.coalesceMs ?? 100);
  };
  const watches: ListWatch[] = [];
  for (const l of snap.listed) {
    for (const ns of l.namespaces ?? [null]) {
      const mine = held.get(keyOf(l.gk, ns))!;
      const put = (objs: readonly ClusterObject[]) => {
        for (const o of objs) mine.set(uidOf(o), o as KubeObject);
        index.upsertMany(cluster, objs as KubeObject[]);
      };
      const lw = new ListWatch(snap.kubeconfig, l.resource, {
        onEvent: (type, obj) => {
          if (type === 'DELETED') {
            mine.delete(uidOf(obj));
            index.remove(cluster, obj as KubeObject);
          } else put([obj]);
          flushSoon();
        },
        onListPage: (objs) => put(objs),
        onList: (objs) => {
          const now = new Set(objs.map(uidOf));
          for (const [uid, o] of mine) {
            if (now.has(uid)) continue;
            mine.delete(uid);
            index.remove(cluster, o);
          }
          put(objs);
          flushSoon();
        },
        onState: () => {},
      }, { cluster, namespace: ns ?? undefined, forbiddenRetryMs: 60_000 });
      watches.push(lw);
      lw.start();
    }
  }
  try {
    await until;
  } finally {
    if (timer) clearTimeout(timer);
    for (const w of watches) w.stop();
  }
}
