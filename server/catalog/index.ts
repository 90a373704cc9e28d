/**
 * The built-in catalog: every `catalog/*.yaml` definition, loaded, validated and compiled once.
 * A broken entry is reported with its errors and left out of resolution; the others keep working.
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileDefinition, loadDefinitionsFromText, type CompiledDefinition, type EngineError, type LoadedDefinition } from '../engine/index.ts';

export interface CatalogEntry {
  name: string;
  file: string;
  apiVersion: string;
  kind: string;
  components: string[];
  loaded: LoadedDefinition;
  compiled: CompiledDefinition | null;
  errors: EngineError[];
}

/** The repository's `catalog/` folder (overridable for tests and packaging). */
export function catalogDir(): string {
  if (process.env.WMAP_CATALOG_DIR) return resolve(process.env.WMAP_CATALOG_DIR);
  const here = fileURLToPath(new URL('.', import.meta.url));
  const fromModule = resolve(here, '..', '..', 'catalog');
  return existsSync(fromModule) ? fromModule : resolve(process.cwd(), 'catalog');
}

let cache: { dir: string; entries: CatalogEntry[] } | null = null;

export function loadCatalogFile(file: string): CatalogEntry[] {
  const text = readFileSync(file, 'utf8');
  const { definitions, errors } = loadDefinitionsFromText(text, file, 'catalog');
  const out: CatalogEntry[] = definitions.map((loaded) => {
    const { compiled, errors: cerr } = compileDefinition(loaded);
    const k = loaded.definition?.spec.structureDefinition.rootComponent.kind ?? {};
    return {
      name: loaded.name,
      file,
      apiVersion: k.group ? `${k.group}/${k.version ?? ''}` : (k.version ?? ''),
      kind: k.kind ?? '',
      components: loaded.definition ? [loaded.definition.spec.structureDefinition.rootComponent, ...(loaded.definition.spec.structureDefinition.childComponents ?? [])].map((c) => c.name) : [],
      loaded,
      compiled,
      errors: [...loaded.errors, ...(loaded.errors.length > 0 ? [] : cerr)],
    };
  });
  if (errors.length > 0 && out.length === 0) {
    out.push({ name: file, file, apiVersion: '', kind: '', components: [], loaded: { name: file, source: 'catalog', origin: file, definition: null, errors }, compiled: null, errors });
  }
  return out;
}

export function loadCatalog(dir = catalogDir()): CatalogEntry[] {
  if (cache && cache.dir === dir) return cache.entries;
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => /\.(ya?ml|json)$/.test(f)).sort() : [];
  const entries = files.flatMap((f) => loadCatalogFile(join(dir, f)));
  cache = { dir, entries };
  return entries;
}

export function catalogDefinitions(dir = catalogDir()): CompiledDefinition[] {
  return loadCatalog(dir).flatMap((e) => (e.compiled ? [e.compiled] : []));
}

export function listCatalog(dir = catalogDir()): Array<{ name: string; kind: string; apiVersion: string; components: string[]; valid: boolean }> {
  return loadCatalog(dir).map((e) => ({ name: e.name, kind: e.kind, apiVersion: e.apiVersion, components: e.components, valid: e.errors.length === 0 }));
}

export function findCatalogEntry(nameOrKind: string, dir = catalogDir()): CatalogEntry | undefined {
  const all = loadCatalog(dir);
  const lower = nameOrKind.toLowerCase();
  return all.find((e) => e.name === nameOrKind) ?? all.find((e) => e.kind.toLowerCase() === lower);
}
