/**
 * Which rows are stale: a row is built from the objects of a few kinds (its root's, what it owns,
 * pods); while any of those kinds cannot be listed or watched, what the row shows may be out of
 * date, and it says so, with the reason and since when. Pure.
 */
import type { RowStaleness, WorkloadRow } from './row.ts';

export interface KindFailure {
  /** Epoch ms of the first failure since the kind last succeeded. */
  since: number;
  message: string;
  /** `resource.group`, for people. */
  name: string;
  /**
   * Never read (forbidden, or failing since before its first list): what the kind would contribute
   * is unknown, not stale. A pods kind that cannot be read leaves every row's requested and
   * allocated GPUs and its pods unknown (never 0).
   */
  unreadable?: boolean;
}

/** Failing kinds of one cluster by `group/Kind`; `CLUSTER` when the whole cluster is unreachable. */
export type KindHealth = ReadonlyMap<string, KindFailure>;

export const CLUSTER = '*';

/** Every row depends on pods: they carry its GPUs, phases and readiness. */
export const POD_KIND = '/Pod';

export function stalenessOf(deps: ReadonlySet<string>, health: KindHealth): RowStaleness | null {
  if (health.size === 0) return null;
  const failing: KindFailure[] = [];
  for (const [gk, f] of health) if (gk === CLUSTER || deps.has(gk)) failing.push(f);
  if (failing.length === 0) return null;
  failing.sort((a, b) => a.since - b.since || (a.name < b.name ? -1 : 1));
  const first = failing[0];
  return {
    since: new Date(first.since).toISOString(),
    reason: `${failing.map((f) => f.name).join(', ')} cannot be read: ${first.message}`,
    kinds: failing.map((f) => f.name),
  };
}

/** Figures a row cannot know while a kind it depends on has never been read. */
function unreadableFigures(deps: ReadonlySet<string>, health: KindHealth): boolean {
  for (const [gk, f] of health) if (f.unreadable && (gk === CLUSTER || deps.has(gk))) return true;
  return false;
}

/**
 * The row with its staleness for the kinds it depends on (the same object when nothing changes),
 * from the row as resolved. While a kind it is built from has never been read, its requested and
 * allocated GPUs and its pods are unknown: they are marked so, never shown as 0.
 */
export function withStaleness(row: WorkloadRow, deps: ReadonlySet<string>, health: KindHealth): WorkloadRow {
  const stale = stalenessOf(deps, health);
  const unknown = unreadableFigures(deps, health);
  if (stale === null && row.stale === null && !unknown) return row;
  if (!unknown) return { ...row, stale };
  const fields = new Set(row.gpus.unknown);
  fields.add('requested');
  fields.add('allocated');
  return { ...row, stale, gpus: { ...row.gpus, unknown: [...fields].sort() as WorkloadRow['gpus']['unknown'] }, pods: { ...row.pods, unknown: true } };
}

/** An owner a row's root names that is not in the index: its kind (`group/Kind`) and how to name it. */
export interface MissingOwner {
  gk: string;
  text: string;
}

/**
 * The row whose root's owner is missing only as far as the cluster could be read: while the owner's
 * kind cannot be listed (forbidden, failing), the owner is unknown, not absent, and the row says so
 * (the same object when that does not apply). Its pods and GPUs are its own either way.
 */
export function withOwnerReadability(row: WorkloadRow, missing: MissingOwner | null | undefined, health: KindHealth): WorkloadRow {
  if (!missing) return row;
  const f = health.get(missing.gk) ?? health.get(CLUSTER);
  if (!f) return row;
  return { ...row, ownership: { ...row.ownership, broken: `its owner ${missing.text} cannot be read (${f.name}: ${f.message})` } };
}

/** The kinds whose failure started, ended or changed between two health maps. */
export function changedKinds(before: KindHealth, after: KindHealth): Set<string> {
  const out = new Set<string>();
  for (const [gk, f] of after) {
    const b = before.get(gk);
    if (!b || b.since !== f.since || b.message !== f.message) out.add(gk);
  }
  for (const gk of before.keys()) if (!after.has(gk)) out.add(gk);
  return out;
}
