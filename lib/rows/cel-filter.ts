/**
 * The advanced filter: a CEL expression over one row, evaluated in the browser
 * (`gpus.allocated >= 8 && status == "Running"`). Row fields are top-level variables, and the whole
 * row is also `self`. Whole numbers are CEL ints (as Kubernetes treats integer fields), so
 * `pods.total + 1` works; `createdAt` is a timestamp and `age` the age in seconds.
 * `namespace` is a reserved word in CEL, so the namespace is `ns` (or `self.namespace`).
 * `usage` is the row's utilization (null without GPUs); `utilization` (percent) and `idleGpus` are
 * short for its figures and are null without readings, so `utilization < 30` fails (and leaves the
 * row out, counted) where there is no data rather than reading it as 0.
 *
 * The expression comes from a URL: it is bounded like every untrusted expression (lib/cel/bounded.ts),
 * per row (`ROW_COST_LIMIT`) and over all rows of one filtering (`TOTAL_COST_LIMIT`), so that it can
 * never stall the server or the page; the limits are steps, not time, so the answer is the same on
 * every machine.
 */
import type { Environment } from '@marcbachmann/cel-js';
import type { WorkloadRow } from '../../contract/index.ts';
import { celEnvironment, compileBounded, maxListLength, type BoundedProgram } from '../cel/bounded.ts';
import { toCelValue } from '../cel/values.ts';

/** Variables an expression may use; anything else is reported before evaluation. */
export const CEL_VARIABLES = [
  'id',
  'cluster',
  'ns',
  'kind',
  'apiVersion',
  'name',
  'uid',
  'status',
  'statuses',
  'statusReason',
  'gpus',
  'pods',
  'roles',
  'rolesSummary',
  'createdAt',
  'definition',
  'errors',
  'usage',
  'utilization',
  'idleGpus',
  'age',
  'now',
  'self',
] as const;

/** Steps one row's evaluation may take, and all rows' of one filtering together. */
export const ROW_COST_LIMIT = 10_000;
export const TOTAL_COST_LIMIT = 10_000_000;

export type CelFilter =
  | {
      ok: true;
      source: string;
      test: (row: WorkloadRow, now: number, nowDate?: Date) => boolean;
      /** Estimated steps for one row (the rows' total is checked against `TOTAL_COST_LIMIT`). */
      costOf: (row: WorkloadRow) => number;
    }
  | { ok: false; source: string; error: string };

let environment: Environment | null = null;

function env(): Environment {
  environment ??= celEnvironment({ variables: CEL_VARIABLES });
  return environment;
}

// The longest list in a row bounds every comprehension over it; rows are immutable, so once per row.
const bounds = new WeakMap<WorkloadRow, number>();

function boundOf(row: WorkloadRow): number {
  let b = bounds.get(row);
  if (b === undefined) bounds.set(row, (b = maxListLength(row)));
  return b;
}

// Rows are immutable (a change arrives as a new object), so each field is converted once per row,
// and only the fields some expression actually reads.
const converted = new WeakMap<WorkloadRow, Record<string, unknown>>();

function createdDate(row: WorkloadRow): Date | null {
  const d = row.createdAt ? new Date(row.createdAt) : null;
  return d && !Number.isNaN(d.getTime()) ? d : null;
}

function celVar(row: WorkloadRow, v: string): unknown {
  let c = converted.get(row);
  if (!c) {
    c = {};
    converted.set(row, c);
  }
  if (v in c) return c[v];
  let value: unknown;
  if (v === 'ns') value = row.namespace;
  else if (v === 'createdAt') value = createdDate(row);
  else if (v === 'utilization') value = toCelValue(row.usage?.utilization ?? null);
  else if (v === 'idleGpus') value = toCelValue(row.usage?.idle ?? null);
  else if (v === 'self') value = { ...(toCelValue(row) as Record<string, unknown>), createdAt: createdDate(row) };
  else value = toCelValue((row as unknown as Record<string, unknown>)[v]);
  c[v] = value;
  return value;
}

/** Cleans the library's message: first line, plus its caret excerpt when it has one. */
export function celMessage(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  return text.replace(/\n{2,}/g, '\n').trimEnd();
}

const cache = new Map<string, CelFilter>();

export function compileCelFilter(source: string): CelFilter {
  const hit = cache.get(source);
  if (hit) return hit;
  const result = compileUncached(source);
  if (cache.size > 50) cache.clear();
  cache.set(source, result);
  return result;
}

function compileUncached(source: string): CelFilter {
  if (source.trim() === '') return { ok: false, source, error: 'The expression is empty.' };
  const compiled = compileBounded(env(), source, ROW_COST_LIMIT);
  if (!compiled.ok) return { ok: false, source, error: celMessage(compiled.error) };
  const checkedType = compiled.type;
  if (checkedType !== 'bool' && checkedType !== 'dyn') {
    return { ok: false, source, error: `A filter must be true or false for each row; this expression gives ${checkedType === 'int' ? 'an' : 'a'} ${checkedType}.` };
  }
  const program: BoundedProgram = compiled.program;
  // Only the variables the expression names go into its context: evaluation cost grows with the
  // context's size, and most filters read two or three fields. (A false match, say a word inside a
  // string literal, only adds a variable.)
  const used = CEL_VARIABLES.filter((v) => new RegExp(`(^|[^\\w.])${v}\\b`).test(source));
  const contextOf = (row: WorkloadRow, now: number, nowDate?: Date): Record<string, unknown> => {
    const ctx: Record<string, unknown> = {};
    for (const v of used) {
      if (v === 'now') ctx.now = nowDate ?? new Date(now);
      else if (v === 'age') {
        const created = celVar(row, 'createdAt') as Date | null;
        ctx.age = created ? BigInt(Math.max(0, Math.floor((now - created.getTime()) / 1000))) : null;
      } else ctx[v] = celVar(row, v);
    }
    return ctx;
  };
  return {
    ok: true,
    source,
    test(row, now, nowDate) {
      const out = program.evaluate(contextOf(row, now, nowDate), boundOf(row));
      if (typeof out !== 'boolean') throw new Error(`The expression gave ${typeof out === 'bigint' ? 'an int' : typeof out} instead of true or false.`);
      return out;
    },
    // Costs do not depend on the clock: any time will do.
    costOf: (row) => program.cost(contextOf(row, 0), boundOf(row)),
  };
}
