/**
 * Every expression a definition holds, with its field path and where it runs (the workload object or
 * a pod). One list serves validation, compilation and error reporting, so no field is forgotten.
 */
import type { ComponentDefinition, Definition } from './types.ts';

export type ExpressionTarget = 'workload' | 'pod';

export interface ExpressionField {
  path: string;
  source: string;
  dialect: 'jq' | 'cel';
  target: ExpressionTarget;
}

export function componentPath(def: Definition, component: ComponentDefinition): string {
  const sd = def.spec.structureDefinition;
  if (component === sd.rootComponent) return 'spec.structureDefinition.rootComponent';
  const i = (sd.childComponents ?? []).indexOf(component);
  return `spec.structureDefinition.childComponents[${i}]`;
}

export function allComponents(def: Definition): ComponentDefinition[] {
  const sd = def.spec.structureDefinition;
  return [sd.rootComponent, ...(sd.childComponents ?? [])];
}

/** Also of a definition salvaged from a document with schema errors (required fields may be missing). */
export function expressionFields(def: Definition): ExpressionField[] {
  const out: ExpressionField[] = [];
  const add = (path: string, source: string | undefined, target: ExpressionTarget, dialect: 'jq' | 'cel' = 'jq') => {
    // Empty expressions are "not set", as upstream treats them.
    if (typeof source === 'string' && source.trim() !== '') out.push({ path, source, dialect, target });
  };
  for (const c of allComponents(def)) {
    const p = componentPath(def, c);
    add(`${p}.instanceIdPath`, c.instanceIdPath, 'workload');
    const s = c.specDefinition;
    if (s) {
      add(`${p}.specDefinition.podTemplateSpecPath`, s.podTemplateSpecPath, 'workload');
      add(`${p}.specDefinition.podSpecPath`, s.podSpecPath, 'workload');
      add(`${p}.specDefinition.metadataPath`, s.metadataPath, 'workload');
      const f = s.fragmentedPodSpecDefinition;
      if (f) for (const [k, v] of Object.entries(f)) add(`${p}.specDefinition.fragmentedPodSpecDefinition.${k}`, v, 'workload');
    }
    const sc = c.scaleDefinition;
    if (sc) for (const [k, v] of Object.entries(sc)) add(`${p}.scaleDefinition.${k}`, v, 'workload');
    const st = c.statusDefinition;
    if (st) {
      add(`${p}.statusDefinition.phaseDefinition.path`, st.phaseDefinition?.path, 'workload');
      add(`${p}.statusDefinition.conditionsDefinition.path`, st.conditionsDefinition?.path, 'workload');
      for (const [status, matchers] of Object.entries(st.statusMappings ?? {})) {
        (matchers ?? []).forEach((m, i) => {
          if (m.byExpression) {
            add(`${p}.statusDefinition.statusMappings.${status}[${i}].byExpression.expression`, m.byExpression.expression, 'workload', m.byExpression.language ?? 'jq');
          }
        });
      }
    }
    const ps = c.podSelector;
    if (ps) {
      add(`${p}.podSelector.componentTypeSelector.keyPath`, ps.componentTypeSelector?.keyPath, 'pod');
      add(`${p}.podSelector.componentInstanceSelector.idPath`, ps.componentInstanceSelector?.idPath, 'pod');
      add(`${p}.podSelector.replicaSelector.keyPath`, ps.replicaSelector?.keyPath, 'pod');
    }
    const sus = c.suspendDefinition;
    if (sus) {
      (sus.suspendActions ?? []).forEach((a, i) => add(`${p}.suspendDefinition.suspendActions[${i}].path`, a.path, 'workload'));
      (sus.resumeActions ?? []).forEach((a, i) => add(`${p}.suspendDefinition.resumeActions[${i}].path`, a.path, 'workload'));
    }
  }
  const gang = def.spec.optimizationInstructions?.gangScheduling;
  (gang?.podGroups ?? []).forEach((g, gi) =>
    (g.members ?? []).forEach((m, mi) => {
      const base = `spec.optimizationInstructions.gangScheduling.podGroups[${gi}].members[${mi}]`;
      (m.groupByKeyPaths ?? []).forEach((e, i) => add(`${base}.groupByKeyPaths[${i}]`, e, 'pod'));
      (m.filters ?? []).forEach((e, i) => add(`${base}.filters[${i}]`, e, 'pod'));
    }),
  );
  return out;
}
