/**
 * Extraction from the workload object (reference §3.3): instance ids, and per instance the pod
 * template (or pod spec + metadata, or fragments) and the scale. Results of multi-valued paths are
 * zipped with the instance ids by position.
 *
 * Deliberate differences from upstream, because upstream silently produces wrong data:
 * - a fragment or scale path that yields a different number of results than there are instances is
 *   an error (upstream pads with zero values, shifting values to the wrong instance: pitfall P-09);
 * - duplicate instance ids are reported (upstream collapses them silently: P-10).
 */
import type { CompiledComponent, FragmentField } from '../definition/compile.ts';
import { EngineFailure, engineError, type EngineError } from '../errors.ts';
import type { BoundExpression } from '../expression.ts';
import { isRecord } from '../k8s.ts';

export interface ExtractedInstance {
  id: string;
  replicas: number | null;
  /** The replica count was there but one the API server would refuse: desired is unknown. */
  replicasInvalid?: boolean;
  minReplicas: number | null;
  maxReplicas: number | null;
  /** The pod spec this instance's pods are built from (from a template, a pod spec or fragments). */
  podSpec: Record<string, unknown> | null;
  podMetadata: { labels?: Record<string, string>; annotations?: Record<string, string> } | null;
  /** What the definition's spec paths designate, as extracted (template, pod spec, or fragments). */
  raw: unknown;
}

export interface ExtractedComponent {
  component: CompiledComponent;
  instances: ExtractedInstance[];
}

/** Evaluates the instance ids: `[""]` without instanceIdPath. */
export function instanceIdsOf(c: CompiledComponent, root: unknown, subject: string, errors: EngineError[]): string[] {
  if (!c.instanceIds) return [''];
  const results = c.instanceIds.run(root, subject);
  const ids: string[] = [];
  const seen = new Set<string>();
  const empty: number[] = [];
  results.forEach((r, i) => {
    if (r === null || r === '') {
      empty.push(i);
      return;
    }
    if (typeof r !== 'string') {
      throw new EngineFailure('expression.type', `${c.instanceIds!.path}: instance ids must be strings, result ${i} is ${JSON.stringify(r)}`, c.instanceIds!.path);
    }
    if (seen.has(r)) {
      errors.push(engineError('definition.duplicate-instance', `${c.instanceIds!.path}: instance id "${r}" appears more than once in ${subject}; its pods are counted once`, c.instanceIds!.path));
      return;
    }
    seen.add(r);
    ids.push(r);
  });
  if (empty.length > 0) {
    throw new EngineFailure('expression.type', `${c.instanceIds.path}: instance id path yielded empty values at positions [${empty.join(',')}] in ${subject}`, c.instanceIds.path);
  }
  return ids;
}

/** Results zipped per instance: `count` entries, or all null when the path yields nothing. */
function perInstance(expr: BoundExpression | undefined, root: unknown, count: number, subject: string, multi: boolean): unknown[] {
  const out = new Array<unknown>(count).fill(null);
  if (!expr) return out;
  const results = expr.run(root, subject);
  if (results.length === 0) return out;
  if (!multi) {
    if (results.length > 1) {
      throw new EngineFailure('expression.cardinality', `${expr.path}: expected one result for a component without instances, got ${results.length} in ${subject}`, expr.path);
    }
    out[0] = results[0];
    return out;
  }
  if (results.length !== count) {
    throw new EngineFailure('expression.cardinality', `${expr.path}: instance ids count (${count}) does not match results count (${results.length}) in ${subject}`, expr.path);
  }
  return results;
}

/** The API server's bound on replica counts (int32). */
export const MAX_REPLICAS = 2 ** 31 - 1;

/**
 * A replica count. A negative or absurd one (beyond int32, which the API server would reject) is an
 * error, and the count is unknown (null), never a negative total.
 */
function toScale(v: unknown, expr: BoundExpression | undefined, subject: string, errors?: EngineError[], instance?: string): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number' && Number.isInteger(v)) {
    if (v >= 0 && v <= MAX_REPLICAS) return v;
    errors?.push(engineError('object.replicas', `${expr?.path ?? 'scale'}: ${subject}${instance ? ` instance ${instance}` : ''} asks for ${v} replicas, which the API server would refuse (0 to ${MAX_REPLICAS}); its desired pods and GPUs are unknown`, expr?.path ?? ''));
    return null;
  }
  throw new EngineFailure('expression.type', `${expr?.path ?? 'scale'}: expected an integer replica count, got ${JSON.stringify(v)} in ${subject}`, expr?.path ?? '');
}

function stringMap(v: unknown): Record<string, string> | undefined {
  if (!isRecord(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
}

/** Builds a pod spec from the fragments a definition exposes (only the parts that affect pods). */
function specFromFragments(f: Partial<Record<FragmentField, unknown>>): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  // The main container (containerPath, or resourcesPath alone) and any others (containersPath) all
  // run in the pod: together they make its containers (KServe: the `model` plus extra containers).
  const containers: unknown[] = [];
  if (isRecord(f.containerPath)) containers.push(isRecord(f.containerPath.resources) || !isRecord(f.resourcesPath) ? f.containerPath : { ...f.containerPath, resources: f.resourcesPath });
  else if (isRecord(f.resourcesPath) && !Array.isArray(f.containersPath)) containers.push({ name: 'main', resources: f.resourcesPath });
  if (Array.isArray(f.containersPath)) {
    const list = f.containersPath.slice();
    // A separate resources path describes the first container's resources when it has none.
    if (!isRecord(f.containerPath) && isRecord(f.resourcesPath) && isRecord(list[0]) && !isRecord((list[0] as Record<string, unknown>).resources)) {
      list[0] = { ...(list[0] as Record<string, unknown>), resources: f.resourcesPath };
    }
    containers.push(...list);
  }
  if (containers.length > 0) spec.containers = containers;
  if (typeof f.schedulerNamePath === 'string') spec.schedulerName = f.schedulerNamePath;
  if (typeof f.priorityClassNamePath === 'string') spec.priorityClassName = f.priorityClassNamePath;
  if (Array.isArray(f.resourceClaimsPath)) spec.resourceClaims = f.resourceClaimsPath;
  const affinity: Record<string, unknown> = {};
  if (isRecord(f.podAffinityPath)) affinity.podAffinity = f.podAffinityPath;
  if (isRecord(f.nodeAffinityPath)) affinity.nodeAffinity = f.nodeAffinityPath;
  if (Object.keys(affinity).length > 0) spec.affinity = affinity;
  return spec;
}

export function extractComponent(c: CompiledComponent, root: unknown, subject: string, errors: EngineError[]): ExtractedComponent {
  const ids = instanceIdsOf(c, root, subject, errors);
  const n = ids.length;
  const multi = !!c.instanceIds;
  const replicas = perInstance(c.scale?.replicas, root, n, subject, multi);
  const minReplicas = perInstance(c.scale?.minReplicas, root, n, subject, multi);
  const maxReplicas = perInstance(c.scale?.maxReplicas, root, n, subject, multi);
  const templates = perInstance(c.podTemplateSpec, root, n, subject, multi);
  const podSpecs = perInstance(c.podSpec, root, n, subject, multi);
  const metas = perInstance(c.metadata, root, n, subject, multi);
  const fragmentValues: Partial<Record<FragmentField, unknown[]>> = {};
  for (const [k, e] of Object.entries(c.fragments ?? {}) as Array<[FragmentField, BoundExpression]>) fragmentValues[k] = perInstance(e, root, n, subject, multi);

  const instances: ExtractedInstance[] = ids.map((id, i) => {
    let podSpec: Record<string, unknown> | null = null;
    let podMetadata: ExtractedInstance['podMetadata'] = null;
    let raw: unknown = undefined;
    if (c.podTemplateSpec) {
      const t = templates[i];
      raw = t;
      if (isRecord(t)) {
        podSpec = isRecord(t.spec) ? t.spec : {};
        const m = isRecord(t.metadata) ? t.metadata : {};
        podMetadata = { labels: stringMap(m.labels), annotations: stringMap(m.annotations) };
      }
    } else if (c.podSpec) {
      raw = podSpecs[i];
      podSpec = isRecord(podSpecs[i]) ? (podSpecs[i] as Record<string, unknown>) : null;
      if (c.metadata && isRecord(metas[i])) {
        const m = metas[i] as Record<string, unknown>;
        podMetadata = { labels: stringMap(m.labels), annotations: stringMap(m.annotations) };
      }
    } else if (c.hasFragmentedSpec) {
      const f: Partial<Record<FragmentField, unknown>> = {};
      for (const [k, vals] of Object.entries(fragmentValues) as Array<[FragmentField, unknown[]]>) f[k] = vals[i];
      raw = f;
      podSpec = specFromFragments(f);
      if (f.labelsPath !== undefined || f.annotationsPath !== undefined) podMetadata = { labels: stringMap(f.labelsPath), annotations: stringMap(f.annotationsPath) };
    }
    const before = errors.length;
    const count = toScale(replicas[i], c.scale?.replicas, subject, errors, id);
    return {
      id,
      replicas: count,
      ...(errors.length > before ? { replicasInvalid: true } : {}),
      minReplicas: toScale(minReplicas[i], c.scale?.minReplicas, subject, errors, id),
      maxReplicas: toScale(maxReplicas[i], c.scale?.maxReplicas, subject, errors, id),
      podSpec,
      podMetadata,
      raw,
    };
  });
  return { component: c, instances };
}
