/**
 * What a `KIND/NAME` argument names, as kubectl reads it: the kind, its plural, its singular or a
 * short name (`lws`), any case, optionally followed by `.group` (`jobs.batch`, `job.batch.volcano.sh`),
 * resolved against the cluster's discovery. Pure.
 */
import type { ServedResource } from '../cluster/index.ts';

/**
 * The `group/Kind`s a kind token names. A token that leaves the group open and matches in several
 * groups (`jobs` with Volcano installed) names the first of them in discovery order, as kubectl's
 * priority mapper resolves it (built-in groups before custom ones): `jobs.batch.volcano.sh` or a short
 * name (`vcjob`) reaches the other.
 */
export function kindsNamed(token: string, served: readonly ServedResource[]): Set<string> {
  const t = token.toLowerCase();
  const out = new Set<string>();
  let group: string | null = null;
  for (const r of served) {
    if (group !== null && r.group !== group) continue;
    const names = [r.kind.toLowerCase(), r.resource.toLowerCase(), (r.singular ?? r.kind).toLowerCase(), ...(r.shortNames ?? []).map((s) => s.toLowerCase())];
    for (const n of names) {
      if (t === n || (r.group !== '' && t === `${n}.${r.group.toLowerCase()}`)) {
        out.add(`${r.group}/${r.kind}`);
        group = r.group;
      }
    }
  }
  return out;
}

/** `workloads`, `workload` or `wl`: every kind, not a kind of its own (`wmap get workloads`). */
export function isWorkloadsWord(token: string): boolean {
  return ['workloads', 'workload', 'wl'].includes(token.toLowerCase());
}

/** Without discovery (or for a kind it does not list): the kind, lower-case, with an optional plural `s`/`es` and `.group`. */
export function kindGuess(token: string): (group: string, kind: string) => boolean {
  const t = token.toLowerCase();
  const dot = t.indexOf('.');
  const name = dot < 0 ? t : t.slice(0, dot);
  const group = dot < 0 ? null : t.slice(dot + 1);
  return (g, kind) => {
    const k = kind.toLowerCase();
    return (name === k || name === `${k}s` || name === `${k}es`) && (group === null || group === g.toLowerCase());
  };
}
