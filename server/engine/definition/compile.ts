/**
 * A definition compiled for resolution: the component tree with parents, children and leaves, and
 * every expression compiled once. Resolution never parses expressions per object.
 */
import { bindCheckedExpression, bindExpression, type BoundExpression } from '../expression.ts';
import { EngineFailure, engineError, type EngineError } from '../errors.ts';
import { componentPath } from './expression-fields.ts';
import type { LoadedDefinition } from './load.ts';
import type { ComponentDefinition, Definition, FragmentedPodSpecDefinition, StatusDefinition, StatusMappingKey } from './types.ts';

export type FragmentField = keyof FragmentedPodSpecDefinition;

export interface CompiledStatus {
  phase?: BoundExpression;
  conditions?: { expr: BoundExpression; typeField: string; statusField: string; messageField: string | null; reasonField: string | null };
  mappings: Array<{ status: StatusMappingKey; matchers: Array<{ path: string; byPhase?: string; byConditions?: Array<{ type: string; status?: string; reason?: string }>; byExpression?: { expr: BoundExpression; expected: string } }> }>;
}

export interface CompiledComponent {
  name: string;
  path: string;
  def: ComponentDefinition;
  kind: string;
  parent: string | null;
  children: string[];
  /** Carries a pod definition (upstream "leaf"), independent of its position in the tree. */
  isLeaf: boolean;
  instanceIds?: BoundExpression;
  podTemplateSpec?: BoundExpression;
  podSpec?: BoundExpression;
  metadata?: BoundExpression;
  fragments?: Partial<Record<FragmentField, BoundExpression>>;
  hasFragmentedSpec: boolean;
  scale?: { replicas?: BoundExpression; minReplicas?: BoundExpression; maxReplicas?: BoundExpression };
  typeSelector?: { keyPath?: BoundExpression; value?: string; matchLabels?: Record<string, string> };
  instanceSelector?: BoundExpression;
  replicaSelector?: BoundExpression;
  status?: CompiledStatus;
  suspend?: { suspend: Array<{ path: BoundExpression; value: unknown }>; resume: Array<{ path: BoundExpression; value: unknown }> };
}

export interface CompiledGang {
  podGroups: Array<{ name: string; members: Array<{ componentName: string; groupBy: BoundExpression[]; filters: BoundExpression[] }> }>;
  podGroup?: NonNullable<NonNullable<Definition['spec']['optimizationInstructions']>['gangScheduling']>['podGroup'];
}

export interface CompiledDefinition {
  name: string;
  source: string;
  definition: Definition;
  rootKind: { group: string; version: string; kind: string; apiVersion: string };
  root: CompiledComponent;
  /** Root first, then children in definition order. */
  components: CompiledComponent[];
  byName: Map<string, CompiledComponent>;
  /** Pod-bearing components, root first then children in definition order. */
  leaves: CompiledComponent[];
  hasScaleDefinition: boolean;
  gang: CompiledGang | null;
}

const STATUS_KEYS: StatusMappingKey[] = ['resuming', 'suspending', 'suspended', 'running', 'failed', 'completed', 'initializing', 'degraded'];

/** How a definition field's expression is bound: compiled now, or (checked) at its first evaluation. */
type Binder = (path: string, source: string, dialect?: 'jq' | 'cel') => BoundExpression;

function optional(bind: Binder, path: string, source: string | undefined, dialect: 'jq' | 'cel' = 'jq'): BoundExpression | undefined {
  return typeof source === 'string' && source.trim() !== '' ? bind(path, source, dialect) : undefined;
}

function compileStatus(bind: Binder, p: string, s: StatusDefinition): CompiledStatus {
  const base = `${p}.statusDefinition`;
  const c = s.conditionsDefinition;
  return {
    phase: s.phaseDefinition ? optional(bind, `${base}.phaseDefinition.path`, s.phaseDefinition.path) : undefined,
    // Field names default as the CRD defaults them; a definition read from a file has no API server to do it.
    conditions: c
      ? {
          expr: bind(`${base}.conditionsDefinition.path`, c.path),
          typeField: c.typeFieldName || 'type',
          statusField: c.statusFieldName || 'status',
          messageField: c.messageFieldName ?? 'message',
          reasonField: c.reasonFieldName ?? 'reason',
        }
      : undefined,
    mappings: STATUS_KEYS.filter((k) => s.statusMappings[k]).map((status) => ({
      status,
      matchers: (s.statusMappings[status] ?? []).map((m, i) => {
        const mp = `${base}.statusMappings.${status}[${i}]`;
        return {
          path: mp,
          byPhase: m.byPhase || undefined,
          byConditions: m.byConditions,
          byExpression: m.byExpression
            ? { expr: bind(`${mp}.byExpression.expression`, m.byExpression.expression, m.byExpression.language ?? 'jq'), expected: m.byExpression.expectedResult }
            : undefined,
        };
      }),
    })),
  };
}

function compileComponent(bind: Binder, def: Definition, c: ComponentDefinition): CompiledComponent {
  const p = componentPath(def, c);
  const s = c.specDefinition;
  const frag = s?.fragmentedPodSpecDefinition;
  const fragments: Partial<Record<FragmentField, BoundExpression>> = {};
  if (frag) for (const [k, v] of Object.entries(frag)) {
    const e = optional(bind, `${p}.specDefinition.fragmentedPodSpecDefinition.${k}`, v);
    if (e) fragments[k as FragmentField] = e;
  }
  const sc = c.scaleDefinition;
  const ts = c.podSelector?.componentTypeSelector;
  const kind = c.kind ? [c.kind.group, c.kind.version, c.kind.kind].filter((x) => x).join('/') : '';
  return {
    name: c.name,
    path: p,
    def: c,
    kind,
    parent: c.ownerRef ?? null,
    children: [],
    isLeaf: !!(s && (s.podTemplateSpecPath || s.podSpecPath || s.fragmentedPodSpecDefinition)),
    instanceIds: optional(bind, `${p}.instanceIdPath`, c.instanceIdPath),
    podTemplateSpec: optional(bind, `${p}.specDefinition.podTemplateSpecPath`, s?.podTemplateSpecPath),
    podSpec: optional(bind, `${p}.specDefinition.podSpecPath`, s?.podSpecPath),
    metadata: optional(bind, `${p}.specDefinition.metadataPath`, s?.metadataPath),
    fragments: frag ? fragments : undefined,
    hasFragmentedSpec: !!frag,
    scale: sc
      ? {
          replicas: optional(bind, `${p}.scaleDefinition.replicasPath`, sc.replicasPath),
          minReplicas: optional(bind, `${p}.scaleDefinition.minReplicasPath`, sc.minReplicasPath),
          maxReplicas: optional(bind, `${p}.scaleDefinition.maxReplicasPath`, sc.maxReplicasPath),
        }
      : undefined,
    typeSelector: ts
      ? { keyPath: optional(bind, `${p}.podSelector.componentTypeSelector.keyPath`, ts.keyPath), value: ts.value, matchLabels: ts.matchLabels }
      : undefined,
    instanceSelector: optional(bind, `${p}.podSelector.componentInstanceSelector.idPath`, c.podSelector?.componentInstanceSelector?.idPath),
    replicaSelector: optional(bind, `${p}.podSelector.replicaSelector.keyPath`, c.podSelector?.replicaSelector?.keyPath),
    status: c.statusDefinition ? compileStatus(bind, p, c.statusDefinition) : undefined,
    suspend: c.suspendDefinition
      ? {
          suspend: c.suspendDefinition.suspendActions.map((a, i) => ({ path: bind(`${p}.suspendDefinition.suspendActions[${i}].path`, a.path), value: JSON.parse(a.value) as unknown })),
          resume: c.suspendDefinition.resumeActions.map((a, i) => ({ path: bind(`${p}.suspendDefinition.resumeActions[${i}].path`, a.path), value: JSON.parse(a.value) as unknown })),
        }
      : undefined,
  };
}

export interface CompileOptions {
  /**
   * The definition is known to compile (this engine compiled it before: the CLI's shipped catalog
   * cache). Its expressions are then parsed at their first evaluation instead of all at once, so a
   * command pays only for the fields it reads.
   */
  checked?: boolean;
}

/** Compiles a loaded definition. Returns errors instead of a compiled form when it is invalid. */
export function compileDefinition(loaded: LoadedDefinition, options: CompileOptions = {}): { compiled: CompiledDefinition | null; errors: EngineError[] } {
  const bind: Binder = options.checked ? bindCheckedExpression : bindExpression;
  if (!loaded.definition || loaded.errors.length > 0) {
    return { compiled: null, errors: loaded.errors.length > 0 ? loaded.errors : [engineError('definition.invalid', `definition "${loaded.name}" is invalid`)] };
  }
  const def = loaded.definition;
  try {
    const sd = def.spec.structureDefinition;
    const root = compileComponent(bind, def, sd.rootComponent);
    const children = (sd.childComponents ?? []).map((c) => compileComponent(bind, def, c));
    const components = [root, ...children];
    const byName = new Map(components.map((c) => [c.name, c]));
    for (const c of children) byName.get(c.parent ?? '')?.children.push(c.name);
    const k = sd.rootComponent.kind ?? {};
    const group = k.group ?? '';
    const gangDef = def.spec.optimizationInstructions?.gangScheduling;
    const gang: CompiledGang | null = gangDef
      ? {
          podGroups: (gangDef.podGroups ?? []).map((g, gi) => ({
            name: g.name,
            members: g.members.map((m, mi) => {
              const base = `spec.optimizationInstructions.gangScheduling.podGroups[${gi}].members[${mi}]`;
              return {
                componentName: m.componentName,
                groupBy: (m.groupByKeyPaths ?? []).map((e, i) => bind(`${base}.groupByKeyPaths[${i}]`, e)),
                filters: (m.filters ?? []).map((e, i) => bind(`${base}.filters[${i}]`, e)),
              };
            }),
          })),
          podGroup: gangDef.podGroup,
        }
      : null;
    return {
      compiled: {
        name: loaded.name,
        source: loaded.source,
        definition: def,
        rootKind: { group, version: k.version ?? '', kind: k.kind ?? '', apiVersion: group ? `${group}/${k.version}` : (k.version ?? '') },
        root,
        components,
        byName,
        leaves: components.filter((c) => c.isLeaf),
        hasScaleDefinition: components.some((c) => !!c.def.scaleDefinition),
        gang,
      },
      errors: [],
    };
  } catch (e) {
    if (e instanceof EngineFailure) return { compiled: null, errors: [engineError(e.code, `definition "${loaded.name}": ${e.message}`, e.path)] };
    throw e;
  }
}
