/**
 * Reading Kubernetes documents from text: multi-document YAML, a JSON object or array, or a `List`.
 * YAML is read as YAML 1.1, as kubectl does (`suspend: no` is the boolean false).
 */
import { parseAllDocuments } from 'yaml';
import { engineError, type EngineError } from './errors.ts';

export interface SourcedDocument {
  value: unknown;
  /** e.g. `jobset.yaml#2 (line 40)` */
  where: string;
}

export function parseDocuments(text: string, source: string): { documents: SourcedDocument[]; errors: EngineError[] } {
  const documents: SourcedDocument[] = [];
  const errors: EngineError[] = [];
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const value: unknown = JSON.parse(text);
      const items = Array.isArray(value) ? value : [value];
      items.forEach((v, i) => flattenList(v, Array.isArray(value) ? `${source}[${i}]` : source, documents));
      return { documents, errors };
    } catch {
      // Not JSON after all: YAML is a superset and reports better positions.
    }
  }
  const docs = parseAllDocuments(text, { version: '1.1', prettyErrors: false });
  const list = Array.isArray(docs) ? docs : [docs];
  list.forEach((doc, i) => {
    const line = lineOf(text, doc.range?.[0] ?? 0);
    const where = list.length > 1 ? `${source}#${i + 1} (line ${line})` : source;
    if (doc.errors.length > 0) {
      for (const e of doc.errors) {
        const at = e.linePos?.[0] ? `line ${e.linePos[0].line}, column ${e.linePos[0].col}` : `line ${line}`;
        errors.push(engineError('document.yaml', `${source}: ${at}: ${e.message.split('\n')[0]}`, where));
      }
      return;
    }
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) return; // empty document (e.g. a trailing `---`)
    flattenList(value, where, documents);
  });
  return { documents, errors };
}

function flattenList(value: unknown, where: string, out: SourcedDocument[]): void {
  if (isObject(value) && typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items)) {
    value.items.forEach((item, i) => out.push({ value: item, where: `${where} items[${i}]` }));
    return;
  }
  out.push({ value, where });
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  // Skip the document marker and blank lines so the line points at the content.
  return line;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
