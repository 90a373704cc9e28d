/**
 * The rows the index emits, by id: each row, its JSON as last emitted (so that a re-resolve that
 * changes nothing emits nothing), the root it came from, and the delta log and listeners its
 * changes go to.
 */
import { DeltaLog, type DeltaLogOptions } from './delta-log.ts';
import type { RowDelta, WorkloadRow } from './row.ts';

export type DeltaListener = (deltas: RowDelta[]) => void;

export class RowTable {
  private readonly rows = new Map<string, WorkloadRow>();
  private readonly json = new Map<string, string>();
  private readonly roots = new Map<string, { cluster: string; uid: string }>();
  private readonly listeners = new Set<DeltaListener>();
  readonly log: DeltaLog;

  constructor(log: DeltaLogOptions = {}) {
    this.log = new DeltaLog(log);
  }

  all(): WorkloadRow[] {
    return [...this.rows.values()];
  }

  get(id: string): WorkloadRow | undefined {
    return this.rows.get(id);
  }

  rootOf(id: string): { cluster: string; uid: string } | undefined {
    return this.roots.get(id);
  }

  /** Keeps a root's row; a delta into `out` when its JSON changed. */
  put(cluster: string, uid: string, row: WorkloadRow, out: RowDelta[]): void {
    const json = JSON.stringify(row);
    this.roots.set(row.id, { cluster, uid });
    if (this.json.get(row.id) === json) return;
    this.rows.set(row.id, row);
    this.json.set(row.id, json);
    out.push(this.log.upsert(row, json.length));
  }

  remove(id: string, out: RowDelta[]): void {
    this.rows.delete(id);
    this.json.delete(id);
    this.roots.delete(id);
    out.push(this.log.remove(id));
  }

  subscribe(l: DeltaListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  emit(deltas: RowDelta[]): void {
    if (deltas.length === 0) return;
    for (const l of this.listeners) {
      try {
        l(deltas);
      } catch {
        // A failing listener (a closed stream) must not stop the others.
      }
    }
  }
}
