// Whether dist/cli (the compiled `wmap`, scripts/build-cli.mjs) is current: built, by this build
// script, from sources none of which has changed since. Read at every start of `wmap`: it stats only
// our own source files the build recorded (a few hundred); the packages it bundled count as changed
// when npm's record of node_modules changed.
//
// One synchronous pass, on purpose: a stat costs the thread about 7 µs this way, against some 30 µs
// for fs.stat's request object and callback (measured: 2.5 ms for 358 files, against 9-13 ms of the
// main thread's time with the stats "in the background" on libuv's threads).
'use strict';
const { readFileSync, statSync } = require('node:fs');
const { join, sep } = require('node:path');

const ROOT = join(__dirname, '..');
const OUT_DIR = join(ROOT, 'dist', 'cli');
const BUILD_INFO = join(OUT_DIR, 'build-info.json');
const BUNDLE = join(OUT_DIR, 'wmap.cjs');
const VERSION_ENTRY = join(OUT_DIR, 'version.cjs');
/** Changing how the CLI is built makes every earlier build stale too; npm rewrites its lock record on every install. */
const ALWAYS = ['scripts/build-cli.mjs', 'bin/cli-build-state.cjs', 'package.json', 'node_modules/.package-lock.json'];
/** Inputs that may be missing without making the build stale. */
const OPTIONAL = new Set(['node_modules/.package-lock.json']);

/** `{ current: true, buildId }`, or `{ current: false, reason }` saying what is missing or newer than the build. */
function cliBuildState() {
  let info;
  try {
    info = JSON.parse(readFileSync(BUILD_INFO, 'utf8'));
    statSync(BUNDLE);
    statSync(VERSION_ENTRY);
  } catch {
    return { current: false, reason: 'not built yet' };
  }
  if (!Array.isArray(info.inputs) || typeof info.builtAt !== 'number' || typeof info.buildId !== 'string') return { current: false, reason: 'unreadable build record' };
  // Paths by concatenation: path.join's normalising is most of a stat's cost here, and the
  // recorded paths are already relative and normal (scripts/build-cli.mjs).
  const prefix = ROOT + sep;
  const check = (rel) => {
    const s = statSync(prefix + rel, { throwIfNoEntry: false });
    if (s === undefined) return OPTIONAL.has(rel) ? null : `${rel} is gone`;
    return s.mtimeMs > info.builtAt ? `${rel} changed` : null;
  };
  for (const rel of ALWAYS) {
    const reason = check(rel);
    if (reason) return { current: false, reason };
  }
  for (const rel of info.inputs) {
    if (rel.startsWith('node_modules/')) continue;
    const reason = check(rel);
    if (reason) return { current: false, reason };
  }
  return { current: true, reason: null, buildId: info.buildId };
}

module.exports = { ROOT, OUT_DIR, BUILD_INFO, BUNDLE, VERSION_ENTRY, cliBuildState };
