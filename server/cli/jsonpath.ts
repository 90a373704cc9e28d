/**
 * kubectl's JSONPath templates (`-o jsonpath=…`, `custom-columns`, `--sort-by`), evaluated with
 * jsonpath-plus with script evaluation off (DESIGN: a template is user input, never code). Pure.
 *
 * The template syntax is kubectl's: text with `{…}` actions — a path (`{.items[*].metadata.name}`,
 * `{$.kind}`, `{..name}`, `{@}`, `{.items[0:2]}`, `{.a['b.c']}`), a string literal (`{"\n"}`,
 * `{'\t'}`), `{range PATH}…{end}` (paths inside are relative to each element). Filters
 * (`[?(@.status.phase=="Running")]`, `[?(@.spec.x)]`, `<`, `<=`, `>`, `>=`, `!=`) are evaluated
 * here, not by jsonpath-plus, since it refuses every filter with evaluation off. Several results of
 * one action print separated by a space; strings as they are, other values as JSON; a path that
 * matches nothing prints nothing (kubectl's --allow-missing-template-keys default).
 */
import { JSONPath } from 'jsonpath-plus';

type Node = { t: 'text'; text: string } | { t: 'path'; path: string } | { t: 'range'; path: string; body: Node[] };

export class TemplateError extends Error {}

/** `{` … `}` with quotes inside respected. */
function actions(template: string): Array<{ text: string } | { action: string }> {
  const out: Array<{ text: string } | { action: string }> = [];
  let i = 0;
  let text = '';
  while (i < template.length) {
    const c = template[i];
    if (c !== '{') {
      text += c;
      i++;
      continue;
    }
    if (text) out.push({ text });
    text = '';
    let j = i + 1;
    let quote: string | null = null;
    let depth = 0;
    for (; j < template.length; j++) {
      const d = template[j];
      if (quote) {
        if (d === '\\') j++;
        else if (d === quote) quote = null;
      } else if (d === '"' || d === "'") quote = d;
      else if (d === '[' || d === '(') depth++;
      else if (d === ']' || d === ')') depth--;
      else if (d === '}' && depth <= 0) break;
    }
    if (j >= template.length) throw new TemplateError(`unclosed action in template: ${template.slice(i)}`);
    out.push({ action: template.slice(i + 1, j).trim() });
    i = j + 1;
  }
  if (text) out.push({ text });
  return out;
}

function unquote(s: string): string {
  const body = s.slice(1, -1);
  if (s[0] === "'") return body.replace(/\\'/g, "'");
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    throw new TemplateError(`invalid string literal ${s}`);
  }
}

/** A parsed template. */
export interface Template {
  nodes: Node[];
}

export function parseTemplate(template: string): Template {
  const stack: Node[][] = [[]];
  const ranges: Array<Extract<Node, { t: 'range' }>> = [];
  for (const a of actions(template)) {
    const top = stack[stack.length - 1];
    if ('text' in a) {
      top.push({ t: 'text', text: a.text });
      continue;
    }
    const s = a.action;
    if (s === 'end') {
      if (ranges.length === 0) throw new TemplateError('{end} without {range}');
      ranges.pop();
      stack.pop();
    } else if (/^range\s/.test(s)) {
      const r: Extract<Node, { t: 'range' }> = { t: 'range', path: s.slice(5).trim(), body: [] };
      checkPath(r.path);
      top.push(r);
      ranges.push(r);
      stack.push(r.body);
    } else if (/^(".*"|'.*')$/s.test(s)) {
      top.push({ t: 'text', text: unquote(s) });
    } else {
      checkPath(s);
      top.push({ t: 'path', path: s });
    }
  }
  if (ranges.length > 0) throw new TemplateError('{range} without {end}');
  return { nodes: stack[0] };
}

function checkPath(p: string): void {
  if (p === '' || !/^(\$|@|\.|\[)/.test(p)) throw new TemplateError(`unrecognized identifier ${p.split(/[.[]/)[0] || p}`);
}

/** One path segment split off at a filter: the path before it, the filter, the path after it. */
function splitFilter(path: string): { before: string; filter: string; after: string } | null {
  let quote: string | null = null;
  for (let i = 0; i < path.length; i++) {
    const c = path[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '[' && path[i + 1] === '?') {
      let depth = 0;
      let q: string | null = null;
      for (let j = i; j < path.length; j++) {
        const d = path[j];
        if (q) {
          if (d === '\\') j++;
          else if (d === q) q = null;
        } else if (d === '"' || d === "'") q = d;
        else if (d === '[' || d === '(') depth++;
        else if (d === ']' || d === ')') {
          depth--;
          if (depth === 0) {
            const inner = path.slice(i + 2, j).trim();
            if (!inner.startsWith('(') || !inner.endsWith(')')) throw new TemplateError(`invalid filter ${path.slice(i, j + 1)}`);
            return { before: path.slice(0, i), filter: inner.slice(1, -1).trim(), after: path.slice(j + 1) };
          }
        }
      }
      throw new TemplateError(`unclosed filter in ${path}`);
    }
  }
  return null;
}

/** jsonpath-plus for a path without filters; `$` is the root, `@` (or a leading `.`) the current value. */
function plain(path: string, root: unknown, current: unknown): unknown[] {
  let p = path.trim();
  let json = current;
  if (p.startsWith('$')) {
    json = root;
    p = p.slice(1);
  } else if (p.startsWith('@')) p = p.slice(1);
  if (p === '') return json === undefined ? [] : [json];
  // kubectl escapes dots inside a key (`.labels.app\.kubernetes\.io/name`); jsonpath-plus brackets them.
  if (p.includes('\\')) p = p.replace(/\.((?:[^.[\]\\]|\\.)+)/g, (m, seg: string) => (seg.includes('\\') ? `['${seg.replace(/\\(.)/g, '$1').replace(/'/g, "\\'")}']` : m));
  // kubectl writes `[*]` and `.*` alike; jsonpath-plus reads both.
  const out = JSONPath({ path: `$${p.startsWith('.') || p.startsWith('[') ? '' : '.'}${p}`, json: json as object, wrap: true, eval: false }) as unknown[];
  return Array.isArray(out) ? out : [];
}

const COMPARISON = /^(.*?)\s*(==|!=|<=|>=|<|>)\s*(.*)$/s;

function literal(s: string, root: unknown, current: unknown): unknown[] {
  const t = s.trim();
  if (/^(".*"|'.*')$/s.test(t)) return [unquote(t)];
  if (/^-?\d+(\.\d+)?$/.test(t)) return [Number(t)];
  if (t === 'true' || t === 'false') return [t === 'true'];
  if (t === 'null' || t === 'nil') return [null];
  return evaluatePath(t, root, current);
}

function compare(a: unknown, op: string, b: unknown): boolean {
  switch (op) {
    case '==': return a === b || (typeof a === 'number' && typeof b === 'string' && String(a) === b) || (typeof b === 'number' && typeof a === 'string' && String(b) === a);
    case '!=': return !compare(a, '==', b);
    default: {
      const x = typeof a === 'string' && typeof b === 'number' ? Number(a) : a;
      const y = typeof b === 'string' && typeof a === 'number' ? Number(b) : b;
      if (!(typeof x === 'number' && typeof y === 'number') && !(typeof x === 'string' && typeof y === 'string')) return false;
      return op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y;
    }
  }
}

/** One filter expression on one element: `@.a == "x"`, `@.a`, joined with `&&` / `||`. */
function passes(expr: string, root: unknown, el: unknown): boolean {
  const ors = expr.split(/\s*\|\|\s*/);
  return ors.some((or) => or.split(/\s*&&\s*/).every((term) => {
    const m = COMPARISON.exec(term);
    if (!m) return evaluatePath(term.trim(), root, el).some((v) => v !== undefined && v !== null && v !== false);
    const left = literal(m[1], root, el);
    const right = literal(m[3], root, el);
    return left.some((l) => right.some((r) => compare(l, m[2], r)));
  }));
}

/** Every value a path matches, with kubectl's filters. */
export function evaluatePath(path: string, root: unknown, current: unknown = root): unknown[] {
  const split = splitFilter(path);
  if (!split) return plain(path, root, current);
  const holders = split.before.trim() === '' || split.before.trim() === '@' ? [current] : plain(split.before, root, current);
  const out: unknown[] = [];
  for (const h of holders) {
    const elements = Array.isArray(h) ? h : h && typeof h === 'object' ? Object.values(h) : [];
    for (const el of elements) {
      if (!passes(split.filter, root, el)) continue;
      if (split.after.trim() === '') out.push(el);
      else out.push(...evaluatePath(`@${split.after}`, root, el));
    }
  }
  return out;
}

/** How kubectl prints one value: strings raw, everything else as JSON. */
export function valueText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return '';
  return JSON.stringify(v);
}

function render(nodes: Node[], root: unknown, current: unknown): string {
  let out = '';
  for (const n of nodes) {
    if (n.t === 'text') out += n.text;
    else if (n.t === 'path') out += evaluatePath(n.path, root, current).map(valueText).join(' ');
    else for (const el of evaluatePath(n.path, root, current)) out += render(n.body, root, el);
  }
  return out;
}

/** The template applied to an object (a List for lists, as kubectl applies it). */
export function renderTemplate(t: Template, obj: unknown): string {
  return render(t.nodes, obj, obj);
}

/**
 * A single path as custom-columns and --sort-by write it: `.metadata.name` or `{.metadata.name}`.
 */
export function columnPath(spec: string): string {
  const s = spec.trim();
  const inner = s.startsWith('{') && s.endsWith('}') ? s.slice(1, -1).trim() : s;
  checkPath(inner);
  return inner;
}
