/**
 * The advanced filter: a CEL expression over one row, evaluated in the browser
 * (`gpus.allocated >= 8 && status == "Running"`). Row fields are top-level variables, and the whole
 * row is also `self`. Whole numbers are CEL ints (as Kubernetes treats integer fields), so
 * `pods.total + 1` works; `createdAt` is a timestamp and `age` the age in seconds.
 * `namespace` is a reserved word in CEL, so the namespace is `ns` (or `self.namespace`).
 */
import { Environment } from '@marcbachmann/cel-js';
import type { WorkloadRow } from '../../contract/index.ts';
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
  'age',
  'now',
  'self',
] as const;

export type CelFilter =
  | { ok: true; source: string; test: (row: WorkloadRow, now: number, nowDate?: Date) => boolean }
  | { ok: false; source: string; error: string };

let environment: Environment | null = null;

function env(): Environment {
  if (!environment) {
    const e = new Environment({
      unlistedVariablesAreDyn: false,
      enableOptionalTypes: true,
      homogeneousAggregateLiterals: false,
      // The expression comes from the URL: keep it bounded.
      limits: { maxAstNodes: 2000, maxDepth: 64 },
    });
    for (const v of CEL_VARIABLES) e.registerVariable(v, 'dyn');
    environment = e;
  }
  return environment;
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
  let checkedType: string;
  try {
    const check = env().check(source);
    if (!check.valid) return { ok: false, source, error: celMessage(check.error) };
    checkedType = String(check.type);
  } catch (e) {
    return { ok: false, source, error: celMessage(e) };
  }
  if (checkedType !== 'bool' && checkedType !== 'dyn') {
    return { ok: false, source, error: `A filter must be true or false for each row; this expression gives ${checkedType === 'int' ? 'an' : 'a'} ${checkedType}.` };
  }
  let fn: (ctx: Record<string, unknown>) => unknown;
  try {
    fn = env().parse(source) as unknown as (ctx: Record<string, unknown>) => unknown;
  } catch (e) {
    return { ok: false, source, error: celMessage(e) };
  }
  // Only the variables the expression names go into its context: evaluation cost grows with the
  // context's size, and most filters read two or three fields. (A false match, say a word inside a
  // string literal, only adds a variable.)
  const used = CEL_VARIABLES.filter((v) => new RegExp(`(^|[^\\w.])${v}\\b`).test(source));
  return {
    ok: true,
    source,
    test(row, now, nowDate) {
      const ctx: Record<string, unknown> = {};
      for (const v of used) {
        if (v === 'now') ctx.now = nowDate ?? new Date(now);
        else if (v === 'age') {
          const created = celVar(row, 'createdAt') as Date | null;
          ctx.age = created ? BigInt(Math.max(0, Math.floor((now - created.getTime()) / 1000))) : null;
        } else ctx[v] = celVar(row, v);
      }
      const out = fn(ctx);
      if (typeof out !== 'boolean') throw new Error(`The expression gave ${typeof out === 'bigint' ? 'an int' : typeof out} instead of true or false.`);
      return out;
    },
  };
}
