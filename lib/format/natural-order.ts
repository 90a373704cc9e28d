/**
 * Names in the order people count them: `worker-2` before `worker-10`, `a-0-1` before `a-0-10`.
 * Runs of digits compare by value; everything else compares case-insensitively, then exactly, so
 * the order is total and the same in every browser and in the CLI.
 */
const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

export function naturalCompare(a: string, b: string): number {
  return collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** Role names people expect first (the one that coordinates), then the rest in natural order. */
const LEADING_ROLES = ['launcher', 'leader', 'head', 'master', 'chief', 'driver', 'coordinator', 'scheduler', 'frontend', 'router', 'predictor'];

/** Leader before workers: a leading role first, then natural order. */
export function roleCompare(a: string, b: string): number {
  const rank = (n: string) => {
    const base = n.slice(n.lastIndexOf('/') + 1).toLowerCase();
    const i = LEADING_ROLES.findIndex((r) => base === r || base.startsWith(`${r}-`) || base.endsWith(`-${r}`));
    return i < 0 ? LEADING_ROLES.length : i;
  };
  return rank(a) - rank(b) || naturalCompare(a, b);
}
