/**
 * Names in the order people count them: `worker-2` before `worker-10`, `a-0-1` before `a-0-10`.
 * Runs of digits compare by value; everything else compares case- and accent-insensitively, with
 * punctuation before digits before letters (the order of Unicode's root collation, which
 * `Intl.Collator('en', { numeric: true, sensitivity: 'base' })` gives), then exactly, so the order
 * is total and the same in every browser and in the CLI. Written out rather than an Intl.Collator:
 * the first collator a process makes loads ICU's collation data, about 5 ms of every CLI command.
 */

/** ASCII punctuation and symbols in root-collation order; any other non-alphanumeric sorts after them. */
const PUNCTUATION = ` \t\n\r_-,;:!?.'"()[]{}@*/\\&#%\`^+<=>|~$`;
const DIGIT_0 = 48;
const DIGIT_9 = 57;
const isDigit = (c: number) => c >= DIGIT_0 && c <= DIGIT_9;

/** Primary weight of a non-digit character: its class (punctuation, other, letter), then the folded letter. */
function weight(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c >= 65 && c <= 90) return 0x20000 + c + 32;
  if (c >= 97 && c <= 122) return 0x20000 + c;
  if (c < 128) {
    const p = PUNCTUATION.indexOf(s[i]);
    return p >= 0 ? p : 0x100 + c;
  }
  // Beyond ASCII (rare in Kubernetes names): letters without their accents, lower case.
  const base = s[i].normalize('NFD')[0].toLowerCase();
  return /\p{L}/u.test(base) ? 0x20000 + base.charCodeAt(0) : 0x10000 + c;
}

/** Compares the digit runs starting at a[i] and b[j] by value; returns the order and where each run ends. */
function compareNumbers(a: string, i: number, b: string, j: number): [order: number, endA: number, endB: number] {
  let ea = i;
  while (ea < a.length && isDigit(a.charCodeAt(ea))) ea++;
  let eb = j;
  while (eb < b.length && isDigit(b.charCodeAt(eb))) eb++;
  let sa = i;
  while (sa < ea - 1 && a.charCodeAt(sa) === DIGIT_0) sa++;
  let sb = j;
  while (sb < eb - 1 && b.charCodeAt(sb) === DIGIT_0) sb++;
  if (ea - sa !== eb - sb) return [ea - sa - (eb - sb), ea, eb];
  for (let k = 0; k < ea - sa; k++) {
    const d = a.charCodeAt(sa + k) - b.charCodeAt(sb + k);
    if (d !== 0) return [d, ea, eb];
  }
  return [0, ea, eb];
}

/** The order ignoring case, accents and leading zeros (0 for names that differ only so). */
function looseCompare(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const da = isDigit(a.charCodeAt(i));
    const db = isDigit(b.charCodeAt(j));
    if (da && db) {
      const [order, ea, eb] = compareNumbers(a, i, b, j);
      if (order !== 0) return order;
      i = ea;
      j = eb;
      continue;
    }
    // A digit sorts after punctuation and before letters.
    const wa = da ? 0x18000 : weight(a, i);
    const wb = db ? 0x18000 : weight(b, j);
    if (wa !== wb) return wa - wb;
    i++;
    j++;
  }
  return a.length - i - (b.length - j);
}

export function naturalCompare(a: string, b: string): number {
  return looseCompare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
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
