/**
 * Which definition serves which kind, per cluster: the catalog everywhere, plus the cluster's own
 * `run.ai/v1alpha1 Karta` and `optimization.nvidia.com/v1alpha1 ResourceInterface` objects.
 *
 * Precedence, for objects of one kind: a definition written for the object's version first; among
 * those, the cluster's own over the catalog's; among a cluster's own, the oldest (by creation time,
 * then name) — so a newly applied duplicate never silently takes over. Definitions that lose to
 * another for the same kind and version are *shadowed*, and listed as such.
 *
 * A cluster definition that cannot be loaded (malformed, oversized, or one whose loading fails in
 * any way) is kept with its errors, never dropped, and never displaces a working one.
 */
import { createHash } from 'node:crypto';
import { checkDefinition, compileDefinition, engineError, type CompiledDefinition, type Definition, type EngineError, type KubeObject, type LoadedDefinition } from '../engine/index.ts';

export interface DefinitionEntry {
  name: string;
  source: 'catalog' | 'cluster';
  cluster: string | null;
  loaded: LoadedDefinition;
  compiled: CompiledDefinition | null;
  errors: EngineError[];
  /** The document as stored (for YAML display). */
  document: unknown;
  /** Creation time of a cluster definition (epoch ms; the catalog's are 0), for precedence. */
  createdAt: number;
  /** Hash of the definition's content (what a change of the definition changes). */
  content: string;
}

function contentHash(doc: unknown): string {
  try {
    return createHash('sha256').update(JSON.stringify(doc) ?? '').digest('hex').slice(0, 32);
  } catch {
    return 'unreadable';
  }
}

/** Largest cluster definition read (its JSON); upstream definitions are a few KiB. */
export const MAX_DEFINITION_BYTES = 256 * 1024;

export function entryFromCatalog(loaded: LoadedDefinition, compiled: CompiledDefinition | null, errors: EngineError[]): DefinitionEntry {
  return { name: loaded.name, source: 'catalog', cluster: null, loaded, compiled, errors, document: loaded.definition, createdAt: 0, content: contentHash(loaded.definition) };
}

function brokenEntry(cluster: string, name: string, origin: string, document: unknown, createdAt: number, error: EngineError): DefinitionEntry {
  const loaded: LoadedDefinition = { name, source: 'cluster', origin, definition: null, errors: [error] };
  return { name, source: 'cluster', cluster, loaded, compiled: null, errors: [error], document, createdAt, content: contentHash(document) };
}

export function entryFromClusterObject(cluster: string, obj: KubeObject): DefinitionEntry {
  const name = typeof obj.metadata?.name === 'string' ? obj.metadata.name : '(unnamed)';
  const origin = `${String(obj.kind)} ${name} in cluster ${cluster}`;
  const created = Date.parse(String(obj.metadata?.creationTimestamp ?? ''));
  const createdAt = Number.isNaN(created) ? 0 : created;
  try {
    const size = JSON.stringify(obj).length;
    if (size > MAX_DEFINITION_BYTES) {
      return brokenEntry(cluster, name, origin, { metadata: { name } }, createdAt, engineError('definition.too-large', `${origin} is ${size} bytes; definitions may be at most ${MAX_DEFINITION_BYTES} bytes`, 'metadata'));
    }
    return loadClusterEntry(cluster, obj, name, origin, createdAt);
  } catch (e) {
    // Whatever loading does with hostile input, the definition is listed with the reason.
    return brokenEntry(cluster, name, origin, obj, createdAt, engineError('definition.unloadable', `${origin} could not be loaded: ${e instanceof Error ? e.message : String(e)}`, ''));
  }
}

function loadClusterEntry(cluster: string, obj: KubeObject, name: string, origin: string, createdAt: number): DefinitionEntry {
  // The API server already defaulted and pruned the object; status and server fields are not ours.
  const { status: _status, ...doc } = obj as Record<string, unknown>;
  const meta = (doc.metadata ?? {}) as Record<string, unknown>;
  const cleanMeta: Record<string, unknown> = { name: meta.name };
  if (meta.labels) cleanMeta.labels = meta.labels;
  if (meta.annotations) cleanMeta.annotations = meta.annotations;
  const clean = { ...doc, metadata: cleanMeta };
  const loaded = checkDefinition(clean, 'cluster', origin);
  const { compiled, errors } = compileDefinition(loaded);
  return { name, source: 'cluster', cluster, loaded, compiled, errors: loaded.errors.length > 0 ? loaded.errors : errors, document: clean, createdAt, content: contentHash(clean) };
}

/**
 * The kinds one definition mentions, `group/Kind` → version: its root first, then its components'
 * kinds and its additional child kinds (what must be read to resolve its workloads). Works on a
 * checked definition, compiled or not (the CLI decides what to read before compiling anything).
 */
export function kindsOfDefinition(def: Definition): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>();
  const sd = def.spec.structureDefinition;
  const root = sd.rootComponent.kind;
  if (root?.kind) out.set(`${root.group ?? ''}/${root.kind}`, root.version);
  for (const c of sd.childComponents ?? []) if (c.kind?.kind) { const gk = `${c.kind.group ?? ''}/${c.kind.kind}`; if (!out.has(gk)) out.set(gk, c.kind.version); }
  for (const k of sd.additionalChildKinds ?? []) { const gk = `${k.group}/${k.kind}`; if (!out.has(gk)) out.set(gk, k.version); }
  return out;
}

/** Root group/kind of a definition: `jobset.x-k8s.io/JobSet`. */
export function rootGroupKind(d: CompiledDefinition): string {
  return `${d.rootKind.group}/${d.rootKind.kind}`;
}

export class DefinitionSet {
  private readonly catalog: DefinitionEntry[];
  private readonly byCluster = new Map<string, Map<string, DefinitionEntry>>();
  private effectiveCache = new Map<string, Map<string, CompiledDefinition[]>>();

  constructor(catalog: DefinitionEntry[]) {
    this.catalog = catalog;
  }

  setClusterDefinition(cluster: string, uid: string, entry: DefinitionEntry | null): void {
    let m = this.byCluster.get(cluster);
    if (!m) {
      m = new Map();
      this.byCluster.set(cluster, m);
    }
    if (entry) m.set(uid, entry);
    else m.delete(uid);
    this.effectiveCache.delete(cluster);
  }

  /** The cluster definition stored under an object's uid. */
  clusterEntry(cluster: string, uid: string): DefinitionEntry | undefined {
    return this.byCluster.get(cluster)?.get(uid);
  }

  /** Forgets a cluster's own definitions (the cluster was removed). */
  dropCluster(cluster: string): void {
    this.byCluster.delete(cluster);
    this.effectiveCache.delete(cluster);
  }

  /** A cluster's own definitions in precedence order: oldest first, then by name. */
  clusterEntries(cluster: string): DefinitionEntry[] {
    return [...(this.byCluster.get(cluster)?.values() ?? [])].sort((a, b) => a.createdAt - b.createdAt || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  all(): DefinitionEntry[] {
    return [...this.catalog, ...[...this.byCluster.keys()].sort().flatMap((c) => this.clusterEntries(c))];
  }

  /** group/Kind → definitions serving it in this cluster, in precedence order (the cluster's own first). */
  effective(cluster: string): Map<string, CompiledDefinition[]> {
    const cached = this.effectiveCache.get(cluster);
    if (cached) return cached;
    const m = new Map<string, CompiledDefinition[]>();
    const add = (d: CompiledDefinition) => {
      const gk = rootGroupKind(d);
      const list = m.get(gk);
      if (list) list.push(d);
      else m.set(gk, [d]);
    };
    for (const e of this.clusterEntries(cluster)) if (e.compiled) add(e.compiled);
    for (const e of this.catalog) if (e.compiled) add(e.compiled);
    this.effectiveCache.set(cluster, m);
    return m;
  }

  /** The definition for an object: same group and kind; the exact version preferred. */
  forObject(cluster: string, gk: string, apiVersion: string | undefined): CompiledDefinition | undefined {
    const list = this.effective(cluster).get(gk);
    if (!list) return undefined;
    const version = apiVersion?.split('/').pop();
    return list.find((d) => d.rootKind.version === version) ?? list[0];
  }

  /** Every definition of a kind, the best match for the object's version first. */
  candidatesFor(cluster: string, gk: string, apiVersion: string | undefined): CompiledDefinition[] {
    const list = this.effective(cluster).get(gk) ?? [];
    const best = this.forObject(cluster, gk, apiVersion);
    return best ? [best, ...list.filter((d) => d !== best)] : list;
  }

  /**
   * The definition that wins over `d` in a cluster for the same kind and version, or null when `d`
   * serves (or does not apply to the cluster).
   */
  shadowedBy(cluster: string, d: CompiledDefinition): CompiledDefinition | null {
    const list = this.effective(cluster).get(rootGroupKind(d)) ?? [];
    const first = list.find((x) => x.rootKind.version === d.rootKind.version);
    return first && first !== d && list.includes(d) ? first : null;
  }

  /** Every kind the definitions of a cluster mention (roots, components, additional child kinds), with versions. */
  mentionedKinds(cluster: string): Map<string, string | undefined> {
    const out = new Map<string, string | undefined>();
    for (const list of this.effective(cluster).values()) {
      for (const d of list) {
        out.set(rootGroupKind(d), d.rootKind.version);
        for (const [gk, v] of kindsOfDefinition(d.definition)) if (!out.has(gk)) out.set(gk, v);
      }
    }
    return out;
  }
}
