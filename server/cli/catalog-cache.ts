/**
 * The built-in catalog as one command needs it. Parsing and checking the catalog's YAML is most of
 * what loading it costs (about 0.4 s cold for 19 files; compiling a checked definition takes a
 * millisecond or two), so:
 * - the compiled CLI ships the checked form of every catalog file (dist/cli/catalog-cache.json,
 *   written by the build from the same engine code), keyed by file and content hash: a file whose
 *   text changed since the build is parsed again, the others are not parsed at all;
 * - only the definitions whose root kinds a command meets are compiled (`entriesFor`), from syntax
 *   trees the build parsed (dist/cli/jq-trees.json, server/engine/jq/parsed-store.ts).
 * Running from the sources (tsx) ignores the cache: the engine there may differ from the build's.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { catalogDir, catalogEntriesOf, catalogFiles, type CatalogEntry } from '../catalog/index.ts';
import { compileDefinition, loadDefinitionsFromText, recordParsedTrees, useParsedTrees, type EngineError, type LoadedDefinition } from '../engine/index.ts';
import { kindsOfDefinition } from '../workloads/definitions.ts';

/** Set by the build (scripts/build-cli.mjs `define`); undefined when running from the sources. */
declare const __WMAP_BUILD_ID__: string | undefined;

interface CachedFile {
  hash: string;
  definitions: LoadedDefinition[];
  errors: EngineError[];
  /** Every definition of the file compiled without errors in the build: commands may defer its expressions. */
  compiles?: boolean;
}

export interface CatalogCache {
  buildId: string;
  files: Record<string, CachedFile>;
}

/** One catalog file, loaded (from the cache or parsed now). */
interface FileState extends CachedFile {
  file: string;
  entries: CatalogEntry[] | null;
}

export interface LazyCatalog {
  /**
   * `group/Kind` → version of every kind the catalog's valid definitions mention (roots, components,
   * extra kinds); only of those whose root kind is in `roots` when given.
   */
  mentionedKindsOf(roots: ReadonlySet<string> | null): Map<string, string | undefined>;
  /** Root `group/Kind` of every valid definition. */
  rootKinds(): Set<string>;
  /** Compiled entries whose root kind is one of `kinds` (every entry when omitted), in file order. */
  entriesFor(kinds?: ReadonlySet<string>): CatalogEntry[];
  /** Files parsed because the cache did not have them (tests, diagnostics). */
  readonly parsed: string[];
}

export const CATALOG_CACHE_URL = new URL('../../dist/cli/catalog-cache.json', import.meta.url);
export const JQ_TREES_URL = new URL('../../dist/cli/jq-trees.json', import.meta.url);

interface ShippedTrees {
  buildId: string;
  /** Source text → its syntax tree as JSON. */
  trees: Record<string, string>;
}

export function contentHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function rootKindOf(d: LoadedDefinition): string | null {
  const k = d.definition?.spec.structureDefinition.rootComponent.kind;
  return k?.kind ? `${k.group ?? ''}/${k.kind}` : null;
}

/** The cache of the build that is running, or null (sources, no build, another build's file). */
export function shippedCache(): CatalogCache | null {
  if (typeof __WMAP_BUILD_ID__ === 'undefined') return null;
  try {
    const c = JSON.parse(readFileSync(CATALOG_CACHE_URL, 'utf8')) as CatalogCache;
    return c.buildId === __WMAP_BUILD_ID__ ? c : null;
  } catch {
    return null;
  }
}

/**
 * The build's parsed trees for compileJq, read at the first compile that asks (not at all by a
 * command that compiles nothing); nothing when running from the sources or another build's file.
 */
function useShippedTrees(): void {
  if (typeof __WMAP_BUILD_ID__ === 'undefined') return;
  let trees: Record<string, string> | null | undefined;
  useParsedTrees((source) => {
    if (trees === undefined) {
      try {
        const t = JSON.parse(readFileSync(JQ_TREES_URL, 'utf8')) as ShippedTrees;
        trees = t.buildId === __WMAP_BUILD_ID__ ? t.trees : null;
      } catch {
        trees = null;
      }
    }
    return trees && Object.hasOwn(trees, source) ? trees[source] : undefined;
  });
}

export function lazyCatalog(o: { dir?: string; cache?: CatalogCache | null } = {}): LazyCatalog {
  const cache = o.cache === undefined ? shippedCache() : o.cache;
  if (cache && o.cache === undefined) useShippedTrees();
  const parsed: string[] = [];
  const files: FileState[] = catalogFiles(o.dir ?? catalogDir()).map((file) => {
    const text = readFileSync(file, 'utf8');
    const hash = contentHash(text);
    const hit = cache?.files[file];
    if (hit && hit.hash === hash) return { file, ...hit, entries: null };
    parsed.push(file);
    return { file, hash, ...loadDefinitionsFromText(text, file, 'catalog'), entries: null };
  });
  const valid = (d: LoadedDefinition) => d.definition !== null && d.errors.length === 0;
  return {
    parsed,
    mentionedKindsOf(roots) {
      const out = new Map<string, string | undefined>();
      for (const f of files) {
        for (const d of f.definitions) {
          const root = rootKindOf(d);
          if (!valid(d) || !root || (roots && !roots.has(root))) continue;
          // As the live index's DefinitionSet.mentionedKinds: a root kind takes the version of the
          // last definition of it (the catalog's v1beta1 after its v1alpha1), other kinds the first.
          const kinds = kindsOfDefinition(d.definition!);
          out.set(root, kinds.get(root));
          for (const [gk, v] of kinds) if (!out.has(gk)) out.set(gk, v);
        }
      }
      return out;
    },
    rootKinds() {
      return new Set(files.flatMap((f) => f.definitions.filter(valid).map(rootKindOf).filter((k): k is string => k !== null)));
    },
    entriesFor(kinds) {
      const out: CatalogEntry[] = [];
      for (const f of files) {
        // A broken file (no definitions) has nothing to serve; it is listed only when all are asked for.
        if (kinds && !f.definitions.some((d) => kinds.has(rootKindOf(d) ?? ''))) continue;
        f.entries ??= catalogEntriesOf(f.file, f, { checked: f.compiles === true });
        out.push(...(kinds ? f.entries.filter((e) => kinds.has(rootKindOf(e.loaded) ?? '')) : f.entries));
      }
      return out;
    },
  };
}

/** The cache the build ships: every catalog file checked by this engine. */
export function buildCatalogCache(buildId: string, dir = catalogDir()): CatalogCache {
  return buildShipped(buildId, dir).cache;
}

/** The checked catalog, and the syntax tree of every jq expression it compiled. */
function buildShipped(buildId: string, dir: string): { cache: CatalogCache; trees: ShippedTrees } {
  const { result: files, trees } = recordParsedTrees(() => {
    const out: Record<string, CachedFile> = {};
    for (const file of catalogFiles(dir)) {
      const text = readFileSync(file, 'utf8');
      const loaded = loadDefinitionsFromText(text, file, 'catalog');
      const compiles = loaded.errors.length === 0 && loaded.definitions.every((d) => compileDefinition(d).errors.length === 0);
      out[file] = { hash: contentHash(text), ...loaded, compiles };
    }
    return out;
  });
  return { cache: { buildId, files }, trees: { buildId, trees: Object.fromEntries(trees) } };
}

/** Called by scripts/build-cli.mjs on the fresh bundle (its entry `catalog-cache.mjs`). */
export function writeCatalogCache(file: string): number {
  if (typeof __WMAP_BUILD_ID__ === 'undefined') throw new Error('writeCatalogCache runs in the build only');
  const { cache, trees } = buildShipped(__WMAP_BUILD_ID__, catalogDir());
  writeFileSync(file, JSON.stringify(cache));
  writeFileSync(new URL('jq-trees.json', pathToFileURL(file)), JSON.stringify(trees));
  return Object.keys(cache.files).length;
}
