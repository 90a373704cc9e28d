/**
 * `wmap --version` / `wmap version [-o json|yaml]`: the product's version, the definition APIs it
 * reads, and the catalog's version. The catalog has no version field of its own, so its version is
 * the product's with a content hash of its files (name and text of each, in order): two catalogs
 * with the same version hold the same definitions, and an edited file changes it. Reads files only
 * (no engine, no cluster), so it answers in the time Node takes to start.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
// The files module, not the catalog's index: the index loads the whole engine.
import { catalogDir, catalogFiles } from '../catalog/files.ts';
// The constants' own module, for the same reason.
import { KARTA_API_VERSION, RESOURCE_INTERFACE_API_VERSION } from '../engine/definition/types.ts';
import { UsageError, type Io } from './errors.ts';
import { terminalIo } from './terminal-io.ts';

const PACKAGE_JSON = new URL('../../package.json', import.meta.url);

export interface VersionInfo {
  product: { name: string; version: string };
  /** The definition kinds read, newest first. */
  definitionApis: Array<{ apiVersion: string; kind: string }>;
  catalog: { version: string; dir: string; files: number; sha256: string };
  node: string;
}

export function catalogHash(dir = catalogDir()): { sha256: string; files: number } {
  const h = createHash('sha256');
  const files = catalogFiles(dir);
  for (const f of files) {
    // Name and length first, so that moving text from one file to the next changes the hash too.
    const text = readFileSync(f);
    h.update(`${basename(f)}\u0000${text.length}\u0000`);
    h.update(text);
  }
  return { sha256: h.digest('hex'), files: files.length };
}

export function versionInfo(): VersionInfo {
  const pkg = JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { name: string; version: string };
  const dir = catalogDir();
  const { sha256, files } = catalogHash(dir);
  return {
    product: { name: pkg.name, version: pkg.version },
    definitionApis: [
      { apiVersion: KARTA_API_VERSION, kind: 'Karta' },
      { apiVersion: RESOURCE_INTERFACE_API_VERSION, kind: 'ResourceInterface' },
    ],
    catalog: { version: `${pkg.version}+${sha256.slice(0, 12)}`, dir, files, sha256 },
    node: process.version,
  };
}

export async function cmdVersion(opts: { output?: string }, io: Io): Promise<number> {
  const v = versionInfo();
  if (opts.output === 'json') io.out(JSON.stringify(v, null, 2));
  // yaml loads only when asked for: the plain answer must stay as fast as Node's start.
  else if (opts.output === 'yaml') io.out((await import('yaml')).stringify(v).trimEnd());
  else if (opts.output === undefined || opts.output === '') {
    io.out(`${v.product.name} ${v.product.version}`);
    io.out(`definitions: ${v.definitionApis.map((a) => `${a.apiVersion} ${a.kind}`).join(', ')}`);
    io.out(`catalog: ${v.catalog.version} (${v.catalog.files} files in ${v.catalog.dir})`);
  } else throw new UsageError(`unknown output format "${opts.output}" (json, yaml)`);
  return 0;
}

/** `wmap --version` alone, on the terminal: what bin/cli-run.cjs runs from this module's small build. */
export function versionOnTerminal(): Promise<number> {
  return cmdVersion({}, terminalIo);
}
