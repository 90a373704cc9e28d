/**
 * Reading Kubernetes documents from text: multi-document YAML, a JSON object or array, or a `List`.
 * YAML is read as YAML 1.1, as kubectl does (`suspend: no` is the boolean false).
 *
 * The text may come from anyone who can post to the validator, so reading it is bounded: its size, the number
 * of documents, the nesting depth of each, and the expansion of YAML aliases (`yaml`'s maxAliasCount). Time is
 * linear in the text: documents are composed one at a time (and no further than the limit), lines are found by
 * binary search. A limit broken is an error naming the document and its line, never an exception.
 */
import { Composer, LineCounter, Parser, type Document } from 'yaml';
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
    return fail(`${source}: the text has ${text.length} characters, more than the limit of ${limits.maxBytes}`, source);
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
        if (tooDeep(items[i], limits.maxDepth)) return fail(`${where}: nests deeper than ${limits.maxDepth} levels`, where);
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
        return fail(`${source}: more than ${limits.maxDocuments} documents (document ${docs.length} starts at line ${lineOf(doc.range[0])})`, source);
      }
    }
  } catch (e) {
    // the parser recurses per level of nesting: a pathological text can exhaust the stack
    return fail(`${source}: cannot be read: ${e instanceof RangeError ? `nests too deeply (${e.message})` : String(e)}`, source);
  }
  docs.forEach((doc, i) => {
    // the line of the content, past the `---` marker and blank lines
    const line = lineOf(doc.contents?.range?.[0] ?? doc.range[0]);
    const where = docs.length > 1 ? `${source}#${i + 1} (line ${line})` : source;
    const at = docs.length > 1 ? where : `${source} (line ${line})`;
    if (doc.errors.length > 0) {
      for (const e of doc.errors) {
        const pos = lines.linePos(e.pos[0]);
        const place = pos.line > 0 ? `line ${pos.line}, column ${pos.col}` : `line ${line}`;
        // the composer recurses per level of nesting; past some hundreds of flow levels it runs out of stack
        if (/call stack|stack overflow/i.test(e.message)) {
          errors.push(engineError('document.yaml', `${source}: ${place}: nests too deeply to be read`, where));
          break;
        }
        errors.push(engineError('document.yaml', `${source}: ${place}: ${e.message.split('\n')[0]}`, where));
      }
      return;
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: limits.maxAliasCount });
    } catch (e) {
      // yaml throws a ReferenceError for excessive aliasing ("billion laughs"), RangeError when too deep
      const why = e instanceof ReferenceError ? `too many aliases: ${e.message}` : e instanceof RangeError ? `nests too deeply (${e.message})` : String(e);
      errors.push(engineError('document.yaml', `${at}: ${why}`, where));
      return;
    }
    if (value === null || value === undefined) return; // empty document (e.g. a trailing `---`)
    if (tooDeep(value, limits.maxDepth)) {
      errors.push(engineError('document.yaml', `${at}: nests deeper than ${limits.maxDepth} levels`, where));
      return;
    }
    flattenList(value, where, documents);
  });
  return { documents, errors };
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
