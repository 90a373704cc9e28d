/**
 * Reading Kubernetes documents from text: multi-document YAML, a JSON object or array, or a `List`.
 * YAML is read as YAML 1.1, as kubectl does (`suspend: no` is the boolean false).
 *
 * The text may come from anyone who can post to the validator, so reading it is bounded: its size, the number
 * of documents, the nesting depth of each, and the expansion of YAML aliases (`yaml`'s maxAliasCount). Time is
 * linear in the text: documents are composed one at a time (and no further than the limit), lines are found by
 * binary search. A limit broken is an error naming the document and its line, never an exception.
 *
 * Errors name the source and document in their `path` (`defs.yaml`, `defs.yaml#2 (line 40)`) and not in their
 * message, so that `${path}: ${message}` names it once. A syntax error is one per document, the first, with
 * the line and column in the whole text: `defs.yaml#2` / `line 43, column 5: …`.
 */
import { Composer, LineCounter, Parser, isCollection, isPair, isScalar, type Document } from 'yaml';
import { engineError, type EngineError } from './errors.ts';

export interface SourcedDocument {
  value: unknown;
  /** e.g. `jobset.yaml#2 (line 40)` */
  where: string;
}

export interface DocumentLimits {
  /** characters of text */
  maxBytes: number;
  /** YAML documents in one text (items of a `List` are not counted) */
  maxDocuments: number;
  /** nesting of arrays and objects in one document */
  maxDepth: number;
  /** `yaml`'s bound on alias expansion (the "billion laughs") */
  maxAliasCount: number;
}

export const DEFAULT_DOCUMENT_LIMITS: Readonly<DocumentLimits> = Object.freeze({
  maxBytes: 64 * 1024 * 1024,
  maxDocuments: 10_000,
  maxDepth: 128,
  maxAliasCount: 100,
});

export function parseDocuments(
  text: string,
  source: string,
  limits: DocumentLimits = DEFAULT_DOCUMENT_LIMITS,
): { documents: SourcedDocument[]; errors: EngineError[] } {
  const documents: SourcedDocument[] = [];
  const errors: EngineError[] = [];
  const fail = (message: string, where: string): { documents: SourcedDocument[]; errors: EngineError[] } => {
    errors.push(engineError('document.yaml', message, where));
    return { documents: [], errors };
  };
  if (text.length > limits.maxBytes) {
    return fail(`the text has ${text.length} characters, more than the limit of ${limits.maxBytes}`, source);
  }
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let value: unknown;
    let json = true;
    try {
      value = JSON.parse(text);
    } catch {
      // Not JSON after all: YAML is a superset and reports better positions.
      json = false;
    }
    if (json) {
      const items = Array.isArray(value) ? value : [value];
      for (let i = 0; i < items.length; i++) {
        const where = Array.isArray(value) ? `${source}[${i}]` : source;
        // JSON.parse builds any depth; the array of documents itself is the first level
        if (tooDeep(items[i], limits.maxDepth)) return fail(`nests deeper than ${limits.maxDepth} levels`, where);
        flattenList(items[i], where, documents);
      }
      return { documents, errors };
    }
  }
  const lines = new LineCounter();
  const lineOf = (offset: number): number => Math.max(1, lines.linePos(offset).line);
  let docs: Document.Parsed[];
  try {
    docs = [];
    const composer = new Composer({ version: '1.1' });
    for (const doc of composer.compose(new Parser(lines.addNewLine).parse(text))) {
      docs.push(doc);
      if (docs.length > limits.maxDocuments) {
        return fail(`more than ${limits.maxDocuments} documents (document ${docs.length} starts at line ${lineOf(doc.range[0])})`, source);
      }
    }
  } catch (e) {
    // the parser recurses per level of nesting: a pathological text can exhaust the stack
    return fail(`cannot be read: ${e instanceof RangeError ? `nests too deeply (${e.message})` : String(e)}`, source);
  }
  docs.forEach((doc, i) => {
    // the line of the content, past the `---` marker and blank lines
    const line = lineOf(doc.contents?.range?.[0] ?? doc.range[0]);
    const where = docs.length > 1 ? `${source}#${i + 1} (line ${line})` : source;
    if (doc.errors.length > 0) {
      // One error per document, the first in the text: the parser goes on after an error, and what it
      // reports after the first is mostly the first one's consequences (one typo gave 141 errors).
      // Positions are counted over the whole text, so a line is the text's line, not the document's.
      const overflow = doc.errors.find((e) => /call stack|stack overflow/i.test(e.message));
      const first = overflow ?? doc.errors.reduce((a, b) => (b.pos[0] < a.pos[0] ? b : a));
      const offset = first.pos[0];
      const near = overflow ? null : nearError(doc, offset);
      let at = offset;
      // a badly indented item is reported at the blank before it (the end of the line above): name the item
      if (first.code === 'BAD_INDENT' && !near?.flow) while (at < text.length && (text[at] === ' ' || text[at] === '\n' || text[at] === '\r')) at++;
      const pos = lines.linePos(at);
      const place = pos.line > 0 ? `line ${pos.line}, column ${pos.col}` : `line ${line}`;
      // the message has the line: the document's own line next to it would only confuse
      const named = docs.length > 1 ? `${source}#${i + 1}` : source;
      // the composer recurses per level of nesting; past some hundreds of flow levels it runs out of stack
      if (overflow) {
        errors.push(engineError('document.yaml', `${place}: nests too deeply to be read`, named));
        return;
      }
      // where the typo probably is, when it is above the place the parser noticed
      let hint = '';
      if (near?.flow) {
        const from = lines.linePos(near.flow);
        hint = ` (opened at line ${from.line}, column ${from.col})`;
      } else if (near?.quote && pos.line > 0) {
        const from = lines.linePos(near.quote.start);
        if (from.line < pos.line && lines.linePos(near.quote.end).line === pos.line) {
          hint = ` (a quoted string runs to here from line ${from.line}, column ${from.col}: is its closing quote missing?)`;
        }
      }
      errors.push(engineError('document.yaml', `${place}: ${first.message.split('\n')[0]}${hint}`, named));
      return;
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: limits.maxAliasCount });
    } catch (e) {
      // yaml throws a ReferenceError for excessive aliasing ("billion laughs"), RangeError when too deep
      const why = e instanceof ReferenceError ? `too many aliases: ${e.message}` : e instanceof RangeError ? `nests too deeply (${e.message})` : String(e);
      errors.push(engineError('document.yaml', why, where));
      return;
    }
    if (value === null || value === undefined) return; // empty document (e.g. a trailing `---`)
    if (tooDeep(value, limits.maxDepth)) {
      errors.push(engineError('document.yaml', `nests deeper than ${limits.maxDepth} levels`, where));
      return;
    }
    flattenList(value, where, documents);
  });
  return { documents, errors };
}

/**
 * What of a broken document explains an error at `offset`: the flow collection (`[`, `{`) left open there (the
 * innermost, by its start), or the quoted string that ends last before it (a missing closing quote makes a
 * string run on to the next quote, and the error show up far below the typo). Walks without recursion.
 */
function nearError(doc: Document.Parsed, offset: number): { flow: number | null; quote: { start: number; end: number } | null } {
  let flow: number | null = null;
  let quote: { start: number; end: number } | null = null;
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const n = stack.pop();
    if (isPair(n)) {
      stack.push(n.key, n.value);
    } else if (isCollection(n)) {
      if (n.flow && n.range && n.range[0] < offset && n.range[1] === offset && (flow === null || n.range[0] > flow)) flow = n.range[0];
      for (const item of n.items) stack.push(item);
    } else if (isScalar(n) && (n.type === 'QUOTE_DOUBLE' || n.type === 'QUOTE_SINGLE') && n.range) {
      const [start, end] = n.range;
      if (end <= offset && (!quote || end > quote.end)) quote = { start, end };
    }
  }
  return { flow, quote };
}

/**
 * Whether arrays and objects nest deeper than `max` (a scalar is depth 0), without recursion. Values shared
 * through aliases are walked again only when reached deeper than before.
 */
function tooDeep(root: unknown, max: number): boolean {
  const seen = new Map<object, number>();
  const stack: Array<[unknown, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d > max) return true;
    const before = seen.get(v);
    if (before !== undefined && before >= d) continue;
    seen.set(v, d);
    for (const c of Array.isArray(v) ? v : Object.values(v)) if (c !== null && typeof c === 'object') stack.push([c, d + 1]);
  }
  return false;
}

function flattenList(value: unknown, where: string, out: SourcedDocument[]): void {
  if (isObject(value) && typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items)) {
    value.items.forEach((item, i) => out.push({ value: item, where: `${where} items[${i}]` }));
    return;
  }
  out.push({ value, where });
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
