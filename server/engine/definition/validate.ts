/**
 * Semantic validation of a definition (reference §3.1, §2.4). Unlike upstream, which stops at the
 * first class of error (duplicate names hide everything else, structure errors hide cycles), every
 * problem of a definition is reported at once: a user fixing a definition should see the whole list.
 */
import { checkExpression } from '../jq/index.ts';
import { checkCel } from '../cel.ts';
import { allComponents, componentPath, expressionFields } from './expression-fields.ts';
import type { ComponentDefinition, Definition, TopologyDefinition } from './types.ts';

export interface ValidationProblem {
  path: string;
  message: string;
}

// Kinds whose API group is the empty core group.
const KINDS_WITHOUT_GROUP = new Set(['Pod']);

/** A component's name for messages; a salvaged one may have none. */
function quoted(name: string | undefined): string {
  return typeof name === 'string' ? `"${name}"` : '(unnamed)';
}

function podSpecPatterns(c: ComponentDefinition): number {
  const s = c.specDefinition;
  if (!s) return 0;
  return [s.podTemplateSpecPath, s.podSpecPath].filter((p) => typeof p === 'string' && p !== '').length + (s.fragmentedPodSpecDefinition ? 1 : 0);
}

/**
 * `def` may be salvaged from a document with schema errors (schema.ts `salvage`): a required field may be
 * missing, but no field has the wrong type. Every check here reads defensively for that reason.
 */
export function validateSemantics(def: Definition): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  const add = (path: string, message: string) => problems.push({ path, message });
  const sd = def.spec.structureDefinition;
  const root = sd.rootComponent;
  const rootPath = 'spec.structureDefinition.rootComponent';
  const components = allComponents(def);

  // Names: non-empty and unique across root and children.
  const seen = new Map<string, string>();
  for (const c of components) {
    const p = componentPath(def, c);
    if (!c.name) {
      add(`${p}.name`, 'component name is empty');
      continue;
    }
    const first = seen.get(c.name);
    if (first) add(`${p}.name`, `component name "${c.name}" is not unique (also used at ${first})`);
    else seen.set(c.name, p);
  }

  // Root component.
  const k = root.kind ?? {};
  if (!k.version || !k.kind || (!k.group && !KINDS_WITHOUT_GROUP.has(k.kind ?? ''))) {
    add(`${rootPath}.kind`, 'root component must have full kind (group, version, kind); group may be empty only for Pod');
  }
  if (root.ownerRef !== undefined) add(`${rootPath}.ownerRef`, 'root component cannot have owner ref');
  if (!root.statusDefinition) add(`${rootPath}.statusDefinition`, 'root component must have status definition');

  // Children: owner references to existing components.
  let ownerRefsValid = true;
  (sd.childComponents ?? []).forEach((c, i) => {
    const p = `spec.structureDefinition.childComponents[${i}]`;
    if (!c.ownerRef) {
      add(`${p}.ownerRef`, `child component ${quoted(c.name)} has no owner ref`);
      ownerRefsValid = false;
    } else if (!seen.has(c.ownerRef)) {
      add(`${p}.ownerRef`, `child component ${quoted(c.name)} has owner ref to non-existing component "${c.ownerRef}"`);
      ownerRefsValid = false;
    } else if (c.ownerRef === c.name) {
      add(`${p}.ownerRef`, `child component ${quoted(c.name)} cannot own itself`);
      ownerRefsValid = false;
    }
  });

  // Per component: one pod-spec pattern; instanceIdPath ⇔ instance selector; selector sanity.
  for (const c of components) {
    const p = componentPath(def, c);
    if (podSpecPatterns(c) > 1) {
      add(`${p}.specDefinition`, `component ${quoted(c.name)} has multiple pod spec definitions (use one of podTemplateSpecPath, podSpecPath, fragmentedPodSpecDefinition)`);
    }
    const s = c.specDefinition;
    if (s?.metadataPath && !s.podSpecPath) add(`${p}.specDefinition.metadataPath`, 'metadataPath is only used together with podSpecPath');
    const hasIds = !!c.instanceIdPath;
    const hasInstanceSelector = !!c.podSelector?.componentInstanceSelector;
    if (hasIds && !hasInstanceSelector) {
      add(`${p}.podSelector.componentInstanceSelector`, `component ${quoted(c.name)} has instance id path but no pod component instance selector`);
    }
    if (!hasIds && hasInstanceSelector) {
      add(`${p}.instanceIdPath`, `component ${quoted(c.name)} has pod component instance selector but no instance id path`);
    }
    const t = c.podSelector?.componentTypeSelector;
    if (t) {
      const hasKey = typeof t.keyPath === 'string' && t.keyPath !== '';
      const hasLabels = !!t.matchLabels && Object.keys(t.matchLabels).length > 0;
      if (!hasKey && !hasLabels) add(`${p}.podSelector.componentTypeSelector`, 'at least one of keyPath or matchLabels must be set');
      if (t.value !== undefined && !hasKey) add(`${p}.podSelector.componentTypeSelector.value`, 'value requires keyPath');
    }
    const sus = c.suspendDefinition;
    if (sus) {
      for (const [list, actions] of [['suspendActions', sus.suspendActions], ['resumeActions', sus.resumeActions]] as const) {
        (actions ?? []).forEach((a, i) => {
          if (typeof a.value !== 'string') return;
          try {
            JSON.parse(a.value);
          } catch {
            add(`${p}.suspendDefinition.${list}[${i}].value`, `value must be JSON-encoded (e.g. "true", "\\"paused\\""), got ${JSON.stringify(a.value)}`);
          }
        });
      }
    }
  }

  // Ownership cycles (only meaningful when every ownerRef points somewhere); each cycle once.
  if (ownerRefsValid) {
    const parentOf = new Map((sd.childComponents ?? []).map((c) => [c.name, c.ownerRef]));
    const inReportedCycle = new Set<string>();
    (sd.childComponents ?? []).forEach((c, i) => {
      const walk: string[] = [];
      let cur: string | undefined = c.name;
      while (cur !== undefined && parentOf.has(cur)) {
        const at = walk.indexOf(cur);
        if (at >= 0) {
          const members = walk.slice(at);
          if (!members.some((m) => inReportedCycle.has(m))) {
            members.forEach((m) => inReportedCycle.add(m));
            add(`spec.structureDefinition.childComponents[${i}].ownerRef`, `ownership cycle detected involving component "${cur}" (${[...members, cur].join(' → ')})`);
          }
          break;
        }
        walk.push(cur);
        cur = parentOf.get(cur);
      }
    });
  }

  // The older ResourceInterface API predates suspend support and the `podGroup` instruction.
  if (def.kind === 'ResourceInterface') {
    for (const c of components) {
      const p = componentPath(def, c);
      if (c.suspendDefinition) add(`${p}.suspendDefinition`, 'suspendDefinition exists only in run.ai/v1alpha1 Karta, not in optimization.nvidia.com/v1alpha1 ResourceInterface');
      for (const k of ['suspended', 'suspending', 'resuming'] as const) {
        if (c.statusDefinition?.statusMappings?.[k]) add(`${p}.statusDefinition.statusMappings.${k}`, `status "${k}" exists only in run.ai/v1alpha1 Karta, not in optimization.nvidia.com/v1alpha1 ResourceInterface`);
      }
    }
    if (def.spec.optimizationInstructions?.gangScheduling?.podGroup) {
      add('spec.optimizationInstructions.gangScheduling.podGroup', 'podGroup exists only in run.ai/v1alpha1 Karta; ResourceInterface uses podGroups');
    }
  }

  // Gang-scheduling instructions.
  const gang = def.spec.optimizationInstructions?.gangScheduling;
  const gangBase = 'spec.optimizationInstructions.gangScheduling';
  (gang?.podGroups ?? []).forEach((g, gi) =>
    (g.members ?? []).forEach((m, mi) => {
      if (typeof m.componentName === 'string' && !seen.has(m.componentName)) {
        add(`${gangBase}.podGroups[${gi}].members[${mi}].componentName`, `pod-group member component "${m.componentName}" is not defined (should be a root or child component)`);
      }
    }),
  );
  if (gang?.podGroup) {
    const pg = gang.podGroup;
    if (!pg.name) add(`${gangBase}.podGroup.name`, 'pod group name is empty');
    checkTopology(pg.topology, `${gangBase}.podGroup.topology`, add);
    const subNames = new Set<string>();
    (pg.subGroups ?? []).forEach((sg, i) => {
      const p = `${gangBase}.podGroup.subGroups[${i}]`;
      if (!sg.componentName) add(`${p}.componentName`, 'subgroup component name cannot be empty');
      else if (!seen.has(sg.componentName)) add(`${p}.componentName`, `component "${sg.componentName}" not found`);
      else if (subNames.has(sg.componentName)) add(`${p}.componentName`, `component "${sg.componentName}" has more than one subgroup`);
      subNames.add(sg.componentName);
      checkTopology(sg.topology, `${p}.topology`, add);
    });
  }

  // Expressions: static checks of every jq program (forbidden constructs, syntax) and CEL expression.
  for (const f of expressionFields(def)) {
    const found = f.dialect === 'cel' ? checkCel(f.source) : checkExpression(f.source);
    for (const m of found) add(f.path, `${f.dialect === 'cel' ? 'CEL' : 'jq'} expression ${JSON.stringify(f.source)}: ${m}`);
  }
  return problems;
}

function checkTopology(t: TopologyDefinition | undefined, path: string, add: (p: string, m: string) => void): void {
  if (!t) return;
  if (!t.topologyName) add(`${path}.topologyName`, 'topology constraint must include topology name');
  if (!t.preferredTopologyLevel && !t.requiredTopologyLevel) add(path, 'topology constraint must include preferred or required topology level');
}
