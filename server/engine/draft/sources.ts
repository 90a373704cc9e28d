/**
 * Where a workload object says what its pods look like: the pod-shaped objects in its spec, strongest
 * first — a PodTemplateSpec (an object whose `spec` has `containers`), a PodSpec (an object with
 * `containers`), fragments (an object with a ResourceRequirements-shaped `resources`, as operators that
 * assemble pods themselves take them), and scaled entries (an object with a `replicas` count and no pod
 * description of its own, beside others that share a default `resources` above them). Only templates and
 * pod specs are sure to make pods; the weaker shapes are kept only when live pods turn out to be theirs.
 */
import { getAt, isObj, type Step } from './paths.ts';

export type SourceShape = 'template' | 'podSpec' | 'fragments' | 'scaled';

export interface PodSource {
  /** Concrete path from the root object. */
  path: Step[];
  shape: SourceShape;
  value: Record<string, unknown>;
  /** Containers the spec gives the pods (name and image, where it says). */
  containers: Array<{ name?: string; image?: string }>;
  /** Labels the spec puts on the pods, and where (absolute); `{}` and null when it puts none. */
  labels: Record<string, string>;
  labelsPath: Step[] | null;
  /** For fragments and scaled entries: where their resources are (their own, or a default above them). */
  resourcesPath: Step[] | null;
  /** True when the fragments object is itself a container (it has resources and a command, image or args). */
  isContainer: boolean;
  /** Words the spec names this source by: field names and map keys on its path, and `…name` fields of the array entries on it. */
  tokens: string[];
}

/** Subtrees whose resources describe something the workload does not run as its own pods. */
const NOT_POD_SUBTREE = /^(dependencies|storage|persistence|volumes?|volumeClaimTemplates?|cache)$/i;

function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (isObj(v)) for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
}

function isResources(v: unknown): boolean {
  return isObj(v) && (isObj(v.limits) || isObj(v.requests));
}

function containersOf(v: unknown): Array<{ name?: string; image?: string }> {
  if (!Array.isArray(v)) return [];
  return v.filter(isObj).map((c) => ({ ...(typeof c.name === 'string' && c.name ? { name: c.name } : {}), ...(typeof c.image === 'string' ? { image: c.image } : {}) }));
}

/** The main container an operator builds from fragments, as far as the fragments say its image. */
function fragmentContainers(o: Record<string, unknown>): Array<{ name?: string; image?: string }> {
  for (const v of Object.values(o)) {
    if (isObj(v) && isObj(v.mainContainer) && typeof v.mainContainer.image === 'string') return [{ image: v.mainContainer.image }];
  }
  if (typeof o.image === 'string') return [{ image: o.image }];
  if (isObj(o.image) && typeof o.image.repository === 'string') return [{ image: `${o.image.repository}${typeof o.image.tag === 'string' ? `:${o.image.tag}` : ''}` }];
  return [];
}

/** String fields an array entry is named by: `name`, `groupName`, `componentName` … */
export function entryNames(entry: unknown): string[] {
  if (!isObj(entry)) return [];
  return Object.entries(entry).filter(([k, v]) => typeof v === 'string' && v !== '' && /name$/i.test(k)).map(([, v]) => v as string);
}

function isAncestor(a: readonly Step[], b: readonly Step[]): boolean {
  if (a.length >= b.length) return false;
  return a.every((s, i) => JSON.stringify(s) === JSON.stringify(b[i]));
}

export function findSources(root: Record<string, unknown>): PodSource[] {
  const out: PodSource[] = [];
  // A bare Pod is its own source: its spec is the pod spec, its metadata the pod's.
  if (root.kind === 'Pod' && root.apiVersion === 'v1' && isObj(root.spec)) {
    return [{ path: [{ key: 'spec' }], shape: 'podSpec', value: root.spec, containers: containersOf(root.spec.containers), labels: {}, labelsPath: null, resourcesPath: null, isContainer: false, tokens: [] }];
  }
  const base = { labels: {}, labelsPath: null, resourcesPath: null, isContainer: false };
  const walk = (v: unknown, path: Step[], tokens: string[]) => {
    if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, [...path, { index: i }], [...tokens, ...entryNames(x)]));
      return;
    }
    if (!isObj(v)) return;
    if (isObj(v.spec) && Array.isArray(v.spec.containers)) {
      const meta = isObj(v.metadata) ? v.metadata : {};
      out.push({ ...base, path, shape: 'template', value: v, containers: containersOf(v.spec.containers), labels: stringMap(meta.labels), labelsPath: [...path, { key: 'metadata' }, { key: 'labels' }], tokens });
      return;
    }
    if (Array.isArray(v.containers)) {
      out.push({ ...base, path, shape: 'podSpec', value: v, containers: containersOf(v.containers), tokens });
      return;
    }
    const labelsKey = ['podLabels', 'labels'].find((k) => isObj(v[k]));
    const own = labelsKey ? { labels: stringMap(v[labelsKey]), labelsPath: [...path, { key: labelsKey }] } : {};
    if (isResources(v.resources)) {
      const isContainer = ['image', 'args', 'command', 'env'].some((k) => v[k] !== undefined);
      out.push({ ...base, ...own, path, shape: 'fragments', value: v, containers: fragmentContainers(v), resourcesPath: [...path, { key: 'resources' }], isContainer, tokens });
    } else if (typeof v.replicas === 'number' && path.length > 1) {
      out.push({ ...base, ...own, path, shape: 'scaled', value: v, containers: fragmentContainers(v), tokens });
    }
    for (const [k, x] of Object.entries(v)) {
      if (path.length === 0 && k !== 'spec') continue;
      if (NOT_POD_SUBTREE.test(k)) continue;
      walk(x, [...path, { key: k }], [...tokens, k]);
    }
  };
  walk(root, [], []);
  // A fragments object above other sources holds their defaults, not pods of its own (Milvus's
  // `spec.components.resources`): scaled entries under it take their resources from it.
  const defaults = out.filter((s) => s.shape === 'fragments' && out.some((o) => o !== s && isAncestor(s.path, o.path)));
  const strong = out.filter((s) => s.shape !== 'scaled' && !defaults.includes(s));
  const kept: PodSource[] = [];
  for (const s of out) {
    if (defaults.includes(s)) continue;
    if (s.shape === 'scaled') {
      // A count beside or above a real pod description belongs to it (a Job spec's parallelism …).
      if (strong.some((o) => isAncestor(s.path, o.path) || isAncestor(o.path, s.path))) continue;
      const holder = defaults.filter((d) => isAncestor(d.path, s.path)).pop();
      kept.push({ ...s, resourcesPath: holder ? holder.resourcesPath : null });
    } else kept.push(s);
  }
  // A pod spec's labels may sit beside it, on the object that holds its `spec` (Grove's cliques).
  for (const s of kept) {
    if (s.shape !== 'podSpec' || s.path.length < 2) continue;
    const holderPath = s.path.slice(0, -2);
    const holder = getAt(root, holderPath);
    if (isObj(holder) && isObj(holder.labels)) {
      s.labels = stringMap(holder.labels);
      s.labelsPath = [...holderPath, { key: 'labels' }];
    }
  }
  return kept;
}

/** Is the source a weak one (kept only with pods of its own)? */
export function isWeak(s: PodSource): boolean {
  return s.shape === 'fragments' || s.shape === 'scaled';
}
