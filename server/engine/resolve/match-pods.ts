/**
 * Which component, instance and replica a pod belongs to (reference §3.5), evaluated on the pod.
 *
 * Deliberate differences from upstream:
 * - a type selector's value is compared with the key path's outputs directly, not by pasting
 *   `<keyPath> == "<value>"` into a new program (which changes meaning when the key path holds
 *   `//`, `,` or `|`: pitfall P-05);
 * - when a definition has a single pod-bearing component that carries a type selector, a pod must
 *   match it (upstream assigns every pod to a single leaf, even pods it would never select: P-34);
 * - a pod-bearing component with an instance selector but no type selector claims pods whose
 *   instance id is one of its instances (upstream never selects such components).
 */
import type { CompiledComponent, CompiledDefinition } from '../definition/compile.ts';
import { EngineFailure } from '../errors.ts';
import type { BoundExpression } from '../expression.ts';
import { jqToString } from '../jq/index.ts';
import { describeObject, meta, type KubeObject } from '../k8s.ts';

export interface PodPlacement {
  component: CompiledComponent | null;
  instance: string | null;
  replica: string | null;
  /** Why the pod could not be placed fully, when it could not. */
  problem?: EngineFailure;
}

/**
 * Outputs of pod-side expressions for one pod, by expression text: definitions often use the same
 * path for every component's type selector and for the instance selector (one label), so each
 * distinct path runs once per pod.
 */
export class PodMemo {
  // A handful of distinct paths per definition: linear arrays beat a Map allocated per pod.
  private readonly sources: string[] = [];
  private readonly results: unknown[][] = [];
  run(expr: BoundExpression, pod: KubeObject, subject: string): unknown[] {
    const i = this.sources.indexOf(expr.source);
    if (i >= 0) return this.results[i];
    const r = expr.run(pod, subject);
    this.sources.push(expr.source);
    this.results.push(r);
    return r;
  }
}

/** Per component, the nearest component (itself or an ancestor) that defines a replica selector. */
const replicaSources = new WeakMap<CompiledDefinition, Map<string, BoundExpression | null>>();
function replicaSourcesOf(def: CompiledDefinition): Map<string, BoundExpression | null> {
  const cached = replicaSources.get(def);
  if (cached) return cached;
  const out = new Map<string, BoundExpression | null>();
  for (const c of def.components) {
    // Descendants inherit the replica context of the nearest ancestor that defines one.
    let cur: CompiledComponent | undefined = c;
    let found: BoundExpression | null = null;
    const guard = new Set<string>();
    while (cur && !guard.has(cur.name)) {
      guard.add(cur.name);
      if (cur.replicaSelector) {
        found = cur.replicaSelector;
        break;
      }
      cur = cur.parent ? def.byName.get(cur.parent) : undefined;
    }
    out.set(c.name, found);
  }
  replicaSources.set(def, out);
  return out;
}

/** Single non-null, non-empty result, stringified (reference §2.5: idPath, replica and group keys). */
export function singleKey(expr: BoundExpression, pod: KubeObject, subject: string, memo?: PodMemo): string {
  const r = memo ? memo.run(expr, pod, subject) : expr.run(pod, subject);
  if (r.length !== 1) throw new EngineFailure('expression.cardinality', `${expr.path}: expected single query result, got ${r.length} on ${subject}`, expr.path);
  const v = r[0];
  if (v === null || v === '') throw new EngineFailure('expression.empty', `${expr.path}: query result is empty on ${subject}`, expr.path);
  return typeof v === 'string' ? v : jqToString(v);
}

function optionalKey(expr: BoundExpression, pod: KubeObject, subject: string, memo: PodMemo): string | null {
  const r = memo.run(expr, pod, subject);
  if (r.length !== 1 || r[0] === null || r[0] === '') return null;
  return typeof r[0] === 'string' ? r[0] : jqToString(r[0]);
}

export function matchesType(c: CompiledComponent, pod: KubeObject, subject: string, memo: PodMemo = new PodMemo()): boolean {
  const ts = c.typeSelector;
  if (!ts) return false;
  if (ts.matchLabels) {
    const labels = meta(pod).labels ?? {};
    for (const [k, v] of Object.entries(ts.matchLabels)) if (labels[k] !== v) return false;
  }
  if (ts.keyPath) {
    const out = memo.run(ts.keyPath, pod, subject);
    if (ts.value === undefined) return out.some((v) => v !== null);
    return out.some((v) => v === ts.value);
  }
  return !!ts.matchLabels;
}

export class PodMatcher {
  private readonly def: CompiledDefinition;
  private readonly instanceIds: Map<string, string[]>;
  private readonly replicaSource: Map<string, BoundExpression | null>;

  constructor(def: CompiledDefinition, instanceIds: Map<string, string[]>) {
    this.def = def;
    this.instanceIds = instanceIds;
    this.replicaSource = replicaSourcesOf(def);
  }

  componentOf(pod: KubeObject, subject: string, memo: PodMemo = new PodMemo()): CompiledComponent | null {
    const leaves = this.def.leaves;
    if (leaves.length === 1 && !leaves[0].typeSelector) return leaves[0];
    for (const leaf of leaves) if (leaf.typeSelector && matchesType(leaf, pod, subject, memo)) return leaf;
    for (const leaf of leaves) {
      if (leaf.typeSelector || !leaf.instanceSelector) continue;
      const id = optionalKey(leaf.instanceSelector, pod, subject, memo);
      if (id !== null && (this.instanceIds.get(leaf.name) ?? []).includes(id)) return leaf;
    }
    return null;
  }

  place(pod: KubeObject): PodPlacement {
    const subject = describeObject(pod);
    const memo = new PodMemo();
    let component: CompiledComponent | null;
    try {
      component = this.componentOf(pod, subject, memo);
    } catch (e) {
      if (e instanceof EngineFailure) return { component: null, instance: null, replica: null, problem: e };
      throw e;
    }
    if (!component) return { component: null, instance: null, replica: null };
    let instance: string | null = null;
    let replica: string | null = null;
    let problem: EngineFailure | undefined;
    const ids = this.instanceIds.get(component.name) ?? [];
    try {
      if (component.instanceSelector && ids.length > 0 && ids[0] !== '') {
        const v = singleKey(component.instanceSelector, pod, subject, memo);
        if (ids.includes(v)) instance = v;
        else {
          problem = new EngineFailure('pod.instance-not-found', `${subject}: could not match instance id "${v}" of component "${component.name}"; existing instance ids [${ids.join(', ')}]`, component.instanceSelector.path);
        }
      } else if (!component.instanceIds) {
        instance = '';
      }
      const rs = this.replicaSource.get(component.name);
      if (rs) replica = optionalKey(rs, pod, subject, memo);
    } catch (e) {
      if (!(e instanceof EngineFailure)) throw e;
      problem = e;
    }
    return { component, instance, replica, problem };
  }
}
