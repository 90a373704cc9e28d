import { endBudget, startBudget } from './budget.ts';
import { Compiler } from './compile.ts';
import { JqError, JqLimitError, JqRuntimeError } from './errors.ts';
import { parse } from './parser.ts';
import { noteParsed, parsedTree } from './parsed-store.ts';
import type { Path } from './path-ops.ts';
import { BreakSignal, rt } from './runtime.ts';
import type { Compiled } from './types.ts';
import type { JqValue } from './values.ts';
import { fromInput } from './values.ts';

/** Per-evaluation bounds; all deterministic (see budget.ts). */
export interface JqLimits {
  /** outputs allowed (exactly this many; one more fails) */
  maxResults?: number;
  /** steps: generator outputs, iterations, calls, comparisons and scans of large values */
  maxSteps?: number;
  /** bytes of values built, cumulatively (8 per array element or object member, 1 per string unit) */
  maxBytes?: number;
}

export const DEFAULT_MAX_RESULTS = 1000;
/** Measured: the catalog's expressions need at most a few hundred steps on their fixtures (budget.test.ts). */
export const DEFAULT_MAX_STEPS = 1_000_000;
/** Measured: the catalog's expressions build at most a few KiB on their fixtures (budget.test.ts). */
export const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;

export const DEFAULT_JQ_LIMITS: Readonly<Required<JqLimits>> = Object.freeze({
  maxResults: DEFAULT_MAX_RESULTS,
  maxSteps: DEFAULT_MAX_STEPS,
  maxBytes: DEFAULT_MAX_BYTES,
});

export interface JqProgram {
  readonly source: string;
  /** All outputs in order. Throws JqError on runtime error or exceeded limit (no partial results). */
  run(input: unknown, vars?: Record<string, unknown>, limits?: JqLimits): JqValue[];
  /** The paths the program designates, like jq's `path(f)`; throws JqError('runtime') for non-path expressions. */
  paths(input: unknown, limits?: JqLimits): Array<Array<string | number>>;
}

class TooManyResults {}

/** Converts whatever escaped the evaluator into the module's one error type. */
function toJqError(e: unknown, max: number): JqError {
  if (e instanceof JqError) return e;
  if (e instanceof TooManyResults) return new JqError('limit', `query results exceed the allowed number ${max}`);
  if (e instanceof JqRuntimeError) return new JqError('runtime', e.message);
  if (e instanceof JqLimitError) return new JqError('limit', e.message);
  if (e instanceof BreakSignal) return new JqError('runtime', 'break');
  // Safety nets below the budgets: the JavaScript stack or an engine size limit ran out first.
  if (e instanceof RangeError && /call stack/i.test(e.message)) {
    return new JqError('limit', 'jq evaluation exceeded the maximum recursion depth');
  }
  if (e instanceof RangeError && /Invalid (string|array|typed array) length/i.test(e.message)) {
    return new JqError('limit', `jq evaluation exceeded the maximum value size: ${e.message}`);
  }
  return new JqError('runtime', e instanceof Error ? e.message : String(e));
}

const EMPTY_VARS = Object.freeze(Object.create(null)) as Record<string, JqValue>;

class Program implements JqProgram {
  constructor(
    readonly source: string,
    private readonly compiled: Compiled,
  ) {}

  /** Evaluation is synchronous and never re-entered, so the run state is simply reset. */
  private begin(vars: Record<string, unknown> | undefined, limits: JqLimits | undefined): void {
    startBudget(limits?.maxSteps ?? DEFAULT_MAX_STEPS, limits?.maxBytes ?? DEFAULT_MAX_BYTES);
    if (vars) {
      const vs = Object.create(null) as Record<string, JqValue>;
      for (const k of Object.keys(vars)) if (vars[k] !== undefined) vs[k] = fromInput(vars[k]);
      rt.vars = vs;
    } else rt.vars = EMPTY_VARS;
  }

  run(input: unknown, vars?: Record<string, unknown>, limits?: JqLimits): JqValue[] {
    const x = fromInput(input);
    const c = this.compiled;
    const max = limits?.maxResults ?? DEFAULT_MAX_RESULTS;
    this.begin(vars, limits);
    try {
      // Single-output programs skip result collection.
      if (c.one && max >= 1) return [c.one(x, null)];
      const out: JqValue[] = [];
      // Unlike upstream (pitfall P-07: it fails once the count reaches the maximum, so the 1000th result already
      // errors), exactly `max` results are allowed; the error comes with result number max + 1.
      c.gen(x, null, (v) => {
        if (out.length >= max) throw new TooManyResults();
        out.push(v);
      });
      return out;
    } catch (e) {
      throw toJqError(e, max);
    } finally {
      rt.vars = EMPTY_VARS;
      endBudget();
    }
  }

  paths(input: unknown, limits?: JqLimits): Array<Array<string | number>> {
    const x = fromInput(input);
    const max = limits?.maxResults ?? DEFAULT_MAX_RESULTS;
    this.begin(undefined, limits);
    const out: Path[] = [];
    try {
      this.compiled.path()(x, [], null, (_v, p) => {
        if (out.length >= max) throw new TooManyResults();
        out.push(p);
      });
    } catch (e) {
      throw toJqError(e, max);
    } finally {
      endBudget();
    }
    // Slice elements ({start, end}) can appear in paths too; they are passed through as jq reports them.
    return out as Array<Array<string | number>>;
  }
}

const CACHE = new Map<string, Program>();
const CACHE_MAX = 10_000;
/** The cache also holds at most this many characters of source, so that long programs cannot pile up. */
const CACHE_MAX_CHARS = 16 * 1024 * 1024;
let cachedChars = 0;

/** Parse + compile once; programs are cached by source text. Throws JqError (kind 'parse' or 'compile'). */
export function compileJq(source: string): JqProgram {
  const hit = CACHE.get(source);
  if (hit) return hit;
  let ast = parsedTree(source);
  if (!ast) {
    ast = parse(source);
    noteParsed(source, ast);
  }
  const compiled = new Compiler().compile(ast, null);
  const p = new Program(source, compiled);
  if (CACHE.size >= CACHE_MAX || cachedChars + source.length > CACHE_MAX_CHARS) {
    CACHE.clear();
    cachedChars = 0;
  }
  CACHE.set(source, p);
  cachedChars += source.length;
  return p;
}
