// Starts the CLI for bin/wmap.mjs and bin/kubectl-wmap.mjs: the compiled one (dist/cli) when it is
// current, otherwise the TypeScript sources through tsx's loader, so a fresh checkout or a
// half-edited tree still works (only slower). WMAP_CLI=source forces the sources, WMAP_CLI=compiled
// insists on the build.
import { BUNDLE, VERSION_ENTRY, cliBuildState } from './cli-build-state.mjs';

const out = (s) => process.stdout.write(`${s}\n`);

export async function run(name, argv = process.argv.slice(2)) {
  const want = process.env.WMAP_CLI ?? 'auto';
  const state = want === 'source' ? { current: false, reason: 'WMAP_CLI=source' } : cliBuildState();
  if (state.current) {
    // `--version` alone from its own small file: it answers before the whole CLI would be read.
    if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V' || argv[0] === 'version')) {
      const { cmdVersion } = await import(new URL(`file://${VERSION_ENTRY}`).href);
      return cmdVersion({}, { out, err: (s) => process.stderr.write(`${s}\n`) });
    }
    const { runBundle } = await import('./cli-loader.mjs');
    return runBundle({ bundle: BUNDLE, buildId: state.buildId, argv, name });
  }
  if (want === 'compiled') {
    process.stderr.write(`${name}: the compiled CLI is not current (${state.reason}); run node scripts/build-cli.mjs\n`);
    return 1;
  }
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../server/cli/main.ts');
  return main(argv, undefined, { name });
}
