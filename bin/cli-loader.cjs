// Runs the compiled CLI (dist/cli/wmap.cjs) with V8's code cache: the bytecode of what a command ran
// last time, so that it is neither parsed nor compiled again (what Node 22's module compile cache
// does; Node 20 has it for scripts only). One cache per build and command (`tree`, `get`, …), made
// by the command's first run, in the user's cache folder (`compile/` in $WMAP_CACHE_DIR, else
// $XDG_CACHE_HOME/wmap, else ~/.cache/wmap). V8 refuses a cache of another source or
// other flags; then the command compiles as usual and writes a new one. WMAP_COMPILE_CACHE=off
// turns it off; WMAP_TRACE=1 says what happened on stderr.
'use strict';
const { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { homedir } = require('node:os');
const { dirname, join } = require('node:path');
const vm = require('node:vm');

/** `compile/` in the CLI's cache folder (server/cli/discovery-once.ts keeps discovery beside it). */
function cacheDir() {
  return join(process.env.WMAP_CACHE_DIR || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'wmap'), 'compile');
}

/** The command a cache is for: the first word that is no option (`get`, `tree`), else the program alone. */
function commandKey(argv) {
  const word = argv.find((a) => !a.startsWith('-'));
  return word && /^[a-z_][a-z0-9_-]*$/i.test(word) ? word : 'none';
}

function trace(what) {
  if (process.env.WMAP_TRACE === '1') process.stderr.write(`trace ${performance.now().toFixed(0).padStart(5)} ms  compile cache: ${what}\n`);
}

/** The bundle read and compiled (with the command's code cache when there is one), not run yet. */
function loadBundle({ bundle, buildId, argv }) {
  const useCache = process.env.WMAP_COMPILE_CACHE !== 'off';
  const dir = cacheDir();
  const file = join(dir, `${buildId}-${process.version}-${process.arch}-${commandKey(argv)}.bin`);
  let cachedData;
  if (useCache) {
    try {
      cachedData = readFileSync(file);
    } catch {
      cachedData = undefined;
    }
  }
  // ASCII only (scripts/build-cli.mjs makes it so): Latin-1 is a plain copy of the bytes, UTF-8 a decode.
  const source = readFileSync(bundle, 'latin1');
  // The CommonJS wrapper Node itself puts around a module; dynamic import() of packages goes to Node's own loader.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundle,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  trace(cachedData ? (script.cachedDataRejected ? 'rejected' : 'used') : 'none');
  return { bundle, buildId, script, cachedData, useCache, dir, file };
}

/** Runs a loaded bundle's `main`, then writes the command's code cache when there was none that fit. */
async function runLoaded({ bundle, buildId, script, cachedData, useCache, dir, file }, argv, name) {
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  const code = await module.exports.main(argv, undefined, { name });
  // What still holds the process open after the command (anything but stdio delays the exit).
  if (process.env.WMAP_TRACE === '1') trace(`command done; pending: ${process.getActiveResourcesInfo().join(', ')}`);
  process.once('exit', () => trace('exit'));
  if (useCache && (!cachedData || script.cachedDataRejected)) {
    // After the run: the cache then holds the functions the command compiled, not only the top level.
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      for (const old of readdirSync(dir)) if (old.endsWith('.bin') && !old.startsWith(`${buildId}-`)) rmSync(join(dir, old), { force: true });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
      renameSync(tmp, file);
      trace(`written ${file}`);
    } catch (e) {
      trace(`not written: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return code;
}

module.exports = { commandKey, loadBundle, runLoaded };
