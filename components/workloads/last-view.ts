/**
 * What the table was showing when the user left it, in this tab: its query string, so that the
 * header's "Workloads" link and "← Workloads" on a workload page return to the filtered, sorted view
 * the user came from; and the row that was focused when a workload was opened, so that coming back
 * (Back, or either link) puts the focus and the scroll position where they were.
 *
 * Kept in memory and in sessionStorage (per tab, like history), so that a reload of a workload page
 * does not forget it. Listeners let the header's link follow changes.
 */

export interface FocusMemory {
  /** The table's query string the row was focused in: another view starts afresh. */
  qs: string;
  id: string;
  scrollTop: number;
}

/** Where the memory is kept between page loads; absent (tests, the server, storage refused) means memory only. */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

const QUERY_KEY = 'wmap-table-query';
const FOCUS_KEY = 'wmap-table-focus';

export class ViewMemory {
  private qs: string | null = null;
  private focus: FocusMemory | null | undefined = undefined;
  private listeners = new Set<() => void>();

  constructor(private readonly store: () => KeyValueStore | null) {}

  private read(key: string): string | null {
    try {
      return this.store()?.getItem(key) ?? null;
    } catch {
      return null;
    }
  }

  private write(key: string, value: string | null): void {
    try {
      const s = this.store();
      if (value === null) s?.removeItem(key);
      else s?.setItem(key, value);
    } catch {
      // Storage full or refused (private mode): memory alone still serves this page's life.
    }
  }

  rememberQuery(qs: string): void {
    if (qs === this.tableQuery()) return;
    this.qs = qs;
    this.write(QUERY_KEY, qs);
    for (const fn of this.listeners) fn();
  }

  tableQuery(): string {
    this.qs ??= this.read(QUERY_KEY) ?? '';
    return this.qs;
  }

  href(): string {
    const qs = this.tableQuery();
    return qs ? `/?${qs}` : '/';
  }

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  rememberFocus(f: FocusMemory): void {
    this.focus = f;
    this.write(FOCUS_KEY, JSON.stringify(f));
  }

  /** The focus to restore in the view `qs`, once: a later visit to the table starts at the top. */
  takeFocus(qs: string): FocusMemory | null {
    if (this.focus === undefined) this.focus = parseFocus(this.read(FOCUS_KEY));
    const f = this.focus;
    this.focus = null;
    this.write(FOCUS_KEY, null);
    return f && f.qs === qs ? f : null;
  }
}

function parseFocus(text: string | null): FocusMemory | null {
  if (!text) return null;
  try {
    const v = JSON.parse(text) as Partial<FocusMemory>;
    return typeof v.qs === 'string' && typeof v.id === 'string' && typeof v.scrollTop === 'number' ? { qs: v.qs, id: v.id, scrollTop: v.scrollTop } : null;
  } catch {
    return null;
  }
}

const memory = new ViewMemory(() => (typeof window === 'undefined' ? null : window.sessionStorage));

export function rememberTableQuery(qs: string): void {
  memory.rememberQuery(qs);
}

export function tableHref(): string {
  return memory.href();
}

export function subscribeTableHref(fn: () => void): () => void {
  return memory.subscribe(fn);
}

export function rememberTableFocus(f: FocusMemory): void {
  memory.rememberFocus(f);
}

export function takeTableFocus(qs: string): FocusMemory | null {
  return memory.takeFocus(qs);
}
