/** Offline commands: validate, resolve and catalog work on files and the built-in catalog only. */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import {
  compileDefinition, definitionForRoot, gpuResourceMatcher, loadDefinitionsFromText, parseDocuments, pickRoot, resolveWorkload,
  type CompiledDefinition, type KubeObject, type WorkloadTree,
} from '../engine/index.ts';
import { catalogDefinitions, findCatalogEntry, listCatalog } from '../catalog/index.ts';
import { renderTree, reportTreeProblems } from './render-tree.ts';
import { table } from './text-table.ts';
import { UsageError, type Io } from './errors.ts';

export { UsageError, type Io } from './errors.ts';

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(code === 'ENOENT' ? `${file}: no such file` : code === 'EISDIR' ? `${file}: is a directory` : `${file}: cannot read (${code ?? String(e)})`);
  }
}

/**
 * Files named on the command line; directories contribute their YAML/JSON files (recursively).
 * Files found in directories are only checked for the definitions they hold (a catalog folder also
 * holds fixtures); files named explicitly must be definitions.
 */
function expandFiles(args: string[], io: Io): Array<{ file: string; fromDir: boolean }> {
  const out: Array<{ file: string; fromDir: boolean }> = [];
  for (const a of args) {
    let st;
    try {
      st = statSync(a);
    } catch {
      throw new UsageError(`${a}: no such file or directory`);
    }
    if (st.isDirectory()) {
      const walk = (dir: string) => {
        for (const name of readdirSync(dir).sort()) {
          const full = join(dir, name);
          if (statSync(full).isDirectory()) {
            if (name !== 'fixtures' && name !== 'node_modules') walk(full);
          } else if (/\.(ya?ml|json)$/.test(name)) out.push({ file: full, fromDir: true });
        }
      };
      walk(a);
    } else if (/\.(ya?ml|json)$/.test(a)) {
      out.push({ file: a, fromDir: false });
    } else {
      io.err(`skipped ${a}: not a YAML or JSON file`);
    }
  }
  return out;
}

export function cmdValidate(files: string[], io: Io): number {
  if (files.length === 0) throw new UsageError('validate: name at least one definition file');
  let bad = 0;
  let good = 0;
  let skipped = 0;
  for (const { file, fromDir } of expandFiles(files, io)) {
    const { definitions, errors: all } = loadDefinitionsFromText(readText(file), file);
    const errors = fromDir ? all.filter((e) => e.code !== 'definition.not-a-definition') : all;
    if (fromDir && definitions.length === 0 && errors.length === 0) {
      skipped++;
      continue;
    }
    // errors of the text name their document in `path` (the file, or `file#2 (line 40)`), definition
    // errors name the definition and field in their message: either way the file is named once
    for (const e of errors) {
      bad++;
      io.out(`${e.path || file}: ${e.message}`);
    }
    for (const d of definitions) {
      const errs = d.errors.length > 0 ? d.errors : compileDefinition(d).errors;
      if (errs.length === 0) {
        good++;
        io.err(`${file}: definition "${d.name}" is valid`);
      } else {
        bad++;
        for (const e of errs) io.out(`${d.origin}: ${e.message}`);
      }
    }
  }
  io.err(`${good} valid, ${bad} with errors${skipped ? ` (${skipped} files in folders hold no definition)` : ''}`);
  return bad === 0 && good > 0 ? 0 : 1;
}

function definitionFrom(spec: string | undefined, objects: KubeObject[]): { def: CompiledDefinition; root: KubeObject } {
  let defs: CompiledDefinition[];
  if (spec && /\.(ya?ml|json)$/.test(spec)) {
    const { definitions, errors } = loadDefinitionsFromText(readText(spec), spec);
    if (errors.length > 0) throw new UsageError(errors.map((e) => `${e.path || spec}: ${e.message}`).join('\n'));
    defs = [];
    for (const d of definitions) {
      const { compiled, errors: cerr } = compileDefinition(d);
      if (!compiled) throw new UsageError(cerr.map((e) => `${d.origin}: ${e.message}`).join('\n'));
      defs.push(compiled);
    }
    if (defs.length === 0) throw new UsageError(`${spec}: holds no definition`);
  } else if (spec) {
    const entry = findCatalogEntry(spec);
    if (!entry) throw new UsageError(`no catalog definition named "${spec}" (see \`wmap catalog\`)`);
    if (!entry.compiled) throw new UsageError(entry.errors.map((e) => e.message).join('\n'));
    defs = [entry.compiled];
  } else {
    defs = catalogDefinitions();
  }
  const root = pickRoot(objects, defs);
  if (!root) {
    const kinds = [...new Set(objects.map((o) => `${String(o.apiVersion)} ${String(o.kind)}`))].join(', ');
    throw new UsageError(`no object in the file is served by ${spec ? `definition ${spec}` : 'the catalog'} (found: ${kinds || 'nothing'})`);
  }
  return { def: definitionForRoot(defs, root)!, root };
}

export function readObjects(file: string): KubeObject[] {
  const { documents, errors } = parseDocuments(readText(file), file);
  if (errors.length > 0) throw new UsageError(errors.map((e) => `${e.path || file}: ${e.message}`).join('\n'));
  const objects: KubeObject[] = [];
  for (const d of documents) {
    const v = d.value as KubeObject;
    if (!v || typeof v !== 'object' || Array.isArray(v) || typeof v.kind !== 'string' || typeof v.apiVersion !== 'string') {
      throw new UsageError(`${d.where}: not a Kubernetes object (apiVersion and kind are required)`);
    }
    objects.push(v);
  }
  if (objects.length === 0) throw new UsageError(`${file}: holds no objects`);
  return objects;
}

export function printTree(tree: WorkloadTree, output: string, io: Io): void {
  if (output === 'json') io.out(JSON.stringify(tree, null, 2));
  else if (output === 'yaml') io.out(stringify(tree).trimEnd());
  else if (output === 'tree') io.out(renderTree(tree));
  else throw new UsageError(`unknown output format "${output}" (json, yaml or tree)`);
}

/** The tree of the workload a file of objects holds (root, what it owns, pods), by a definition or the catalog. */
export function resolveFile(file: string, definition: string | undefined, gpuResources?: readonly string[]): { tree: WorkloadTree; root: KubeObject; objects: KubeObject[] } {
  const objects = readObjects(file);
  const { def, root } = definitionFrom(definition, objects);
  const tree = resolveWorkload(def, root, objects, gpuResources ? { isGpuResource: gpuResourceMatcher(gpuResources) } : {});
  return { tree, root, objects };
}

export function cmdResolve(file: string, opts: { definition?: string; output: string; gpuResources?: readonly string[] }, io: Io): number {
  const { tree } = resolveFile(file, opts.definition, opts.gpuResources);
  printTree(tree, opts.output, io);
  return reportTreeProblems(tree, opts.output, io.err);
}

export function cmdCatalog(opts: { output: string }, io: Io): number {
  const entries = listCatalog();
  if (opts.output === 'json') {
    io.out(JSON.stringify(entries, null, 2));
    return 0;
  }
  const rows = [['KIND', 'API VERSION', 'DEFINITION', 'COMPONENTS'], ...entries.map((e) => [e.kind + (e.valid ? '' : ' (invalid)'), e.apiVersion, e.name, e.components.join(', ')])];
  for (const line of table(rows)) io.out(line);
  return entries.every((e) => e.valid) ? 0 : 1;
}
