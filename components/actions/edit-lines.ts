/**
 * What people type in an action's box, one entry per line, kubectl's way: `key=value` sets,
 * `key-` removes (labels, annotations, env), and `name=quantity` for resources. Pure, so that the
 * dialog and its tests read the same thing; the server checks names and values again.
 */

export interface ParsedEdits {
  set: Record<string, string | null>;
  errors: string[];
}

export function parseEditLines(text: string, o: { removals: boolean; what: string }): ParsedEdits {
  const set: Record<string, string | null> = {};
  const errors: string[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const eq = line.indexOf('=');
    if (eq < 0) {
      if (o.removals && line.endsWith('-') && line.length > 1) {
        set[line.slice(0, -1)] = null;
        return;
      }
      errors.push(`line ${i + 1}: "${line}" is not ${o.removals ? 'key=value or key-' : 'name=value'}`);
      return;
    }
    const key = line.slice(0, eq).trim();
    if (!key) {
      errors.push(`line ${i + 1}: the ${o.what} has no name`);
      return;
    }
    if (key in set) errors.push(`line ${i + 1}: ${key} is given twice`);
    set[key] = line.slice(eq + 1).trim();
  });
  if (Object.keys(set).length === 0 && errors.length === 0) errors.push(`give at least one ${o.what}`);
  return { set, errors };
}

/** A unified diff's lines with what each one is, for colouring (headers, hunks, additions, removals). */
export function diffLines(diff: string): Array<{ text: string; kind: 'add' | 'remove' | 'hunk' | 'header' | 'context' }> {
  return diff
    .split('\n')
    .filter((l, i, all) => !(i === all.length - 1 && l === ''))
    .filter((l) => !l.startsWith('==='))
    .map((text) => ({
      text,
      kind: text.startsWith('+++') || text.startsWith('---') || text.startsWith('Index:') ? 'header' : text.startsWith('@@') ? 'hunk' : text.startsWith('+') ? 'add' : text.startsWith('-') ? 'remove' : 'context',
    }));
}
