/**
 * Where the catalog's files are, and which they are: no parsing, no engine, so that what needs only
 * the files (`wmap --version`'s content hash, a cache of loaded definitions) does not load the engine.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's `catalog/` folder (overridable for tests and packaging). */
export function catalogDir(): string {
  if (process.env.WMAP_CATALOG_DIR) return resolve(process.env.WMAP_CATALOG_DIR);
  const here = fileURLToPath(new URL('.', import.meta.url));
  const fromModule = resolve(here, '..', '..', 'catalog');
  return existsSync(fromModule) ? fromModule : resolve(process.cwd(), 'catalog');
}

/** The definition files of a catalog folder (YAML or JSON at its top level), sorted by name, as full paths. */
export function catalogFiles(dir = catalogDir()): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((f) => /\.(ya?ml|json)$/.test(f)).sort().map((f) => join(dir, f)) : [];
}
