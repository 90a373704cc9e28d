/**
 * What the CEL box says under the expression. The applied expression's problem is shown while the
 * box holds that expression; once the user types something else, that message is about an old draft
 * and goes away: the new draft is checked after a pause in typing (`CEL_CHECK_DELAY_MS`), and until
 * then nothing stale is on screen. Pure: the caller debounces and passes what it has checked.
 */
import { compileCelFilter } from '../../lib/rows/index.ts';

export const CEL_CHECK_DELAY_MS = 300;

export type CelBoxMessage =
  | { tone: 'bad'; text: string; applied: boolean }
  | { tone: 'hint'; text: string }
  | null;

export interface CelBoxState {
  /** What is in the box. */
  draft: string;
  /** The draft as of the last pause in typing (what has been checked). */
  checked: string;
  /** The expression in effect (the URL's). */
  applied: string;
  /** Why the applied expression filters nothing, or null. */
  appliedError: string | null;
}

export function celBoxMessage(s: CelBoxState): CelBoxMessage {
  const draft = s.draft.trim();
  if (draft === s.applied.trim()) return s.applied && s.appliedError ? { tone: 'bad', text: s.appliedError, applied: true } : null;
  // Still typing: neither the applied expression's error nor an older draft's is about this text.
  if (s.checked !== s.draft || draft === '') return null;
  const f = compileCelFilter(draft);
  if (!f.ok) return { tone: 'bad', text: f.error, applied: false };
  return { tone: 'hint', text: s.applied ? 'Enter applies this expression in place of the current one.' : 'Enter applies this expression.' };
}
