/**
 * How each definition is doing on the live objects, per cluster: the workloads on which it fails
 * (its expressions error, or its structure does not fit and another definition had to serve), and
 * whether it is quarantined. A cluster's own definition (code from the cluster, not ours) that
 * exceeds its evaluation budgets or crashes the engine on several workloads is quarantined in that
 * cluster: it is no longer evaluated, its workloads are served by the next definition of their kind
 * or show why there is none, and every other definition keeps working. The quarantine lasts until
 * the definition changes, across restarts too when a state file is given (a restarted server does
 * not evaluate again a definition it quarantined, unless it changed). Catalog definitions are never quarantined: they are tested, so a failure
 * there comes from the objects, and only the workloads of those objects show it — otherwise a few
 * hostile objects could blind a whole kind.
 */
import type { CompiledDefinition } from '../engine/index.ts';

/** Error codes that mean the evaluation itself is the problem (cost or a crash), not the object. */
export const QUARANTINE_CODES = new Set(['expression.limit', 'engine.internal']);

/** Distinct workloads on which a definition must hit those before it is quarantined. */
export const QUARANTINE_AFTER = 3;

/** Workloads remembered per definition (for counts and an example); beyond this only counted. */
const MAX_REMEMBERED = 1000;

export interface Failure {
  code: string;
  message: string;
}

export interface DefinitionStatus {
  /** Workloads on which it currently fails. */
  failing: number;
  example: Failure | null;
  quarantined: { reason: string; since: string } | null;
}

interface Record_ {
  failures: Map<string, Failure>;
  severe: Set<string>;
  quarantined: { reason: string; since: string } | null;
}

/** One definition's identity in one cluster (cluster definitions exist per cluster anyway). */
export function definitionKey(cluster: string, d: { name: string; source: string }): string {
  return `${cluster}\u0000${d.source}\u0000${d.name}`;
}

/** A quarantine as kept across restarts: which definition (and which content of it), and why. */
export interface QuarantineRecord {
  cluster: string;
  name: string;
  source: string;
  /** Hash of the definition's content: a changed definition is not quarantined any more. */
  content: string;
  reason: string;
  since: string;
}

export class DefinitionHealth {
  private readonly records = new Map<string, Record_>();
  /** definition key → hash of the content currently loaded (cluster definitions). */
  private readonly contents = new Map<string, string>();
  /** Quarantines carried over from before a restart, applied when the same content is loaded. */
  private readonly carried = new Map<string, QuarantineRecord>();
  /** Called whenever the set of quarantines changes (to persist it). */
  onChange: ((records: QuarantineRecord[]) => void) | null = null;
  /** Called when a definition is quarantined (to log it). */
  onQuarantine: ((cluster: string, d: CompiledDefinition, reason: string) => void) | null = null;

  private record(key: string): Record_ {
    let r = this.records.get(key);
    if (!r) this.records.set(key, (r = { failures: new Map(), severe: new Set(), quarantined: null }));
    return r;
  }

  isQuarantined(cluster: string, d: CompiledDefinition): boolean {
    return this.records.get(definitionKey(cluster, d))?.quarantined != null;
  }

  quarantineReason(cluster: string, d: CompiledDefinition): string | null {
    return this.records.get(definitionKey(cluster, d))?.quarantined?.reason ?? null;
  }

  /** The outcome of evaluating `d` on one workload: `null` when it worked. */
  note(cluster: string, d: CompiledDefinition, workload: string, failure: Failure | null): void {
    const key = definitionKey(cluster, d);
    if (failure === null) {
      const r = this.records.get(key);
      if (r) {
        r.failures.delete(workload);
        r.severe.delete(workload);
      }
      return;
    }
    const r = this.record(key);
    if (r.failures.size < MAX_REMEMBERED || r.failures.has(workload)) r.failures.set(workload, failure);
    if (!QUARANTINE_CODES.has(failure.code) || d.source !== 'cluster') return;
    r.severe.add(workload);
    if (r.quarantined === null && r.severe.size >= QUARANTINE_AFTER) {
      const reason = `exceeded its evaluation limits or crashed on ${r.severe.size} workloads; last: ${failure.message}`;
      r.quarantined = { reason, since: new Date().toISOString() };
      this.onQuarantine?.(cluster, d, reason);
      this.onChange?.(this.quarantines());
    }
  }

  /** A workload is gone: it no longer counts against any definition. */
  forgetWorkload(cluster: string, workload: string): void {
    const prefix = `${cluster}\u0000`;
    for (const [key, r] of this.records) {
      if (!key.startsWith(prefix)) continue;
      r.failures.delete(workload);
      r.severe.delete(workload);
    }
  }

  /** The definition changed or went away: a fresh start. */
  forgetDefinition(cluster: string, d: { name: string; source: string }): void {
    const key = definitionKey(cluster, d);
    const was = this.records.get(key)?.quarantined != null;
    this.records.delete(key);
    this.contents.delete(key);
    if (was) this.onChange?.(this.quarantines());
  }

  /**
   * A cluster definition with this content was loaded: if it was quarantined before a restart with
   * the same content, it is quarantined again at once, without being evaluated.
   */
  loaded(cluster: string, d: { name: string; source: string }, content: string): void {
    const key = definitionKey(cluster, d);
    this.contents.set(key, content);
    const c = this.carried.get(key);
    if (!c) return;
    this.carried.delete(key);
    if (c.content === content) this.record(key).quarantined = { reason: c.reason, since: c.since };
  }

  /**
   * A cluster definition object was replaced (`before` → `after`, either absent): a changed one
   * starts with a clean record (and out of quarantine); the same content (a new resourceVersion, a
   * relist) keeps its record.
   */
  replaced(cluster: string, before: { name: string; source: string; content: string } | null, after: { name: string; source: string; content: string } | null): void {
    if (before && after && before.content === after.content && before.name === after.name) return;
    for (const e of [before, after]) if (e) this.forgetDefinition(cluster, e);
    if (after) this.loaded(cluster, after, after.content);
  }

  /** Quarantines from a previous run (see `quarantines`). */
  restore(records: readonly QuarantineRecord[]): void {
    for (const r of records) this.carried.set(definitionKey(r.cluster, r), r);
  }

  /** Every quarantine now, for keeping across restarts (with those not seen again yet). */
  quarantines(): QuarantineRecord[] {
    const out: QuarantineRecord[] = [...this.carried.values()];
    for (const [key, r] of this.records) {
      if (!r.quarantined) continue;
      const [cluster, source, name] = key.split('\u0000');
      out.push({ cluster, name, source, content: this.contents.get(key) ?? '', reason: r.quarantined.reason, since: r.quarantined.since });
    }
    return out;
  }

  status(cluster: string, d: { name: string; source: string }): DefinitionStatus {
    const r = this.records.get(definitionKey(cluster, d));
    if (!r) return { failing: 0, example: null, quarantined: null };
    const first = r.failures.values().next();
    return { failing: r.failures.size, example: first.done ? null : first.value, quarantined: r.quarantined };
  }
}
