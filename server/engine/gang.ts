/**
 * Gang-scheduling preview: the PodGroup(s) KAI Scheduler would create from a definition's
 * `gangScheduling` (reference §3.9), with KAI's naming, sizes and validation errors.
 * The sizes follow KAI's subtree-scale rule (§3.4) so the preview tells what the scheduler will do.
 * Where that disagrees with the workload the preview stays KAI's and says so in the tree's
 * `warnings` (not `errors`: the tree is right, the scheduler's view is what it is): the members of
 * one group compute different sizes (pitfall P-29, `gang.inconsistent`), or a size exceeds the pods
 * the workload asks for in that group's scope (P-30, `gang.unsatisfiable`) — never when those pods
 * are unknown (no component has a pod definition there). KAI's own failures stay `errors`.
 */
import type { CompiledComponent, CompiledDefinition, CompiledGang } from './definition/compile.ts';
import { EngineFailure, engineError, type EngineError } from './errors.ts';
import type { BoundExpression } from './expression.ts';
import { describeObject, meta, objectName, objectNamespace, type KubeObject } from './k8s.ts';
import type { ExtractedComponent } from './resolve/extract.ts';
import { singleKey, type PodMatcher } from './resolve/match-pods.ts';
import type { GangPodGroup, TopologyConstraint, WorkloadTree } from './tree.ts';
import type { TopologyDefinition } from './definition/types.ts';

const GANG = 'spec.optimizationInstructions.gangScheduling';

function effectiveMin(i: { replicas: number | null; minReplicas: number | null }): number {
  if (i.minReplicas !== null && i.minReplicas > 0) return i.minReplicas;
  if (i.replicas !== null && i.replicas > 0) return i.replicas;
  return 0;
}

/** KAI's CalculateSubtreeScale (reference §3.4). */
export function subtreeScale(def: CompiledDefinition, extracted: Map<string, ExtractedComponent>, component: CompiledComponent, instanceId?: string): number {
  if (instanceId === '') throw new EngineFailure('gang.instance', 'instance id is empty');
  const instancesOf = (c: CompiledComponent) => extracted.get(c.name)?.instances ?? [];
  const children = (c: CompiledComponent) => c.children.map((n) => def.byName.get(n)!).filter(Boolean);
  const seen = new Set<string>();
  if (!def.hasScaleDefinition) {
    const leafCount = (c: CompiledComponent, id: string | undefined): number => {
      if (seen.has(c.name)) return 0;
      seen.add(c.name);
      if (c.isLeaf) {
        if (!c.instanceIds) return 1;
        if (id !== undefined) {
          if (!instancesOf(c).some((i) => i.id === id)) throw new EngineFailure('gang.instance', `instance id ${id} not found`);
          return 1;
        }
        return instancesOf(c).length;
      }
      return children(c).reduce((s, ch) => s + leafCount(ch, undefined), 0);
    };
    return leafCount(component, instanceId);
  }
  const byDefinition = (c: CompiledComponent, id: string | undefined): number => {
    if (seen.has(c.name)) return 0;
    seen.add(c.name);
    let current: number;
    if (id !== undefined) {
      const inst = instancesOf(c).find((i) => i.id === id);
      if (!inst) throw new EngineFailure('gang.instance', `instance id ${id} not found`);
      current = effectiveMin(inst);
    } else {
      current = instancesOf(c).reduce((s, i) => s + effectiveMin(i), 0);
    }
    const kids = children(c);
    if (kids.length === 0) return current;
    const childrenSum = kids.reduce((s, ch) => s + byDefinition(ch, undefined), 0);
    if (childrenSum === 0) return current;
    if (current === 0) return childrenSum;
    return current * childrenSum;
  };
  return byDefinition(component, instanceId);
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function topologyOf(t: TopologyDefinition | undefined, path: string): TopologyConstraint | undefined {
  if (!t) return undefined;
  if (!t.topologyName) throw new EngineFailure('gang.topology', 'topology constraint must include topology name', `${path}.topologyName`);
  if (!t.preferredTopologyLevel && !t.requiredTopologyLevel) throw new EngineFailure('gang.topology', 'topology constraint must include preferred or required topology level', path);
  return {
    topology: t.topologyName,
    ...(t.preferredTopologyLevel ? { preferredTopologyLevel: t.preferredTopologyLevel } : {}),
    ...(t.requiredTopologyLevel ? { requiredTopologyLevel: t.requiredTopologyLevel } : {}),
  };
}

function isInSubtree(def: CompiledDefinition, componentName: string | null, subtreeRoot: string): boolean {
  const guard = new Set<string>();
  let cur = componentName;
  while (cur && !guard.has(cur)) {
    if (cur === subtreeRoot) return true;
    guard.add(cur);
    cur = def.byName.get(cur)?.parent ?? null;
  }
  return false;
}

/** Filters pass only on a single boolean `true`; a string is "false"; null, empty or several results are errors. */
function filterPasses(f: BoundExpression, pod: KubeObject, subject: string): boolean {
  const r = f.run(pod, subject);
  if (r.length !== 1) throw new EngineFailure('expression.cardinality', `${f.path}: expected single query result, got ${r.length} on ${subject}`, f.path);
  if (r[0] === null || r[0] === '') throw new EngineFailure('expression.empty', `${f.path}: query result is empty on ${subject}`, f.path);
  return r[0] === true;
}

/** Where a PodGroup's size applies: a component's subtree, or one instance of a component (and what is below it). */
interface Scope {
  component: string;
  instance?: string;
}

function scopeText(scopes: readonly Scope[], root: string): string {
  if (scopes.length === 1 && scopes[0].component === root && scopes[0].instance === undefined) return '';
  const one = (s: Scope) => (s.instance !== undefined ? `${s.component} instance ${s.instance}` : s.component);
  return ` in component${scopes.length > 1 ? 's' : ''} ${scopes.map(one).join(', ')}`;
}

/**
 * The pods the workload itself asks for in given scopes: its roles' desired pods (each counted once),
 * or null when none of its roles lies there — no pod definition says, so there is nothing to compare.
 * An instance scope covers that instance's pods and every pod below its component (KAI does not
 * scope children to an instance either). Indexed once per tree: a workload may have thousands of groups.
 */
class DesiredPods {
  private readonly byInstance = new Map<string, number>();
  private readonly byComponent = new Map<string, number>();
  private readonly below = new Map<string, string[]>();

  constructor(
    private readonly def: CompiledDefinition,
    private readonly tree: WorkloadTree,
  ) {
    for (const r of tree.roles) {
      const key = `${r.component}\u0000${r.instance}`;
      this.byInstance.set(key, (this.byInstance.get(key) ?? 0) + r.desiredPods);
      this.byComponent.set(r.component, (this.byComponent.get(r.component) ?? 0) + r.desiredPods);
    }
  }

  /** Components strictly below `c` that have roles. */
  private descendants(c: string): string[] {
    let d = this.below.get(c);
    if (!d) {
      d = [...this.byComponent.keys()].filter((x) => x !== c && isInSubtree(this.def, x, c));
      this.below.set(c, d);
    }
    return d;
  }

  private covers(s: Scope, component: string, instance: string): boolean {
    if (component === s.component) return s.instance === undefined || s.instance === instance;
    return isInSubtree(this.def, component, s.component);
  }

  in(scopes: readonly Scope[]): number | null {
    if (scopes.length === 1) {
      const s = scopes[0];
      const own = s.instance !== undefined ? this.byInstance.get(`${s.component}\u0000${s.instance}`) : this.byComponent.get(s.component);
      const parts = [own, ...this.descendants(s.component).map((c) => this.byComponent.get(c))].filter((n): n is number => n !== undefined);
      return parts.length > 0 ? parts.reduce((a, b) => a + b, 0) : null;
    }
    const inside = this.tree.roles.filter((r) => scopes.some((s) => this.covers(s, r.component, r.instance)));
    return inside.length > 0 ? inside.reduce((a, r) => a + r.desiredPods, 0) : null;
  }
}

function unsatisfiable(name: string, need: number, desired: number | null, where: string, path: string): EngineError | null {
  if (desired === null || need <= desired) return null;
  return engineError('gang.unsatisfiable', `PodGroup ${name} would wait for ${need} pods, but the workload asks for ${desired}${where}`, path);
}

type Member = CompiledGang['podGroups'][number]['members'][number];
type Candidate = { groupIndex: number; member: Member; level: string };

/** Per component, the pod-group members that may claim its pods: its own first, then its ancestors'. */
const candidateCache = new WeakMap<CompiledDefinition, Map<string, Candidate[]>>();
function alphaCandidates(def: CompiledDefinition): Map<string, Candidate[]> {
  const cached = candidateCache.get(def);
  if (cached) return cached;
  const out = new Map<string, Candidate[]>();
  const groups = def.gang?.podGroups ?? [];
  for (const c of def.components) {
    const list: Candidate[] = [];
    const guard = new Set<string>();
    let level: string | null = c.name;
    while (level && !guard.has(level)) {
      guard.add(level);
      for (let gi = 0; gi < groups.length; gi++) for (const m of groups[gi].members) if (m.componentName === level) list.push({ groupIndex: gi, member: m, level });
      level = def.byName.get(level)?.parent ?? null;
    }
    out.set(c.name, [...list.filter((x) => x.level === c.name), ...list.filter((x) => x.level !== c.name)]);
  }
  candidateCache.set(def, out);
  return out;
}

export function previewGang(
  def: CompiledDefinition,
  root: KubeObject,
  tree: WorkloadTree,
  pods: readonly KubeObject[],
  matcher: PodMatcher,
  extracted: Map<string, ExtractedComponent>,
  errors: EngineError[],
): GangPodGroup[] {
  const gang = def.gang;
  if (!gang) return [];
  const uid = typeof meta(root).uid === 'string' ? meta(root).uid! : '';
  const namespace = objectNamespace(root);
  const desired = new DesiredPods(def, tree);
  const warn = (w: EngineError | null) => {
    if (w) tree.warnings.push(w);
  };
  const placementByName = new Map(tree.pods.map((p) => [p.name, p]));

  if (gang.podGroup) {
    const pg = gang.podGroup;
    const group: GangPodGroup = {
      name: `pg-${uid}-${pg.name}`,
      namespace,
      minMember: null,
      minSubGroup: null,
      subGroups: [],
      pods: pods.map(objectName),
      source: 'podGroup',
    };
    const topo = topologyOf(pg.topology, `${GANG}.podGroup.topology`);
    if (topo) group.topologyConstraint = topo;
    (pg.subGroups ?? []).forEach((sg, i) => {
      const path = `${GANG}.podGroup.subGroups[${i}]`;
      const c = def.byName.get(sg.componentName);
      if (!c) throw new EngineFailure('gang.subgroup', `component ${sg.componentName} not found`, `${path}.componentName`);
      const min = subtreeScale(def, extracted, c);
      if (min <= 0) throw new EngineFailure('gang.subgroup', `component ${sg.componentName} must expose a replica scale definition`, `${path}.componentName`);
      const t = topologyOf(sg.topology, `${path}.topology`);
      group.subGroups.push({
        name: sg.componentName,
        minMember: min,
        ...(t ? { topologyConstraint: t } : {}),
        podsReferences: tree.pods.filter((p) => isInSubtree(def, p.component, sg.componentName)).map((p) => p.name),
      });
    });
    if (group.subGroups.length > 0) group.minSubGroup = group.subGroups.length;
    else group.minMember = subtreeScale(def, extracted, def.root);
    // Each sub-group against the pods of its subtree; then the whole group against the workload's.
    const before = tree.warnings.length;
    group.subGroups.forEach((g, i) => {
      const scope = [{ component: g.name }];
      warn(unsatisfiable(`${group.name} sub-group ${g.name}`, g.minMember, desired.in(scope), scopeText(scope, def.root.name), `${GANG}.podGroup.subGroups[${i}]`));
    });
    if (tree.warnings.length === before) {
      const need = group.minMember ?? group.subGroups.reduce((s, g) => s + g.minMember, 0);
      warn(unsatisfiable(group.name, need, desired.in([{ component: def.root.name }]), '', `${GANG}.podGroup`));
    }
    return [group];
  }

  // Alpha podGroups: candidates per component, nearest level first (a stable partition).
  const candidates = alphaCandidates(def);
  const groups = new Map<string, GangPodGroup>();
  const sizes = new Map<string, Set<number>>();
  // The scopes of the members that sized each group (one, unless its members differ: P-29).
  const scopes = new Map<string, Map<string, Scope>>();
  // Sizes depend only on (member component, instance): computed once, not per pod.
  const scaleCache = new Map<string, number>();
  for (const pod of pods) {
    const subject = describeObject(pod);
    // One pod that cannot be grouped is reported; the others still make their groups.
    try {
      const placed = placementByName.get(objectName(pod));
      if (!placed?.component) continue;
      const chosen = (candidates.get(placed.component) ?? []).find((cand) => cand.member.filters.length === 0 || cand.member.filters.every((f) => filterPasses(f, pod, subject)));
      if (!chosen) {
        errors.push(engineError('gang.no-member', `pod ${objectNamespace(pod)}/${objectName(pod)} does not match any Karta pod group member definition`, `${GANG}.podGroups`));
        continue;
      }
      const effective = def.byName.get(chosen.member.componentName)!;
      const instance = effective.name === placed.component && placed.instance ? placed.instance : undefined;
      const keys = chosen.member.groupBy.map((e) => singleKey(e, pod, subject));
      const name = keys.length > 0 ? `pg-${uid}-${keys.join('-')}` : `pg-${uid}`;
      if (keys.length > 0 && (name.length > 253 || !DNS1123_SUBDOMAIN.test(name))) {
        throw new EngineFailure('gang.name', `Karta grouping keys [${keys.join(' ')}] produce invalid Kubernetes PodGroup name "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`, `${GANG}.podGroups[${chosen.groupIndex}]`);
      }
      const scaleKey = `${effective.name}\u0000${instance ?? ''}`;
      let min = scaleCache.get(scaleKey);
      if (min === undefined) {
        min = subtreeScale(def, extracted, effective, instance);
        scaleCache.set(scaleKey, min);
      }
      let g = groups.get(name);
      if (!g) {
        g = { name, namespace, minMember: min, minSubGroup: null, subGroups: [], pods: [], source: 'podGroups' };
        groups.set(name, g);
        sizes.set(name, new Set());
        scopes.set(name, new Map());
      }
      g.pods.push(objectName(pod));
      sizes.get(name)!.add(min);
      scopes.get(name)!.set(scaleKey, instance !== undefined ? { component: effective.name, instance } : { component: effective.name });
    } catch (err) {
      if (!(err instanceof EngineFailure)) throw err;
      errors.push(err.toValue());
    }
  }
  for (const [name, s] of sizes) {
    const g = groups.get(name)!;
    if (s.size > 1) {
      const all = [...s].sort((a, b) => a - b);
      g.minMember = all[all.length - 1];
      tree.warnings.push(engineError('gang.inconsistent', `members of PodGroup ${name} compute different sizes (${all.join(', ')}); KAI uses the one of whichever pod it sees first`, `${GANG}.podGroups`));
    }
    const where = [...scopes.get(name)!.values()];
    warn(unsatisfiable(name, g.minMember ?? 0, desired.in(where), scopeText(where, def.root.name), `${GANG}.podGroups`));
  }
  return [...groups.values()];
}
