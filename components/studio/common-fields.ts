/**
 * The fields most definitions start with, read from and written into the YAML text without losing
 * its comments or order (yaml's Document model): the form beside the editor. Pure.
 */
import { isMap, parseDocument } from 'yaml';

export const COMMON_FIELDS = [
  { key: 'name', path: ['metadata', 'name'], label: 'Name' },
  { key: 'rootName', path: ['spec', 'structureDefinition', 'rootComponent', 'name'], label: 'Root component' },
  { key: 'group', path: ['spec', 'structureDefinition', 'rootComponent', 'kind', 'group'], label: 'Root kind: group' },
  { key: 'version', path: ['spec', 'structureDefinition', 'rootComponent', 'kind', 'version'], label: 'version' },
  { key: 'kind', path: ['spec', 'structureDefinition', 'rootComponent', 'kind', 'kind'], label: 'kind' },
] as const;

export type CommonKey = (typeof COMMON_FIELDS)[number]['key'];

/** The common fields' values; null when the text is not one YAML mapping (the form is then read-only). */
export function readCommonFields(text: string): Record<CommonKey, string> | null {
  const doc = parseDocument(text);
  if (doc.errors.length > 0 || !isMap(doc.contents)) return null;
  const out = {} as Record<CommonKey, string>;
  for (const f of COMMON_FIELDS) {
    const v = doc.getIn(f.path);
    out[f.key] = v === undefined || v === null ? '' : String(v);
  }
  return out;
}

/** The text with one common field set (created with its parents when missing), comments kept. */
export function writeCommonField(text: string, key: CommonKey, value: string): string {
  const doc = parseDocument(text);
  if (doc.errors.length > 0 || !isMap(doc.contents)) return text;
  const f = COMMON_FIELDS.find((x) => x.key === key)!;
  doc.setIn(f.path, value);
  return doc.toString({ lineWidth: 0 });
}
