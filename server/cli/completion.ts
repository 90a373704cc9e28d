/**
 * Shell completion, as kubectl (cobra) does it: `wmap completion bash|zsh` prints a small script that
 * asks the program itself, `wmap __complete WORDS… CURRENT`, for the candidates — commands and their
 * aliases, flags, flag values (`-o` formats, `--context` contexts, `-n` namespaces) and resource
 * names (`tree jobset/<TAB>` lists the JobSets of the namespace). The answer is cobra's: one
 * candidate per line (`value\tdescription`), then `:DIRECTIVE` (4: no file completion, 2: no space
 * after the candidate), so `kubectl wmap` completes through kubectl too (bin/kubectl_complete-wmap).
 */
import type { Command, Option } from 'commander';
import { isWorkloadsWord } from './kind-ref.ts';

export const DIRECTIVE_NO_SPACE = 2;
export const DIRECTIVE_NO_FILE = 4;

/** What the completing command may read of the cluster (and which kinds it knows without one). */
export interface CompletionSources {
  kinds(): Promise<string[]>;
  names(kind: string, where: { namespace?: string; kubeconfig?: string; context?: string }): Promise<string[]>;
  namespaces(where: { kubeconfig?: string; context?: string }): Promise<string[]>;
  contexts(where: { kubeconfig?: string }): Promise<string[]>;
}

const FORMAT_VALUES: Record<string, string[]> = {
  get: ['json', 'yaml', 'wide', 'name', 'jsonpath=', 'custom-columns='],
  tree: ['tree', 'wide', 'json', 'yaml', 'name', 'jsonpath=', 'custom-columns='],
};

/** Commands whose first argument is a workload, `KIND/NAME`. */
const WORKLOAD_ARG = new Set(['tree', 'describe', 'logs', 'verify', 'draft', 'suspend', 'resume', 'label', 'annotate', 'delete', 'image', 'env', 'resources']);

function visible(cmd: Command): Command[] {
  return cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
}

function optionOf(cmds: Command[], word: string): Option | undefined {
  for (const c of [...cmds].reverse()) {
    const o = c.options.find((x) => x.long === word || x.short === word);
    if (o) return o;
  }
  return undefined;
}

/** The completion lines for `words` (the arguments after the program name; the last is being typed). */
export async function complete(program: Command, words: string[], src: CompletionSources): Promise<string[]> {
  const current = words.length > 0 ? words[words.length - 1] : '';
  const before = words.slice(0, -1);
  const chain: Command[] = [program];
  const positionals: string[] = [];
  const values: Record<string, string> = {};
  let pendingValue: Option | null = null;
  for (const w of before) {
    const here = chain[chain.length - 1];
    if (pendingValue) {
      values[pendingValue.long ?? pendingValue.short ?? ''] = w;
      pendingValue = null;
      continue;
    }
    if (w.startsWith('-')) {
      const [flag, inline] = w.includes('=') ? [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)] : [w, null];
      const o = optionOf(chain, flag);
      if (o?.required && inline === null) pendingValue = o;
      else if (o && inline !== null) values[o.long ?? o.short ?? ''] = inline;
      continue;
    }
    const sub = positionals.length === 0 ? here.commands.find((c) => c.name() === w || c.aliases().includes(w)) : undefined;
    if (sub) chain.push(sub);
    else positionals.push(w);
  }
  const cmd = chain[chain.length - 1];
  const where = { namespace: values['--namespace'], kubeconfig: values['--kubeconfig'], context: values['--context'] };
  const done = (items: string[], directive = DIRECTIVE_NO_FILE) => [...items.filter((i) => i.startsWith(current)), `:${directive}`];

  if (pendingValue) {
    const long = pendingValue.long ?? '';
    if (long === '--output') return done(FORMAT_VALUES[cmd.name()] ?? FORMAT_VALUES.get, current.endsWith('=') ? DIRECTIVE_NO_SPACE : DIRECTIVE_NO_FILE);
    if (long === '--namespace') return done(await src.namespaces(where).catch(() => []));
    if (long === '--context') return done(await src.contexts(where).catch(() => []));
    if (long === '--kubeconfig' || long === '--filename' || long === '--definition') return [':0'];
    return [`:${DIRECTIVE_NO_FILE}`];
  }
  if (current.startsWith('-')) {
    const flags = chain.flatMap((c) => c.options.filter((o) => !o.hidden).flatMap((o) => [o.long, o.short].filter((x): x is string => !!x).map((f) => `${f}\t${o.description}`)));
    return done([...new Set(flags)]);
  }
  if (cmd.name() === 'get') {
    // `get workloads`, `get KIND`, `get KIND NAME…` or `get KIND/NAME…`.
    const slash = current.indexOf('/');
    if (positionals.length === 0 && slash < 0) return done(['workloads\tevery kind', ...(await src.kinds().catch(() => []))]);
    const kind = slash >= 0 ? current.slice(0, slash) : positionals[0];
    if (isWorkloadsWord(kind) || (slash < 0 && kind.includes('/'))) return [`:${DIRECTIVE_NO_FILE}`];
    const found = await src.names(kind, where).catch(() => []);
    return done(slash >= 0 ? found.map((n) => `${kind}/${n}`) : found);
  }
  if (cmd.commands.length > 0 && positionals.length === 0) {
    return done(visible(cmd).flatMap((c) => [`${c.name()}\t${c.description().split(/[;:(]/)[0].trim()}`]));
  }
  if (WORKLOAD_ARG.has(cmd.name()) && positionals.length === 0) {
    const slash = current.indexOf('/');
    if (slash < 0) return done((await src.kinds().catch(() => [])).map((k) => `${k}/`), DIRECTIVE_NO_SPACE);
    const kind = current.slice(0, slash);
    return done((await src.names(kind, where).catch(() => [])).map((n) => `${kind}/${n}`));
  }
  if (cmd.name() === 'completion') return done(['bash', 'zsh']);
  return [`:${DIRECTIVE_NO_FILE}`];
}

/** The bash script: `source <(wmap completion bash)`, or save it in bash-completion's folder. */
export function bashScript(name: string): string {
  const fn = `__${name.replace(/[^A-Za-z0-9_]/g, '_')}_complete`;
  return `# bash completion for ${name}: source <(${name} completion bash)
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" out directive line
  local -a candidates=()
  out=$("\${COMP_WORDS[0]}" __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) || return 0
  directive=0
  while IFS= read -r line; do
    if [[ $line == :* ]]; then directive=\${line#:}; continue; fi
    candidates+=("\${line%%$'\\t'*}")
  done <<< "$out"
  COMPREPLY=()
  local c
  for c in "\${candidates[@]}"; do [[ -n $c ]] && COMPREPLY+=("$c"); done
  if (( directive & ${DIRECTIVE_NO_SPACE} )); then compopt -o nospace 2>/dev/null; fi
  if (( ${'${#COMPREPLY[@]}'} == 0 )) && ! (( directive & ${DIRECTIVE_NO_FILE} )); then compopt -o default 2>/dev/null; fi
  return 0
}
complete -F ${fn} ${name}
`;
}

/** The zsh script: `source <(wmap completion zsh)` (after compinit), or save it as _wmap in $fpath. */
export function zshScript(name: string): string {
  const fn = `_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
  return `#compdef ${name}
# zsh completion for ${name}: source <(${name} completion zsh)
${fn}() {
  local -a lines values descriptions
  local out directive line
  out=$(\${words[1]} __complete "\${(@)words[2,CURRENT]}" 2>/dev/null) || return 1
  lines=("\${(@f)out}")
  directive=0
  for line in "\${lines[@]}"; do
    if [[ $line == :* ]]; then directive=\${line#:}; continue; fi
    [[ -z $line ]] && continue
    values+=("\${line%%$'\\t'*}")
    descriptions+=("\${line//$'\\t'/ -- }")
  done
  if (( directive & ${DIRECTIVE_NO_SPACE} )); then
    compadd -S '' -d descriptions -a values
  else
    compadd -d descriptions -a values
  fi
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then ${fn} "$@"; else compdef ${fn} ${name}; fi
`;
}
