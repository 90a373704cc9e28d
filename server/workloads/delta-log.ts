/**
 * The log of row deltas that clients resume from (`Last-Event-ID`): a ring buffer bounded in bytes
 * (and optionally in entries), so that churn cannot grow the server's memory without bound. The
 * oldest deltas go first; a client asking for deltas older than the log holds gets a snapshot.
 *
 * Sequence numbers start from the process's start time in microseconds, so an event id from another
 * server process (before a restart) is never mistaken for one of ours: it falls outside our log and
 * the client gets a fresh snapshot.
 */
import type { RowDelta, WorkloadRow } from './row.ts';

export interface DeltaLogOptions {
  /** Bytes of deltas kept (their JSON size, roughly), default 64 MiB. */
  maxBytes?: number;
  /** Deltas kept at most, default unbounded (the byte bound decides). */
  maxEntries?: number;
  /** The first sequence number is this + 1 (default: now in microseconds). */
  startSeq?: number;
}

// A removal's JSON (`{"seq":…,"op":"remove","id":"…"}`) without the id.
const REMOVE_OVERHEAD = 40;

export class DeltaLog {
  private entries: RowDelta[] = [];
  private sizes: number[] = [];
  /** Index of the oldest kept entry: dropping moves it, compaction happens now and then. */
  private head = 0;
  private bytes = 0;
  private seq: number;
  private readonly maxBytes: number;
  private readonly maxEntries: number;

  constructor(o: DeltaLogOptions = {}) {
    this.maxBytes = o.maxBytes ?? 64 * 1024 * 1024;
    this.maxEntries = o.maxEntries ?? Number.POSITIVE_INFINITY;
    this.seq = o.startSeq ?? Date.now() * 1000;
  }

  get currentSeq(): number {
    return this.seq;
  }

  /** Deltas kept, and their size in bytes. */
  get length(): number {
    return this.entries.length - this.head;
  }

  get byteSize(): number {
    return this.bytes;
  }

  /** A removal, numbered and logged. */
  remove(id: string): RowDelta {
    const d: RowDelta = { seq: ++this.seq, op: 'remove', id };
    this.append(d, REMOVE_OVERHEAD + id.length);
    return d;
  }

  /** An upsert, numbered and logged; `bytes` is the row's JSON length (the caller has it already). */
  upsert(row: WorkloadRow, bytes: number): RowDelta {
    const d: RowDelta = { seq: ++this.seq, op: 'upsert', id: row.id, row };
    this.append(d, bytes + REMOVE_OVERHEAD + row.id.length);
    return d;
  }

  private append(d: RowDelta, size: number): void {
    this.entries.push(d);
    this.sizes.push(size);
    this.bytes += size;
    while (this.length > 0 && (this.bytes > this.maxBytes || this.length > this.maxEntries)) {
      this.bytes -= this.sizes[this.head];
      this.head++;
    }
    // Compact once the dropped prefix is as long as what is kept: amortised O(1) per delta.
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.sizes = this.sizes.slice(this.head);
      this.head = 0;
    }
  }

  /** Deltas after `seq`, or null when they are no longer kept (the client needs a snapshot). */
  since(seq: number): RowDelta[] | null {
    if (seq === this.seq) return [];
    if (seq > this.seq || this.length === 0) return null;
    const first = this.entries[this.head];
    if (first.seq > seq + 1) return null;
    // Sequence numbers are consecutive: the position follows from the number.
    return this.entries.slice(this.head + (seq + 1 - first.seq));
  }
}
