/**
 * The browser's copy of the server's rows, kept equal to it by the stream: a snapshot replaces
 * everything (rows it lacks are gone), deltas upsert or remove one row each. Deltas at or below
 * the last applied sequence number are duplicates of what a resume re-sent, and are skipped.
 */
import type { ClusterInfo, RowDelta, WorkloadRow, SnapshotEvent } from '../../contract/index.ts';

export class RowStore {
  private rows = new Map<string, WorkloadRow>();
  private listCache: WorkloadRow[] | null = null;
  private listeners = new Set<() => void>();
  private _clusters: ClusterInfo[] = [];
  private _seq: number | null = null;
  private _hasSnapshot = false;
  private _version = 0;

  get seq(): number | null {
    return this._seq;
  }
  get hasSnapshot(): boolean {
    return this._hasSnapshot;
  }
  /** Bumped on every change; what `useSyncExternalStore` compares. */
  get version(): number {
    return this._version;
  }
  get clusters(): ClusterInfo[] {
    return this._clusters;
  }
  get size(): number {
    return this.rows.size;
  }

  get(id: string): WorkloadRow | undefined {
    return this.rows.get(id);
  }

  /** All rows, as one array that stays the same object until the next change. */
  list(): WorkloadRow[] {
    if (!this.listCache) this.listCache = [...this.rows.values()];
    return this.listCache;
  }

  applySnapshot(s: SnapshotEvent): void {
    const next = new Map<string, WorkloadRow>();
    for (const r of s.rows) {
      // Keep the old object when nothing changed, so per-row caches (CEL, search) stay warm.
      const old = this.rows.get(r.id);
      next.set(r.id, old && sameRow(old, r) ? old : r);
    }
    this.rows = next;
    this._clusters = s.clusters;
    this._seq = s.seq;
    this._hasSnapshot = true;
    this.changed();
  }

  /** Returns how many deltas changed something. */
  applyDeltas(deltas: readonly RowDelta[]): number {
    let applied = 0;
    for (const d of deltas) {
      if (this._seq !== null && d.seq <= this._seq) continue;
      this._seq = d.seq;
      if (d.op === 'upsert') this.rows.set(d.id, d.row);
      else if (!this.rows.delete(d.id)) continue;
      applied++;
    }
    if (applied > 0) this.changed();
    return applied;
  }

  setClusters(clusters: ClusterInfo[]): void {
    this._clusters = clusters;
    this.changed();
  }

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    this.listCache = null;
    this._version++;
    for (const fn of this.listeners) {
      // A failing view must not stop the stream that feeds every other view.
      try {
        fn();
      } catch (e) {
        console.error('workload-map: a row listener failed', e);
      }
    }
  }
}

function sameRow(a: WorkloadRow, b: WorkloadRow): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
