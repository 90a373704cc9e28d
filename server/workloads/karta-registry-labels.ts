/**
 * The indexing labels of a Karta: `run.ai/karta-group`, `run.ai/karta-version` and
 * `run.ai/karta-kind` carry the root component's group, version and kind. KAI Scheduler's pod grouper
 * finds the definition of a workload by all three (kai: pkg/podgrouper/podgrouper/plugins/karta/hub.go),
 * so a Karta whose labels are missing or disagree with its root kind is one KAI never uses — or uses
 * for the wrong kind. The Karta operator stamps them; clusters without it rely on whoever registered.
 */

export const KARTA_LABELS = { group: 'run.ai/karta-group', version: 'run.ai/karta-version', kind: 'run.ai/karta-kind' } as const;

export interface RootKind {
  group: string;
  version: string;
  kind: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The root component's kind of a definition document; null when it does not name one. */
export function rootKindOf(doc: unknown): RootKind | null {
  const root = isObject(doc) && isObject(doc.spec) && isObject(doc.spec.structureDefinition) ? doc.spec.structureDefinition.rootComponent : undefined;
  const k = isObject(root) && isObject(root.kind) ? root.kind : undefined;
  if (!k || typeof k.kind !== 'string' || !k.kind || typeof k.version !== 'string' || !k.version) return null;
  return { group: typeof k.group === 'string' ? k.group : '', version: k.version, kind: k.kind };
}

/** The labels a Karta for this root kind carries (the core group is the empty string). */
export function expectedKartaLabels(root: RootKind): Record<string, string> {
  return { [KARTA_LABELS.group]: root.group, [KARTA_LABELS.version]: root.version, [KARTA_LABELS.kind]: root.kind };
}

export interface LabelFinding {
  label: string;
  expected: string;
  /** null: the label is absent. */
  actual: string | null;
}

export interface LabelCheck {
  /** `ok`; `missing`: none of the three (KAI cannot select it until they are set); `mismatch`: some absent or wrong. */
  state: 'ok' | 'missing' | 'mismatch' | 'no-root-kind';
  findings: LabelFinding[];
  /** One line for people; empty when ok. */
  message: string;
}

/** How a definition's indexing labels compare with its root kind. */
export function checkKartaLabels(doc: unknown): LabelCheck {
  const root = rootKindOf(doc);
  if (!root) return { state: 'no-root-kind', findings: [], message: 'the root component names no kind, so its labels cannot be checked' };
  const meta = isObject(doc) && isObject(doc.metadata) ? doc.metadata : {};
  const labels = isObject(meta.labels) ? (meta.labels as Record<string, unknown>) : {};
  const findings: LabelFinding[] = [];
  for (const [label, expected] of Object.entries(expectedKartaLabels(root))) {
    const actual = typeof labels[label] === 'string' ? (labels[label] as string) : null;
    if (actual !== expected) findings.push({ label, expected, actual });
  }
  const rootText = `${root.kind}${root.group ? `.${root.group}` : ''}/${root.version}`;
  if (findings.length === 0) return { state: 'ok', findings, message: '' };
  if (findings.length === 3 && findings.every((f) => f.actual === null)) {
    return { state: 'missing', findings, message: `no run.ai/karta-* labels: KAI Scheduler cannot select it for ${rootText} until they are set` };
  }
  const parts = findings.map((f) => (f.actual === null ? `${f.label} is absent` : `${f.label} is "${f.actual}"`));
  return { state: 'mismatch', findings, message: `${parts.join(', ')} but the root kind is ${rootText} (expected ${findings.map((f) => `${f.label}=${f.expected || '""'}`).join(', ')}): KAI Scheduler selects definitions by these labels` };
}
