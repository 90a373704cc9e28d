/**
 * Whether a change of the table's view makes a new history entry or rewrites the current one.
 * Every filter is one step back: a click (a facet, a preset, a sort) pushes an entry; typing in a
 * box pushes on its first keystroke and rewrites that entry while the keystrokes keep coming, so one
 * typed word is one entry rather than one per letter. A pause longer than the window, or typing in
 * another box, starts a new entry. Pure: the caller keeps the last write and passes the clock.
 */

/** Keystrokes closer together than this belong to one entry. */
export const TYPING_WINDOW_MS = 1000;

export interface LastWrite {
  /** The box that was typed in; null for a discrete change. */
  burst: string | null;
  at: number;
}

export function historyAction(last: LastWrite | null, burst: string | null, now: number, windowMs = TYPING_WINDOW_MS): 'push' | 'replace' {
  if (burst !== null && last !== null && last.burst === burst && now - last.at < windowMs) return 'replace';
  return 'push';
}
