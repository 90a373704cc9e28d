/**
 * ClusterRole aggregation, as kube-controller-manager's clusterrole-aggregation controller does it:
 * a ClusterRole with an `aggregationRule` gets, as its `rules`, the rules of every other ClusterRole its
 * label selectors match (in name order, duplicates dropped). Aggregated roles feed each other (view
 * into edit, edit into admin), so a change settles over a few rounds, each its own MODIFIED event.
 */

import type { MemoryStore } from '../../store/memory-store.ts';
import type { KubeObject } from '../../store/object-store.ts';
import { clone, deepEqual, isPlainObject } from '../../store/object-utils.ts';
import type { LabelRequirement } from '../selectors.ts';
import { matchLabels } from '../selectors.ts';
import { RBAC_GROUP } from './policy.ts';

const AV = `${RBAC_GROUP}/v1`;

function requirements(selector: unknown): LabelRequirement[] {
  const s = isPlainObject(selector) ? selector : {};
  const out: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(isPlainObject(s.matchLabels) ? s.matchLabels : {})) out.push({ key, op: 'eq', values: [String(value)] });
  for (const e of Array.isArray(s.matchExpressions) ? s.matchExpressions : []) {
    const x = isPlainObject(e) ? e : {};
    const values = Array.isArray(x.values) ? x.values.map(String) : [];
    const op = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: 'notexists' }[String(x.operator)] as LabelRequirement['op'] | undefined;
    // An operator the selector cannot express selects nothing.
    out.push(op ? { key: String(x.key ?? ''), op, values } : { key: String(x.key ?? ''), op: 'in', values: [] });
  }
  return out;
}

function selectorsOf(role: KubeObject): unknown[] | undefined {
  const rule = role.aggregationRule;
  if (!isPlainObject(rule)) return undefined;
  return Array.isArray(rule.clusterRoleSelectors) ? rule.clusterRoleSelectors : [];
}

/** The rules an aggregated ClusterRole should have now, or undefined when it aggregates nothing. */
export function aggregatedRules(role: KubeObject, all: readonly KubeObject[]): unknown[] | undefined {
  const selectors = selectorsOf(role);
  if (!selectors) return undefined;
  const sorted = [...all].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  const rules: unknown[] = [];
  for (const selector of selectors) {
    const reqs = requirements(selector);
    for (const other of sorted) {
      if (other.metadata.name === role.metadata.name || !matchLabels(reqs, other.metadata.labels)) continue;
      for (const r of Array.isArray(other.rules) ? other.rules : []) if (!rules.some((x) => deepEqual(x, r))) rules.push(clone(r));
    }
  }
  return rules;
}

/** Aggregates to a fixed point in place (bootstrap objects before they are stored). */
export function aggregateAll(roles: KubeObject[]): void {
  for (let round = 0; round < 10; round++) {
    let changed = false;
    for (const role of roles) {
      const rules = aggregatedRules(role, roles);
      if (rules && !deepEqual(rules, role.rules ?? [])) {
        role.rules = rules;
        changed = true;
      }
    }
    if (!changed) return;
  }
}

/** The controller: any ClusterRole change re-aggregates every aggregated ClusterRole, outside the event dispatch. */
export class ClusterRoleAggregator {
  private scheduled = false;
  private stopped = false;
  private readonly unsubscribe: () => void;

  constructor(private readonly store: MemoryStore) {
    this.unsubscribe = store.subscribe((e) => {
      if (e.object.kind === 'ClusterRole' && e.object.apiVersion.startsWith(`${RBAC_GROUP}/`)) this.schedule();
    });
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // Not inside the store's event dispatch: every watcher sees the triggering change before this one.
    setImmediate(() => {
      this.scheduled = false;
      if (!this.stopped) this.sync();
    });
  }

  private sync(): void {
    const all = this.store.list(AV, 'ClusterRole');
    for (const role of all) {
      const rules = aggregatedRules(role, all);
      if (!rules || deepEqual(rules, role.rules ?? [])) continue;
      const next = clone(role);
      next.rules = rules;
      try {
        // One role per round: its event triggers the next round, which sees the new rules.
        this.store.update(next);
        return;
      } catch {
        // Changed meanwhile: its own event schedules another round.
      }
    }
  }
}
