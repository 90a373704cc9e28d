/**
 * Status mapping (reference §3.6): the native phase and conditions of the workload, matched against
 * the definition's mappings, reported in the vocabulary order; `Undefined` when nothing matches.
 *
 * Deliberate differences from upstream:
 * - `byExpression` compares the expression's first output, rendered by jq's `tostring`, with
 *   `expectedResult` as a string, instead of pasting the expected text into a jq program (a value
 *   with `"` broke parsing or injected jq: pitfall P-06);
 * - a failing expression makes its matcher not hold and is reported in `errors`; the other
 *   statuses are still evaluated (upstream aborts the whole status).
 */
import type { CompiledStatus } from './definition/compile.ts';
import type { StatusMappingKey } from './definition/types.ts';
import { EngineFailure, type EngineError } from './errors.ts';
import { jqToString } from './jq/index.ts';
import { isRecord } from './k8s.ts';
import { STATUS_ORDER, type MappedStatus, type TreeCondition, type TreeStatus } from './tree.ts';

const NAMES: Record<StatusMappingKey, MappedStatus> = {
  resuming: 'Resuming',
  suspending: 'Suspending',
  suspended: 'Suspended',
  running: 'Running',
  failed: 'Failed',
  completed: 'Completed',
  initializing: 'Initializing',
  degraded: 'Degraded',
};

function fieldString(o: Record<string, unknown>, field: string | null): string | null {
  if (!field) return null;
  const v = o[field];
  return typeof v === 'string' ? v : null;
}

export function evaluateStatus(status: CompiledStatus | undefined, root: unknown, subject: string, errors: EngineError[]): TreeStatus {
  if (!status) return { matched: ['Undefined'], phase: null, conditions: [] };
  const report = (e: unknown) => {
    if (e instanceof EngineFailure) errors.push(e.toValue());
    else throw e;
  };
  let phase: string | null = null;
  if (status.phase) {
    try {
      const r = status.phase.run(root, subject);
      if (r.length > 0) {
        if (r[0] === null) phase = '';
        else if (typeof r[0] === 'string') phase = r[0];
        else throw new EngineFailure('expression.type', `${status.phase.path}: phase must be a string, got ${JSON.stringify(r[0])} in ${subject}`, status.phase.path);
      }
    } catch (e) {
      report(e);
    }
  }
  const conditions: TreeCondition[] = [];
  const byType = new Map<string, TreeCondition>();
  if (status.conditions) {
    const c = status.conditions;
    try {
      for (const r of c.expr.run(root, subject)) {
        if (r === null) continue;
        if (!Array.isArray(r)) throw new EngineFailure('expression.type', `${c.expr.path}: conditions must be an array of objects, got ${JSON.stringify(r).slice(0, 80)} in ${subject}`, c.expr.path);
        for (const item of r) {
          if (!isRecord(item)) continue;
          const cond: TreeCondition = {
            type: fieldString(item, c.typeField) ?? '',
            status: fieldString(item, c.statusField),
            reason: fieldString(item, c.reasonField),
            message: fieldString(item, c.messageField),
          };
          conditions.push(cond);
          byType.set(cond.type, cond); // duplicates: the last one wins, as upstream
        }
      }
    } catch (e) {
      report(e);
    }
  }
  const matched = new Set<MappedStatus>();
  for (const mapping of status.mappings) {
    for (const m of mapping.matchers) {
      if (m.byPhase && phase !== m.byPhase) continue;
      if (m.byConditions && !m.byConditions.every((want) => {
        const got = byType.get(want.type);
        if (!got) return false; // a condition listed with status "False" must be present
        if (want.status && got.status !== want.status) return false;
        if (want.reason && got.reason !== want.reason) return false;
        return true;
      })) continue;
      if (m.byExpression) {
        try {
          const out = m.byExpression.expr.run(root, subject);
          if (out.length === 0) continue;
          if (jqToString(out[0]) !== m.byExpression.expected) continue;
        } catch (e) {
          report(e);
          continue;
        }
      }
      matched.add(NAMES[mapping.status]);
      break;
    }
  }
  const list = STATUS_ORDER.filter((s) => matched.has(s));
  return { matched: list.length > 0 ? list : ['Undefined'], phase, conditions };
}
