/**
 * Syntax trees parsed ahead of time, by source text. Parsing is most of what compiling a jq
 * expression costs in a process that has just started (V8 runs the parser in its interpreter): a
 * one-shot `wmap get workloads -A` compiles some 400 expressions, and parsing them took the longer part. The compiled
 * CLI's build parses every catalog expression once and ships the trees as JSON
 * (server/cli/catalog-cache.ts); compileJq takes a tree from here instead of parsing, and parses as
 * ever whatever is not here (a cluster's or a user's definitions).
 *
 * Only trees that JSON gives back unchanged are kept: plain objects, arrays, strings, booleans,
 * null and finite numbers other than -0 (an absent field and an undefined one are the same to the
 * compiler). Anything else is parsed at run time, so a tree read from here is the parser's own.
 */
import type { Node } from './ast.ts';

type Lookup = (source: string) => string | undefined;

let lookup: Lookup | null = null;
let recording: Map<string, string> | null = null;

/** Where compileJq finds trees parsed ahead (JSON text by source), or null for none. */
export function useParsedTrees(l: Lookup | null): void {
  lookup = l;
}

/** The tree of `source` parsed ahead, or undefined. */
export function parsedTree(source: string): Node | undefined {
  const text = lookup?.(source);
  return text === undefined ? undefined : (JSON.parse(text) as Node);
}

/**
 * Runs `work`, keeping the JSON of every tree the parser makes meanwhile (the build, for what it
 * ships): its result, and the trees by source.
 */
export function recordParsedTrees<T>(work: () => T): { result: T; trees: Map<string, string> } {
  const trees = new Map<string, string>();
  const outer = recording;
  recording = trees;
  try {
    return { result: work(), trees };
  } finally {
    recording = outer;
  }
}

/** Called with each fresh parse: kept when recording and JSON holds the tree exactly. */
export function noteParsed(source: string, ast: Node): void {
  if (recording && jsonExact(ast)) recording.set(source, JSON.stringify(ast));
}

function jsonExact(v: unknown): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean' || v === undefined) return true;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  if (Array.isArray(v)) return v.every((x) => x !== undefined && jsonExact(x));
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) return Object.values(v as object).every(jsonExact);
  return false;
}
