// Whether dist/cli (the compiled `wmap`, scripts/build-cli.mjs) is current: built, by this build
// script, from sources none of which has changed since. Read at every start of `wmap`, so it stats
// only our own source files the build recorded (a few hundred stats, about a millisecond); the
// packages it bundled count as changed when npm's record of node_modules changed.
'use strict';
const { readFileSync, statSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const OUT_DIR = join(ROOT, 'dist', 'cli');
const BUILD_INFO = join(OUT_DIR, 'build-info.json');
const BUNDLE = join(OUT_DIR, 'wmap.cjs');
const VERSION_ENTRY = join(OUT_DIR, 'version.cjs');
/** Changing how the CLI is built makes every earlier build stale too; npm rewrites its lock record on every install. */
const ALWAYS = ['scripts/build-cli.mjs', 'bin/cli-build-state.cjs', 'package.json', 'node_modules/.package-lock.json'];

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
  for (const rel of [...ALWAYS, ...info.inputs.filter((f) => !f.startsWith('node_modules/'))]) {
    let mtime;
    try {
      mtime = statSync(join(ROOT, rel)).mtimeMs;
    } catch {
      if (rel === 'node_modules/.package-lock.json') continue;
      return { current: false, reason: `${rel} is gone` };
    }
    if (mtime > info.builtAt) return { current: false, reason: `${rel} changed` };
  }
  return { current: true, reason: null, buildId: info.buildId };
}

module.exports = { ROOT, OUT_DIR, BUILD_INFO, BUNDLE, VERSION_ENTRY, cliBuildState };
