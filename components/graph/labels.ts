/**
 * Short labels that keep what tells siblings apart. Pod names share long prefixes
 * (`llama-finetune-workers-0-0-x7k2p`, `llama-finetune-workers-0-1-9dq4m`): cutting them at the end
 * makes every sibling read the same, so the cut goes in the middle and the part after the common
 * prefix is kept whole when it fits. The full name stays in the node's accessible name and hover.
 */

/** Characters after which a name may be cut: the separators Kubernetes names are built with. */
const SEPARATORS = new Set(['-', '.', '_', '/']);

/** The longest prefix every name shares, cut back to just after a separator (never mid-word). */
export function commonPrefix(names: readonly string[]): string {
  if (names.length < 2) return '';
  let end = names[0].length;
  for (const n of names) {
    let i = 0;
    while (i < end && i < n.length && n[i] === names[0][i]) i++;
    end = i;
    if (end === 0) return '';
  }
  // A name that is all prefix (`w-0` beside `w-0-1`) keeps its last part: cut before it.
  const shortest = Math.min(...names.map((n) => n.length));
  if (end >= shortest) end = shortest - 1;
  while (end > 0 && !SEPARATORS.has(names[0][end - 1])) end--;
  return names[0].slice(0, end);
}

/** `head…tail` within `max` characters, the tail (where names differ) getting the larger share. */
export function middleEllipsis(s: string, max: number): string {
  if (s.length <= max) return s;
  if (max <= 1) return '…';
  const keep = max - 1;
  const head = Math.floor(keep * 0.4);
  return `${s.slice(0, head)}…${s.slice(s.length - (keep - head))}`;
}

/**
 * One label per name, at most `max` characters: a name that fits is itself; a longer one keeps as
 * much of its head as fits before the part that differs from its siblings, and that part whole.
 */
export function shortLabels(names: readonly string[], max = 28): string[] {
  const prefix = commonPrefix(names);
  return names.map((name) => {
    if (name.length <= max) return name;
    const distinct = name.slice(prefix.length);
    if (prefix.length === 0 || distinct.length + 2 > max) return middleEllipsis(name, max);
    const head = max - 1 - distinct.length;
    return `${name.slice(0, head)}…${distinct}`;
  });
}
