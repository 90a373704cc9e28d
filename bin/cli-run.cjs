// Starts the CLI for bin/wmap.cjs and bin/kubectl-wmap.cjs: the compiled one (dist/cli) when it is
// current, otherwise the TypeScript sources through tsx's loader, so a fresh checkout or a
// half-edited tree still works (only slower). WMAP_CLI=source forces the sources, WMAP_CLI=compiled
// insists on the build. CommonJS, like everything a compiled command loads before its bundle: an ES
// module entry makes Node set up its ESM loader first, about 5 ms of every command.
'use strict';
const { BUNDLE, VERSION_ENTRY, cliBuildState } = require('./cli-build-state.cjs');

const versionOnly = (argv) => argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V' || argv[0] === 'version');

async function run(name, argv = process.argv.slice(2)) {
  const want = process.env.WMAP_CLI ?? 'auto';
  let state = { current: false, reason: 'WMAP_CLI=source' };
  if (want !== 'source') {
    state = cliBuildState();
    if (state.current) {
      // `--version` alone from its own small file: it answers before the whole CLI would be read.
      if (versionOnly(argv)) return require(VERSION_ENTRY).versionOnTerminal();
      const loader = require('./cli-loader.cjs');
      return loader.runLoaded(loader.loadBundle({ bundle: BUNDLE, buildId: state.buildId, argv }), argv, name);
    }
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

/**
 * Ends the process once what was written has gone out. A command is done when `main` returns;
 * letting the event loop run dry instead costs a one-shot command some 20 ms on top: V8 is then
 * usually marking the heap incrementally, and a natural exit waits for that marking to finish.
 * (Turning incremental marking off with a V8 flag would cost more: a flag set at run time makes
 * Node compile its built-in modules without their code cache.) Writes to a pipe or a terminal may
 * be asynchronous (macOS), so stdout and stderr are flushed first.
 */
function exitWith(code) {
  process.exitCode = code;
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

/** Runs the CLI as `name` and ends the process with its exit code. */
function start(name, argv) {
  run(name, argv).then(
    (code) => exitWith(code),
    (e) => {
      process.stderr.write(`${name}: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
      exitWith(1);
    },
  );
}

module.exports = { run, start };
