/**
 * CEL for untrusted expressions, bounded and deterministic (no clock), for the engine's status
 * expressions and the dashboard's row filter alike:
 * - **Cost**: an expression's worst-case work is estimated from its syntax tree — every node is
 *   charged once per iteration of each comprehension (`all`, `exists`, `map`, …) around it, a range
 *   counted as its literal size, or else as the longest list or map in the data it runs on. Too
 *   costly even for tiny data: refused when compiled; too costly for the data at hand: that
 *   evaluation fails with a cost error. Eight nested `[0,…,9].all(…)` is 10⁸ steps: refused.
 * - **Regular expressions** run in linear time: `matches` is evaluated by RE2 (re2js), as in
 *   Kubernetes, instead of the JavaScript engine, which backtracks.
 */
import { Environment, serialize } from '@marcbachmann/cel-js';
import { RE2JS } from 're2js';

/** Comprehension macros: their second and later arguments run once per element of the receiver. */
const MACROS = new Set(['all', 'exists', 'exists_one', 'existsOne', 'map', 'filter', 'sortBy']);

/** Work an expression may do per evaluation, in node visits. */
export const DEFAULT_COST_LIMIT = 100_000;

interface Node {
  op: string;
  args: unknown;
}

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && typeof (v as Node).op === 'string';

function children(n: Node): unknown[] {
  const a = n.args;
  if (Array.isArray(a)) return a.flatMap((x) => (Array.isArray(x) ? x : [x])).filter(isNode);
  return isNode(a) ? [a] : [];
}

function concatCount(n: unknown): number {
  if (!isNode(n)) return 0;
  let c = n.op === '+' ? 1 : 0;
  for (const child of children(n)) c += concatCount(child);
  return c;
}

/** `self.status.conditions` as `['self', 'status', 'conditions']`; null for anything but a field path. */
function fieldPath(n: unknown): string[] | null {
  if (!isNode(n)) return null;
  if (n.op === 'id' && typeof n.args === 'string') return [n.args];
  if (n.op === '.' && Array.isArray(n.args) && typeof n.args[1] === 'string') {
    const base = fieldPath(n.args[0]);
    return base ? [...base, n.args[1]] : null;
  }
  return null;
}

/** Elements of the list or map at a path of the context; 0 when there is nothing there. */
function sizeAt(ctx: Record<string, unknown>, path: readonly string[]): number {
  let v: unknown = ctx;
  for (const k of path) {
    if (typeof v !== 'object' || v === null) return 0;
    v = (v as Record<string, unknown>)[k];
  }
  if (Array.isArray(v)) return v.length;
  if (v instanceof Map) return v.size;
  return typeof v === 'object' && v !== null ? Object.keys(v).length : 0;
}

/**
 * Node visits of an expression for a context (`null`: sizes unknown, each range counted as 1) and
 * the longest list in it (`bound`, for ranges that are not plain field paths).
 */
type CostFn = (ctx: Record<string, unknown> | null, bound: number) => number;

function costPlan(n: unknown, bound: ReadonlySet<string>): CostFn {
  if (!isNode(n)) return () => 0;
  if (n.op === 'rcall' && Array.isArray(n.args) && MACROS.has(String(n.args[0]))) {
    const [, receiver, args] = n.args as [string, unknown, unknown[]];
    const list = Array.isArray(args) ? args : [];
    const vars = new Set(bound);
    for (const a of list) if (isNode(a) && a.op === 'id' && typeof a.args === 'string') vars.add(a.args);
    const recv = costPlan(receiver, bound);
    const body = list.map((a) => costPlan(a, vars));
    const path = fieldPath(receiver);
    // A range is its literal size, or the size at its path in the data, or (anything else, or a
    // path through an iteration variable) at most the longest list in the data — doubled per `+`.
    const literal = isNode(receiver) && (receiver.op === 'list' || receiver.op === 'map') ? Math.max(1, children(receiver).length / (receiver.op === 'map' ? 2 : 1)) : null;
    const direct = path !== null && !bound.has(path[0]) ? path : null;
    const doubling = 2 ** concatCount(receiver);
    const size = (ctx: Record<string, unknown> | null, b: number) => literal ?? (ctx === null ? 1 : direct ? sizeAt(ctx, direct) : b * doubling);
    return (ctx, b) => {
      let inner = 0;
      for (const f of body) inner += f(ctx, b);
      return 1 + recv(ctx, b) + size(ctx, b) * inner;
    };
  }
  const parts = children(n).map((c) => costPlan(c, bound));
  // `x in list` scans the list.
  const scan = n.op === 'in' && Array.isArray(n.args) ? fieldPath(n.args[1]) : null;
  const scanDirect = scan !== null && !bound.has(scan[0]) ? scan : null;
  return (ctx, b) => {
    let c = 1;
    if (n.op === 'in') c += ctx === null ? 1 : scanDirect ? sizeAt(ctx, scanDirect) : b;
    for (const f of parts) c += f(ctx, b);
    return c;
  };
}

/** The longest list, or map (its number of keys), anywhere in a JSON-like value. */
export function maxListLength(value: unknown): number {
  let max = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      if (v.length > max) max = v.length;
      for (const x of v) if (typeof x === 'object' && x !== null) stack.push(x);
    } else if (typeof v === 'object' && v !== null && !(v instanceof Date)) {
      const vals = Object.values(v);
      if (vals.length > max) max = vals.length;
      for (const x of vals) if (typeof x === 'object' && x !== null) stack.push(x);
    }
  }
  return max;
}

/** `matches` under another name, so that RE2 evaluates it (the library's own cannot be replaced). */
const RE2_MATCHES = '__re2_matches';

function withRe2Matches(n: unknown): unknown {
  if (Array.isArray(n)) return n.map(withRe2Matches);
  if (!isNode(n)) return n;
  const args = Array.isArray(n.args) ? n.args.map(withRe2Matches) : withRe2Matches(n.args);
  if ((n.op === 'rcall' || n.op === 'call') && Array.isArray(args) && args[0] === 'matches') args[0] = RE2_MATCHES;
  return { ...n, args };
}

const patterns = new Map<string, RE2JS>();

function re2(pattern: string): RE2JS {
  let p = patterns.get(pattern);
  if (!p) {
    p = RE2JS.compile(pattern);
    if (patterns.size > 500) patterns.clear();
    patterns.set(pattern, p);
  }
  return p;
}

export interface CelEnvironmentOptions {
  variables: readonly string[];
  maxAstNodes?: number;
  maxDepth?: number;
}

/** A CEL environment for untrusted expressions: bounded size and nesting, RE2 `matches`. */
export function celEnvironment(o: CelEnvironmentOptions): Environment {
  const env = new Environment({
    unlistedVariablesAreDyn: false,
    enableOptionalTypes: true,
    homogeneousAggregateLiterals: false,
    limits: { maxAstNodes: o.maxAstNodes ?? 2000, maxDepth: o.maxDepth ?? 64 },
  });
  for (const v of o.variables) env.registerVariable(v, 'dyn');
  const matches = (s: string, pattern: string): boolean => {
    try {
      return re2(pattern).matcher(s).find();
    } catch (e) {
      throw new Error(`invalid regular expression ${JSON.stringify(pattern)} (RE2 syntax): ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  };
  env.registerFunction(`string.${RE2_MATCHES}(string): bool`, matches);
  return env;
}

/** Thrown when the data makes an expression costlier than its limit. */
export class CelCostError extends Error {}

export interface BoundedProgram {
  readonly source: string;
  /** Steps for this context; `dataBound` (default: the longest list in it) bounds ranges that are not field paths. */
  cost(ctx: Record<string, unknown>, dataBound?: number): number;
  /**
   * Evaluates; throws a cost error (before doing any work) when the data makes the expression
   * costlier than its limit.
   */
  evaluate(ctx: Record<string, unknown>, dataBound?: number): unknown;
}

export type Compiled = { ok: true; program: BoundedProgram; type: string } | { ok: false; error: string };

/** Type-checks, estimates and compiles an expression; refuses one too costly even for tiny data. */
export function compileBounded(env: Environment, source: string, costLimit = DEFAULT_COST_LIMIT): Compiled {
  let type: string;
  let ast: unknown;
  try {
    const check = env.check(source);
    if (!check.valid) return { ok: false, error: String(check.error instanceof Error ? check.error.message : check.error) };
    type = String(check.type);
    ast = (env.parse(source) as unknown as { ast: unknown }).ast;
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
  const plan = costPlan(ast, new Set());
  const floor = plan(null, 1);
  if (floor > costLimit) return { ok: false, error: `the expression is too costly: at least ${Math.round(floor)} steps per evaluation, the limit is ${costLimit} (nested comprehensions multiply)` };
  let fn: (ctx: Record<string, unknown>) => unknown;
  try {
    fn = env.parse(serialize(withRe2Matches(ast) as never)) as unknown as (ctx: Record<string, unknown>) => unknown;
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
  const program: BoundedProgram = {
    source,
    cost: (ctx, dataBound) => plan(ctx, dataBound ?? maxListLength(ctx)),
    evaluate(ctx, dataBound) {
      const c = plan(ctx, dataBound ?? maxListLength(ctx));
      if (c > costLimit) throw new CelCostError(`the expression exceeds its cost limit of ${costLimit} steps on this data (about ${Math.round(c)})`);
      return fn(ctx);
    },
  };
  return { ok: true, program, type };
}
