import type { Node } from './ast.ts';
import { childNodes } from './ast.ts';
import { JqError } from './errors.ts';
import { parse } from './parser.ts';
import { compileJq } from './program.ts';

const EXCESSIVE = new Set(['range', 'paths', 'recurse', 'walk', 'repeat']);

function walk(n: Node, problems: Set<string>): void {
  if (n.t === 'recurse_default') problems.add("recursive descent operator '..' is not allowed");
  else if (n.t === 'assign') problems.add(`modifying operator '${n.op}' is not allowed`);
  else if (n.t === 'call') {
    if (n.name === 'del') problems.add('del function is not allowed');
    else if (EXCESSIVE.has(n.name)) problems.add(`function '${n.name}' may produce excessive output and is not allowed`);
  }
  for (const c of childNodes(n)) walk(c, problems);
}

/**
 * Static validation of a definition expression (the newer, full-AST upstream walker): parse and compile errors,
 * the forbidden functions del/range/paths/recurse/walk/repeat, `..`, and every modifying operator, anywhere in
 * the program. Unlike upstream, which only parses, compile errors (unknown functions such as the `name/0` of
 * `.metadata.labels.job-name`) are reported too. Returns human-readable problems, [] when fine.
 */
export function checkExpression(source: string): string[] {
  let ast: Node;
  try {
    ast = parse(source);
  } catch (e) {
    // callers print the expression next to the problem, so it is not repeated here
    if (e instanceof JqError) return [`failed to parse: ${e.message}${e.position !== undefined ? ` (at offset ${e.position})` : ''}`];
    throw e;
  }
  const problems = new Set<string>();
  walk(ast, problems);
  try {
    compileJq(source);
  } catch (e) {
    if (e instanceof JqError) problems.add(`failed to compile: ${e.message}`);
    else throw e;
  }
  return [...problems];
}
