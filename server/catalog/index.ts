/**
 * The built-in catalog: every `catalog/*.yaml` definition, loaded, validated and compiled once.
 * A broken entry is reported with its errors and left out of resolution; the others keep working.
 */
import { readFileSync } from 'node:fs';
import { catalogDir, catalogFiles } from './files.ts';
import { compileDefinition, loadDefinitionsFromText, type CompileOptions, type CompiledDefinition, type EngineError, type LoadedDefinition } from '../engine/index.ts';

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

export { catalogDir, catalogFiles } from './files.ts';

let cache: { dir: string; entries: CatalogEntry[] } | null = null;

export function loadCatalogFile(file: string): CatalogEntry[] {
  return catalogEntriesOf(file, loadDefinitionsFromText(readFileSync(file, 'utf8'), file, 'catalog'));
}

/**
 * The entries of one catalog file from its loaded definitions (compiled here): what loadCatalogFile
 * does after parsing, for callers that have the loaded form already (the CLI's cache of it).
 */
export function catalogEntriesOf(file: string, { definitions, errors }: { definitions: LoadedDefinition[]; errors: EngineError[] }, options: CompileOptions = {}): CatalogEntry[] {
  const out: CatalogEntry[] = definitions.map((loaded) => {
    const { compiled, errors: cerr } = compileDefinition(loaded, options);
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
  const entries = catalogFiles(dir).flatMap((f) => loadCatalogFile(f));
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
