/**
 * How each definition is doing on the live objects, per cluster: the workloads on which it fails
 * (its expressions error, or its structure does not fit and another definition had to serve), and
 * whether it is quarantined. A cluster's own definition (code from the cluster, not ours) that
 * exceeds its evaluation budgets or crashes the engine on several workloads is quarantined in that
 * cluster: it is no longer evaluated, its workloads are served by the next definition of their kind
 * or show why there is none, and every other definition keeps working. The quarantine lasts until
 * the definition changes. Catalog definitions are never quarantined: they are tested, so a failure
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

export class DefinitionHealth {
  private readonly records = new Map<string, Record_>();
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
    this.records.delete(definitionKey(cluster, d));
  }

  status(cluster: string, d: { name: string; source: string }): DefinitionStatus {
    const r = this.records.get(definitionKey(cluster, d));
    if (!r) return { failing: 0, example: null, quarantined: null };
    const first = r.failures.values().next();
    return { failing: r.failures.size, example: first.done ? null : first.value, quarantined: r.quarantined };
  }
}
