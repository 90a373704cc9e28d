/**
 * Loading definitions: parse, check the schema, check the semantics. A broken definition is still
 * returned (with its errors) so that listings can show it; only valid ones are compiled and used.
 */
import { parseDocuments, isObject } from '../documents.ts';
import { engineError, type EngineError } from '../errors.ts';
import { checkSchema, salvage } from './schema.ts';
import type { Definition } from './types.ts';
import { validateSemantics } from './validate.ts';

export interface LoadedDefinition {
  /** `metadata.name`, or a placeholder naming the document when it has none. */
  name: string;
  /** Where it came from: `catalog`, `cluster`, or `file`. */
  source: string;
  /** File name or object reference, for messages. */
  origin: string;
  definition: Definition | null;
  errors: EngineError[];
}

const DEFINITION_KINDS = new Set(['Karta', 'ResourceInterface']);

export function isDefinitionDocument(v: unknown): boolean {
  return isObject(v) && typeof v.kind === 'string' && DEFINITION_KINDS.has(v.kind);
}

/**
 * Checks one definition document (already parsed). Every error at once: when the schema has errors, the
 * semantic checks (owner references, expressions, …) still run on what of the document passed it, and report
 * what the schema has not already said about the same field.
 */
export function checkDefinition(doc: unknown, source: string, origin: string): LoadedDefinition {
  const metaName = isObject(doc) && isObject(doc.metadata) && typeof doc.metadata.name === 'string' ? doc.metadata.name : '';
  const name = metaName || `(unnamed definition in ${origin})`;
  // the messages do not name the origin: whoever prints them with several documents does
  const label = metaName ? `definition "${metaName}"` : 'unnamed definition';
  const schema = checkSchema(doc);
  const errors: EngineError[] = [];
  const said = new Set<string>();
  const add = (code: string, path: string, message: string) => {
    const key = `${path}\u0000${message}`;
    if (said.has(key)) return;
    said.add(key);
    errors.push(engineError(code, `${label}: ${path}: ${message}`, path));
  };
  for (const p of schema) add('definition.schema', p.path, p.message);
  // Not mutated later: compiled forms copy what they need (no aliasing of the caller's arrays).
  const def = (schema.length === 0 ? structuredClone(doc) : salvage(doc, schema)) as Definition;
  const schemaPaths = new Set(schema.map((p) => p.path));
  for (const p of validateSemantics(def)) {
    // the schema's error on a field (or on one that holds it) is the one to fix there
    if (!fieldAndHolders(p.path).some((f) => schemaPaths.has(f))) add('definition.invalid', p.path, p.message);
  }
  return { name, source, origin, definition: schema.length === 0 ? def : null, errors };
}

/** `a.b[1].c` → `['', 'a', 'a.b', 'a.b[1]', 'a.b[1].c']`. */
function fieldAndHolders(path: string): string[] {
  const out = [''];
  for (let i = 1; i < path.length; i++) if (path[i] === '.' || path[i] === '[') out.push(path.slice(0, i));
  if (path !== '') out.push(path);
  return out;
}

/**
 * Loads every definition in a text (YAML or JSON). Documents that are not definitions are errors,
 * because a definitions file holding a Pod is almost certainly the wrong file. Errors of the text itself
 * (syntax, limits, documents that are not definitions) name the document in their `path` and not in their
 * message, so that `${path}: ${message}` names the source once.
 */
export function loadDefinitionsFromText(text: string, origin: string, source = 'file'): { definitions: LoadedDefinition[]; errors: EngineError[] } {
  const { documents, errors } = parseDocuments(text, origin);
  const definitions: LoadedDefinition[] = [];
  for (const d of documents) {
    if (!isDefinitionDocument(d.value)) {
      const kind = isObject(d.value) && typeof d.value.kind === 'string' ? d.value.kind : typeof d.value;
      errors.push(engineError('definition.not-a-definition', `expected a run.ai/v1alpha1 Karta or optimization.nvidia.com/v1alpha1 ResourceInterface, got ${kind}`, d.where));
      continue;
    }
    definitions.push(checkDefinition(d.value, source, d.where));
  }
  return { definitions, errors };
}
