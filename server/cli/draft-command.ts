/**
 * `wmap draft KIND/NAME` proposes a definition for a live workload (engine/draft); `wmap verify
 * --definition FILE KIND/NAME` tries a definition file on a live workload instead of the one that serves
 * it (workloads/definition-trial.ts), the comparison the dashboard's studio shows. Nothing is written to
 * the cluster.
 */
import { readFileSync } from 'node:fs';
import { draftDefinition } from '../engine/index.ts';
import { trialDefinition } from '../workloads/definition-trial.ts';
import { connectOnce, findResolved, type LiveFlags } from './live-commands.ts';
import { UsageError, type Io } from './offline.ts';

export async function cmdDraft(ref: string, flags: LiveFlags, io: Io): Promise<number> {
  const out = flags.output || 'yaml';
  if (!['yaml', 'json'].includes(out)) throw new UsageError(`unknown output format "${out}" (yaml or json)`);
  const { live, cluster, namespace } = await connectOnce(flags);
  try {
    const r = findResolved(live, cluster, namespace, ref);
    const draft = draftDefinition(r.object, r.owned.filter((o) => o !== r.object));
    if (out === 'json') {
      // JSON has no comments: the definition alone on stdout (to pipe on), what to review on stderr.
      io.out(JSON.stringify(draft.definition, null, 2));
      for (const g of draft.guesses) io.err(`guess: ${g.path}: ${g.why}`);
      for (const n of draft.notes) io.err(`note: ${n}`);
    } else {
      io.out(draft.yaml.trimEnd());
    }
    const served = r.tree.definition.source === 'none' ? 'no definition serves it yet' : `it is served by definition ${r.tree.definition.name} (${r.tree.definition.source})`;
    io.err(`drafted from ${r.tree.workload.kind} ${r.tree.workload.namespace ? `${r.tree.workload.namespace}/` : ''}${r.tree.workload.name} (${served}); ${draft.guesses.length} guesses to review; try it with: wmap verify --definition FILE ${ref}`);
    return 0;
  } finally {
    live.stop();
  }
}

function readDefinitionFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(code === 'ENOENT' ? `${file}: no such file` : `${file}: cannot read (${code ?? String(e)})`);
  }
}

/** The trial on one live workload; exit 1 on any difference (the definition's own errors included). */
export async function cmdVerifyDefinition(ref: string | undefined, file: string, flags: LiveFlags & { all?: boolean }, io: Io): Promise<number> {
  if (!ref || flags.all) throw new UsageError('verify --definition: name one workload as KIND/NAME (not --all)');
  const text = readDefinitionFile(file);
  const { live, cluster, namespace } = await connectOnce(flags);
  try {
    const r = findResolved(live, cluster, namespace, ref);
    const trial = trialDefinition(text, r.object, r.owned.filter((o) => o !== r.object), { gpuResources: live.index.gpuResources, cluster, origin: file });
    const w = `${r.tree.workload.kind} ${r.tree.workload.namespace ? `${r.tree.workload.namespace}/` : ''}${r.tree.workload.name}`;
    for (const d of trial.differences) {
      if (d.code === 'definition') io.out(`${file}${d.line !== undefined ? `:${d.line}` : ''}: ${d.message}`);
      else io.out(`${w}: ${d.message}`);
    }
    if (trial.differences.length === 0) io.err(`ok   ${w} with definition ${trial.definition.name} from ${file}`);
    if (trial.tree && trial.tree.warnings.length > 0) for (const x of trial.tree.warnings) io.err(`warning: ${x.message}`);
    io.err(`1 workload verified with ${file}${trial.definition.valid ? '' : ' (the definition is invalid)'}, ${trial.differences.length} differences`);
    return trial.differences.length === 0 ? 0 : 1;
  } finally {
    live.stop();
  }
}

