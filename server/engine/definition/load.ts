/**
 * Loading definitions: parse, check the schema, check the semantics. A broken definition is still
 * returned (with its errors) so that listings can show it; only valid ones are compiled and used.
 */
import { parseDocuments, isObject } from '../documents.ts';
import { engineError, type EngineError } from '../errors.ts';
import { checkSchema } from './schema.ts';
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

/** Checks one definition document (already parsed). */
export function checkDefinition(doc: unknown, source: string, origin: string): LoadedDefinition {
  const metaName = isObject(doc) && isObject(doc.metadata) && typeof doc.metadata.name === 'string' ? doc.metadata.name : '';
  const name = metaName || `(unnamed definition in ${origin})`;
  const label = `definition "${name}"`;
  const schema = checkSchema(doc);
  if (schema.length > 0) {
    return { name, source, origin, definition: null, errors: schema.map((p) => engineError('definition.schema', `${label}: ${p.path}: ${p.message}`, p.path)) };
  }
  // Not mutated later: compiled forms copy what they need (no aliasing of the caller's arrays).
  const def = structuredClone(doc) as Definition;
  const semantic = validateSemantics(def);
  return {
    name,
    source,
    origin,
    definition: def,
    errors: semantic.map((p) => engineError('definition.invalid', `${label}: ${p.path}: ${p.message}`, p.path)),
  };
}

/**
 * Loads every definition in a text (YAML or JSON). Documents that are not definitions are errors,
 * because a definitions file holding a Pod is almost certainly the wrong file.
 */
export function loadDefinitionsFromText(text: string, origin: string, source = 'file'): { definitions: LoadedDefinition[]; errors: EngineError[] } {
  const { documents, errors } = parseDocuments(text, origin);
  const definitions: LoadedDefinition[] = [];
  for (const d of documents) {
    if (!isDefinitionDocument(d.value)) {
      const kind = isObject(d.value) && typeof d.value.kind === 'string' ? d.value.kind : typeof d.value;
      errors.push(engineError('definition.not-a-definition', `${d.where}: expected a run.ai/v1alpha1 Karta or optimization.nvidia.com/v1alpha1 ResourceInterface, got ${kind}`, d.where));
      continue;
    }
    definitions.push(checkDefinition(d.value, source, d.where));
  }
  return { definitions, errors };
}
