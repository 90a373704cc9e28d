/**
 * Structural schema of a definition document. Strict: an unknown or misspelled field is an error
 * naming its path, because a silently ignored typo (`podTemplatePath`) makes a component lose its pods.
 */
import { z } from 'zod';

/**
 * Built on first use, not when the module loads: a one-shot command that reads checked definitions
 * (the CLI's catalog cache) never validates one, and building the schema costs a few milliseconds.
 */
function buildDefinitionSchema() {
  const expr = z.string();
  const gvk = z.strictObject({ group: z.string().optional(), version: z.string().optional(), kind: z.string().optional() });

  const fragmented = z.strictObject({
    schedulerNamePath: expr.optional(),
    labelsPath: expr.optional(),
    annotationsPath: expr.optional(),
    resourcesPath: expr.optional(),
    resourceClaimsPath: expr.optional(),
    podAffinityPath: expr.optional(),
    nodeAffinityPath: expr.optional(),
    containersPath: expr.optional(),
    containerPath: expr.optional(),
    priorityClassNamePath: expr.optional(),
    imagePath: expr.optional(),
  });

  const specDefinition = z.strictObject({
    podTemplateSpecPath: expr.optional(),
    podSpecPath: expr.optional(),
    metadataPath: expr.optional(),
    fragmentedPodSpecDefinition: fragmented.optional(),
  });

  const scaleDefinition = z.strictObject({
    replicasPath: expr.optional(),
    minReplicasPath: expr.optional(),
    maxReplicasPath: expr.optional(),
  });

  const podSelector = z.strictObject({
    componentTypeSelector: z
      .strictObject({ keyPath: expr.optional(), value: z.string().optional(), matchLabels: z.record(z.string(), z.string()).optional() })
      .optional(),
    componentInstanceSelector: z.strictObject({ idPath: expr }).optional(),
    replicaSelector: z.strictObject({ keyPath: expr }).optional(),
  });

  const matcher = z.strictObject({
    byPhase: z.string().optional(),
    byConditions: z
      .array(z.strictObject({ type: z.string(), status: z.string().optional(), reason: z.string().optional() }))
      .optional(),
    byExpression: z
      .strictObject({ expression: expr, expectedResult: z.string(), language: z.enum(['jq', 'cel']).optional() })
      .optional(),
  });

  const statusDefinition = z.strictObject({
    phaseDefinition: z.strictObject({ path: expr }).optional(),
    conditionsDefinition: z
      .strictObject({
        path: expr,
        typeFieldName: z.string().optional(),
        statusFieldName: z.string().optional(),
        messageFieldName: z.string().nullable().optional(),
        reasonFieldName: z.string().nullable().optional(),
      })
      .optional(),
    statusMappings: z.strictObject({
      initializing: z.array(matcher).optional(),
      running: z.array(matcher).optional(),
      completed: z.array(matcher).optional(),
      failed: z.array(matcher).optional(),
      degraded: z.array(matcher).optional(),
      suspended: z.array(matcher).optional(),
      suspending: z.array(matcher).optional(),
      resuming: z.array(matcher).optional(),
    }),
  });

  const suspendAction = z.strictObject({ path: expr, value: z.string() });

  const component = z.strictObject({
    name: z.string(),
    kind: gvk.optional(),
    ownerRef: z.string().optional(),
    specDefinition: specDefinition.optional(),
    scaleDefinition: scaleDefinition.optional(),
    statusDefinition: statusDefinition.optional(),
    instanceIdPath: expr.optional(),
    podSelector: podSelector.optional(),
    suspendDefinition: z.strictObject({ suspendActions: z.array(suspendAction).min(1), resumeActions: z.array(suspendAction).min(1) }).optional(),
  });

  const topology = z.strictObject({
    topologyName: z.string().optional(),
    preferredTopologyLevel: z.string().optional(),
    requiredTopologyLevel: z.string().optional(),
  });

  const gangScheduling = z.strictObject({
    podGroups: z
      .array(
        z.strictObject({
          name: z.string(),
          members: z.array(
            z.strictObject({
              componentName: z.string(),
              groupByKeyPaths: z.array(expr).optional(),
              filters: z.array(expr).optional(),
            }),
          ),
        }),
      )
      .optional(),
    podGroup: z
      .strictObject({
        name: z.string(),
        subGroups: z.array(z.strictObject({ componentName: z.string(), topology: topology.optional() })).optional(),
        topology: topology.optional(),
      })
      .optional(),
  });

  return z.object({
    apiVersion: z.enum(['run.ai/v1alpha1', 'optimization.nvidia.com/v1alpha1']),
    kind: z.enum(['Karta', 'ResourceInterface']),
    // Metadata and status are Kubernetes envelope fields; only the name is ours to require.
    metadata: z.looseObject({
      name: z.string().min(1),
      labels: z.record(z.string(), z.string()).optional(),
      annotations: z.record(z.string(), z.string()).optional(),
    }),
    spec: z.strictObject({
      structureDefinition: z.strictObject({
        rootComponent: component,
        childComponents: z.array(component).optional(),
        additionalChildKinds: z.array(z.strictObject({ group: z.string(), version: z.string(), kind: z.string() })).optional(),
      }),
      optimizationInstructions: z.strictObject({ gangScheduling: gangScheduling.optional() }).optional(),
    }),
    status: z.unknown().optional(),
  });
}

let schema: ReturnType<typeof buildDefinitionSchema> | undefined;
function definitionSchema(): ReturnType<typeof buildDefinitionSchema> {
  schema ??= buildDefinitionSchema();
  return schema;
}

/** `['spec','structureDefinition','childComponents',1,'name']` → `spec.structureDefinition.childComponents[1].name`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else if (typeof p === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(p)) out += out ? `.${p}` : p;
    else out += `[${JSON.stringify(String(p))}]`;
  }
  return out;
}

export interface SchemaProblem {
  path: string;
  message: string;
  /** The same path as keys and indexes. */
  at: ReadonlyArray<PropertyKey>;
}

export function checkSchema(doc: unknown): SchemaProblem[] {
  const r = definitionSchema().safeParse(doc, { reportInput: true });
  if (r.success) return [];
  const problems: SchemaProblem[] = [];
  for (const issue of r.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) problems.push({ path: formatPath([...issue.path, key]), message: `unknown field "${key}"`, at: [...issue.path, key] });
      continue;
    }
    problems.push({ path: formatPath(issue.path), message: describeIssue(issue), at: issue.path });
  }
  return problems;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') {
    if (issue.input === undefined) return `required field is missing (expected ${issue.expected})`;
    const hint = issue.expected === 'string' && typeof issue.input === 'number' && isExpressionPath(issue.path) ? ' (quote it: a literal program such as "1" is written as a string)' : '';
    return `expected ${issue.expected}, got ${typeName(issue.input)}${hint}`;
  }
  if (issue.code === 'invalid_value') return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
  return issue.message;
}

/** Fields that hold a program: `…Path`, `path`, `expression`, and the items of `groupByKeyPaths` and `filters`. */
function isExpressionPath(path: ReadonlyArray<PropertyKey>): boolean {
  const last = path[path.length - 1];
  const holder = path[path.length - 2];
  return (typeof last === 'string' && /(^p|P)ath$|^expression$/.test(last)) || (typeof last === 'number' && (holder === 'groupByKeyPaths' || holder === 'filters'));
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/**
 * What of a document passed the schema, shaped as a definition so that the semantic checks can run on it
 * when the schema has errors: every value the schema rejected is removed (an array element becomes `{}`, so
 * that indexes and field paths stay those of the document), and the containers down to the root component
 * exist. Required fields may be missing; no field left has the wrong type. Copy on write: the document is
 * not changed, and the parts no problem touches are shared with it (they are only read).
 */
export function salvage(doc: unknown, problems: ReadonlyArray<SchemaProblem>): unknown {
  type Container = Record<PropertyKey, unknown>;
  const copies = new WeakSet<object>();
  // parent[key] as a container of our own (copied on first write, created when it is not a container)
  const own = (parent: Container, key: PropertyKey, create: boolean): Container | null => {
    const v = parent[key];
    if (v !== null && typeof v === 'object') {
      if (copies.has(v)) return v as Container;
      const c = (Array.isArray(v) ? [...v] : { ...v }) as Container;
      copies.add(c);
      parent[key] = c;
      return c;
    }
    if (!create) return null;
    const c: Container = {};
    copies.add(c);
    parent[key] = c;
    return c;
  };
  const top: Container = { doc: isRecord(doc) ? doc : {} };
  const root = own(top, 'doc', true)!;
  for (const { at } of problems) {
    if (at.length === 0) continue;
    let parent: Container | null = root;
    for (const key of at.slice(0, -1)) {
      parent = own(parent, key, false);
      if (!parent) break; // an ancestor was removed already
    }
    if (!parent) continue;
    const last = at[at.length - 1];
    if (Array.isArray(parent)) parent[last] = {};
    else delete parent[last];
    // an expression in a language the schema does not know cannot be checked
    if (last === 'language') delete parent.expression;
  }
  const spec = isRecord(root.spec) ? own(root, 'spec', true)! : (root.spec = {});
  const sd = isRecord(spec.structureDefinition) ? own(spec, 'structureDefinition', true)! : (spec.structureDefinition = {});
  if (!isRecord(sd.rootComponent)) sd.rootComponent = {};
  return root;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
