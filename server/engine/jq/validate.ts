import type { Node, Pattern } from './ast.ts';
import { JqError } from './errors.ts';
import { parse } from './parser.ts';
import { compileJq } from './program.ts';

const EXCESSIVE = new Set(['range', 'paths', 'recurse', 'walk', 'repeat']);

/** Every expression directly below a node, so that the walk misses no position (upstream pitfall P-08). */
function children(n: Node): Node[] {
  switch (n.t) {
    case 'identity':
    case 'recurse_default':
    case 'literal':
    case 'format':
    case 'var':
    case 'break':
      return [];
    case 'field':
    case 'iterate':
      return [n.target];
    case 'index':
      return [n.target, n.index];
    case 'slice':
      return [n.target, ...(n.from ? [n.from] : []), ...(n.to ? [n.to] : [])];
    case 'try':
      return [n.body, ...(n.handler ? [n.handler] : [])];
    case 'string':
      return n.parts.filter((p): p is Node => typeof p !== 'string');
    case 'array':
      return n.body ? [n.body] : [];
    case 'object':
      return n.entries.flatMap((e) => [...(typeof e.key === 'string' ? [] : [e.key]), ...(e.value ? [e.value] : [])]);
    case 'neg':
      return [n.body];
    case 'pipe':
    case 'comma':
    case 'binary':
    case 'and':
    case 'or':
    case 'alt':
    case 'assign':
      return [n.left, n.right];
    case 'if':
      return [n.cond, n.then, ...(n.else ? [n.else] : [])];
    case 'reduce':
      return [n.source, ...patternNodes(n.pattern), n.init, n.update];
    case 'foreach':
      return [n.source, ...patternNodes(n.pattern), n.init, n.update, ...(n.extract ? [n.extract] : [])];
    case 'bind':
      return [n.source, ...patternNodes(n.pattern), n.body];
    case 'funcdef':
      return [n.body, n.rest];
    case 'call':
      return n.args;
    case 'label':
      return [n.body];
  }
}

function patternNodes(p: Pattern): Node[] {
  if (p.t === 'pvar') return [];
  if (p.t === 'parray') return p.items.flatMap(patternNodes);
  return p.entries.flatMap((e) => [e.key, ...(e.value ? patternNodes(e.value) : [])]);
}

function walk(n: Node, problems: Set<string>): void {
  if (n.t === 'recurse_default') problems.add("recursive descent operator '..' is not allowed");
  else if (n.t === 'assign') problems.add(`modifying operator '${n.op}' is not allowed`);
  else if (n.t === 'call') {
    if (n.name === 'del') problems.add('del function is not allowed');
    else if (EXCESSIVE.has(n.name)) problems.add(`function '${n.name}' may produce excessive output and is not allowed`);
  }
  for (const c of children(n)) walk(c, problems);
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
