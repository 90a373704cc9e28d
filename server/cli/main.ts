/** The `wmap` command line. Every failure is a message on stderr and exit code 1, never a stack trace. */
import { Command, CommanderError } from 'commander';
import { cmdCatalog, cmdResolve, cmdValidate, UsageError, type Io } from './offline.ts';

const defaultIo: Io = { out: (s) => process.stdout.write(`${s}\n`), err: (s) => process.stderr.write(`${s}\n`) };

export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  let code = 0;
  const program = new Command('wmap')
    .description('AI workloads on Kubernetes as one tree each: roles, status, pods and GPU totals')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) })
    .showHelpAfterError();

  program
    .command('validate')
    .description('check definition files (Karta or ResourceInterface); exit 1 on any error')
    .argument('<files...>', 'YAML or JSON files, or folders of them')
    .action((files: string[]) => { code = cmdValidate(files, io); });

  program
    .command('resolve')
    .description('resolve a workload from a file of objects (root, what it owns, pods) into its tree')
    .argument('<objects>', 'multi-document YAML, a JSON array or a List')
    .option('-d, --definition <file|name>', 'definition file or catalog entry (default: the catalog entry for the root kind)')
    .option('-o, --output <format>', 'json | yaml | tree', 'tree')
    .action((file: string, opts: { definition?: string; output: string }) => { code = cmdResolve(file, opts, io); });

  program
    .command('catalog')
    .description('list the built-in definitions')
    .option('-o, --output <format>', 'table | json', 'table')
    .action((opts: { output: string }) => { code = cmdCatalog(opts, io); });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 1;
    if (e instanceof UsageError) {
      io.err(`wmap: ${e.message}`);
      return 1;
    }
    io.err(`wmap: unexpected failure: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}
