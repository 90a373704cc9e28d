/**
 * `wmap apply -f FILE [--dry-run=client|server|none] [--install-crd] [--diff]`: registers the Karta
 * definitions of a file in the current context's cluster, as kubectl apply would create or update
 * them, but through the registry's write path (karta-registry.ts): each definition is validated with
 * our validator first — errors name the file, the line and the field path, and nothing is sent while
 * there are any —, checked against the cluster's CRD schema, dry-run on the server, then created or
 * updated with the live object's resourceVersion as the precondition. Output is kubectl's:
 * `karta.run.ai/NAME created|configured|unchanged`, with ` (dry run)` / ` (server dry run)`.
 *
 * A cluster without the `kartas.run.ai` CRD is told so; `--install-crd` installs the one the product
 * ships first (or upgrades an older one), when the identity may create CRDs.
 */
import { readFileSync } from 'node:fs';
import { isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Node } from 'yaml';
import { ClusterConnection, loadClusterConfigs, type ClusterConfig } from '../cluster/index.ts';
import { compileDefinition, loadDefinitionsFromText, parseDocuments, type EngineError } from '../engine/index.ts';
import { mayInstallCrd, prepareCrd, registerWith, type KartaClient } from '../workloads/karta-registry.ts';
import { dryRunOf } from './action-commands.ts';
import { UsageError, type Io } from './offline.ts';

export interface ApplyFlags {
  filename?: string[];
  dryRun?: string | boolean;
  installCrd?: boolean;
  diff?: boolean;
  kubeconfig?: string;
  context?: string;
}

const NO_SINK = { onEvent() {}, onList() {}, onChange() {} };

/** A connection per kubeconfig context: only its raw calls are used (no discovery, no watches). */
export function openContexts(flags: { kubeconfig?: string; context?: string }, all = false): Array<{ config: ClusterConfig; connection: ClusterConnection }> {
  let configs: ClusterConfig[];
  try {
    configs = loadClusterConfigs({ kubeconfig: flags.kubeconfig, contexts: flags.context ? [flags.context] : undefined });
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  // Like kubectl: the current context unless one is named (or, for listings, all of them).
  const chosen = flags.context || all ? configs : configs.filter((c) => c.name === c.kc.getCurrentContext()).slice(0, 1);
  const picked = chosen.length > 0 ? chosen : configs.slice(0, 1);
  if (picked.length === 0) throw new UsageError('no cluster in the kubeconfig (use --kubeconfig or KUBECONFIG)');
  return picked.map((config) => ({ config, connection: new ClusterConnection(config.name, config.server, config.kc, NO_SINK) }));
}

function readInput(file: string): string {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(code === 'ENOENT' ? `${file}: no such file` : code === 'EISDIR' ? `${file}: is a directory (name the files)` : `${file}: cannot read (${code ?? String(e)})`);
  }
}

/** `a.b[2].c` → ['a', 'b', 2, 'c']. */
function segments(path: string): Array<string | number> {
  return [...path.matchAll(/\[(\d+)\]|([^.[\]]+)/g)].map((m) => (m[1] !== undefined ? Number(m[1]) : m[2]));
}

/**
 * The line of a field in a text of YAML documents: `where` names the document as the parser does
 * (`file`, `file#2 (line 40)`, `… items[3]`), `path` the field (`spec.structureDefinition.childComponents[1].ownerRef`).
 * A field that is not there (a required one) is placed at its nearest parent that is.
 */
export function fieldLine(text: string, where: string, path: string): number | null {
  const counter = new LineCounter();
  let docs;
  try {
    docs = parseAllDocuments(text, { lineCounter: counter, version: '1.1' });
  } catch {
    return null;
  }
  if (!Array.isArray(docs)) return null;
  const n = /#(\d+)/.exec(where);
  // A List's item (`… items[3]`), or an entry of a JSON array of documents (`file[3]`).
  const item = /items\[(\d+)\]$/.exec(where);
  const entry = item ? null : /\[(\d+)\]$/.exec(where);
  const doc = docs[n ? Number(n[1]) - 1 : 0];
  if (!doc) return null;
  let node: unknown = doc.contents;
  let at = (node as Node | null)?.range?.[0];
  const prefix = item ? ['items', Number(item[1])] : entry ? [Number(entry[1])] : [];
  for (const seg of [...prefix, ...segments(path)]) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) break;
      at = (pair.key as Node).range?.[0] ?? at;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number' && node.items[seg]) {
      node = node.items[seg];
      at = (node as Node).range?.[0] ?? at;
    } else {
      break;
    }
  }
  return at === undefined ? null : counter.linePos(at).line;
}

interface Checked {
  /** Documents that are valid definitions, in file order. */
  documents: Array<{ value: unknown; where: string; file: string }>;
  /** `FILE:LINE: message` lines. */
  errors: string[];
}

/** Our validator over every file: a definition with errors stops the whole apply. */
function checkFiles(files: string[]): Checked {
  const out: Checked = { documents: [], errors: [] };
  for (const file of files) {
    const text = readInput(file);
    const source = file === '-' ? '(stdin)' : file;
    const { documents } = parseDocuments(text, source);
    const { definitions, errors } = loadDefinitionsFromText(text, source);
    // Errors of the text itself already name the document and line in `path` or their message.
    for (const e of errors) out.errors.push(`${e.path || source}: ${e.message}`);
    const byWhere = new Map(documents.map((d) => [d.where, d.value]));
    for (const d of definitions) {
      const errs: EngineError[] = d.errors.length > 0 ? d.errors : compileDefinition(d).errors;
      for (const e of errs) {
        const line = fieldLine(text, d.origin, e.path);
        out.errors.push(`${source}${line ? `:${line}` : ''}: ${e.message}`);
      }
      if (errs.length === 0) out.documents.push({ value: byWhere.get(d.origin), where: d.origin, file: source });
    }
    if (definitions.length === 0 && errors.length === 0) out.errors.push(`${source}: holds no definition`);
  }
  return out;
}

const OK = new Set(['applied', 'dry-run', 'planned', 'unchanged']);

export async function cmdApply(flags: ApplyFlags, io: Io): Promise<number> {
  const files = flags.filename ?? [];
  if (files.length === 0) throw new UsageError('apply needs -f FILE (a YAML or JSON file of Karta definitions, or - for stdin)');
  const dryRun = dryRunOf(flags.dryRun);
  const checked = checkFiles(files);
  if (checked.errors.length > 0) {
    for (const e of checked.errors) io.err(`error: ${e}`);
    io.err(`error: ${checked.errors.length === 1 ? 'one error' : `${checked.errors.length} errors`}: nothing was sent`);
    return 1;
  }
  const [{ config, connection }] = openContexts(flags);
  const client: KartaClient = connection.as(null);
  const who = `kubeconfig context ${config.name}`;
  try {
    const options = { cluster: config.name, dryRun, who, installCrd: flags.installCrd === true };
    const crd = await prepareCrd(client, options);
    if (crd.install) {
      if (flags.diff && crd.install.plan.diff) io.out(crd.install.plan.diff.trimEnd());
      if (OK.has(crd.install.outcome.result)) io.out(crd.install.outcome.message);
    }
    for (const n of crd.notes) io.err(`Warning: ${n}`);
    if (crd.refusal) {
      const missing = crd.context.report.state === 'missing' && !flags.installCrd;
      io.err(`error: ${missing ? `the kartas.run.ai CRD is not installed in cluster ${config.name}${await installHint(client)}` : crd.refusal.message}`);
      return 1;
    }
    let failed = 0;
    for (const d of checked.documents) {
      const { plan, outcome, notes } = await registerWith(client, d.value, crd.context, { ...options, origin: d.where });
      for (const w of plan?.warnings ?? []) io.err(`Warning: ${d.where}: ${w}`);
      for (const n of notes) io.err(`Warning: ${n}`);
      if (flags.diff && outcome.diff) io.out(outcome.diff.trimEnd());
      if (OK.has(outcome.result)) {
        io.out(outcome.message);
      } else {
        failed++;
        // Errors of the plan (the cluster's CRD does not know a field) are placed in the file like the validator's.
        const located = plan?.errors.length ? plan.errors.map((e) => `${d.file}${lineIn(d, e.path)}: ${e.message}`).join('\nerror: ') : outcome.message;
        io.err(`error: ${located}`);
      }
    }
    return failed === 0 ? 0 : 1;
  } finally {
    connection.stop();
  }
}

function lineIn(d: { file: string; where: string }, path: string): string {
  if (d.file === '(stdin)') return '';
  try {
    const line = fieldLine(readFileSync(d.file, 'utf8'), d.where, path);
    return line ? `:${line}` : '';
  } catch {
    return '';
  }
}

/** What to tell someone whose cluster has no Karta CRD: the flag, and whether they may use it. */
async function installHint(client: KartaClient): Promise<string> {
  const access = await mayInstallCrd(client);
  return access.allowed ? ': rerun with --install-crd to install the one Workload Map ships (you may create customresourcedefinitions)' : `: --install-crd would install the one Workload Map ships, but you ${access.reason}; a cluster admin can run kubectl apply -f deploy/crds/kartas.run.ai.yaml`;
}
