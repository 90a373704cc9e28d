/**
 * Paths into an observed object, and their jq text. A drafted definition is read by other consumers of
 * the format (gojq), so the text uses only plain navigation: `.a.b`, `["k"]`, `[]?`.
 */

/** One step into a value: an object key or an array index. */
export type Step = { key: string } | { index: number };

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `.a.b["x-y"]` for keys; an index is written as given (`[2]`). An empty path is `.`. */
export function jqPath(steps: readonly Step[]): string {
  let out = '';
  for (const s of steps) {
    if ('index' in s) out += `${out === '' ? '.' : ''}[${s.index}]`;
    else if (IDENTIFIER.test(s.key)) out += `.${s.key}`;
    // `.["k"]` at the start, `["k"]` after another step: both are plain jq (and gojq) navigation.
    else out += `${out === '' ? '.' : ''}[${JSON.stringify(s.key)}]`;
  }
  return out === '' ? '.' : out;
}

/** A pod label's value, as a selector reads it; bracketed because label keys hold `/` and `.`. */
export function labelPath(key: string): string {
  return `.metadata.labels[${JSON.stringify(key)}]`;
}

/** `a.b[1]`: a path as messages and guesses name fields (no leading dot). */
export function fieldText(steps: readonly Step[]): string {
  return jqPath(steps).replace(/^\./, '');
}

export function getAt(root: unknown, steps: readonly Step[]): unknown {
  let cur: unknown = root;
  for (const s of steps) {
    if ('index' in s) cur = Array.isArray(cur) ? cur[s.index] : undefined;
    else cur = cur !== null && typeof cur === 'object' && !Array.isArray(cur) ? (cur as Record<string, unknown>)[s.key] : undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

export function isObj(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
