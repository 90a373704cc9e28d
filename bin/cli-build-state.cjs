// Whether dist/cli (the compiled `wmap`, scripts/build-cli.mjs) is current: built, by this build
// script, from sources none of which has changed since. Read at every start of `wmap`: it stats only
// our own source files the build recorded (a few hundred); the packages it bundled count as changed
// when npm's record of node_modules changed. `wmap` itself uses the asynchronous form, whose stats
// run on libuv's threads while the bundle is read and compiled (a few ms hidden instead of spent).
'use strict';
const { readFileSync, stat, statSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const OUT_DIR = join(ROOT, 'dist', 'cli');
const BUILD_INFO = join(OUT_DIR, 'build-info.json');
const BUNDLE = join(OUT_DIR, 'wmap.cjs');
const VERSION_ENTRY = join(OUT_DIR, 'version.cjs');
/** Changing how the CLI is built makes every earlier build stale too; npm rewrites its lock record on every install. */
const ALWAYS = ['scripts/build-cli.mjs', 'bin/cli-build-state.cjs', 'package.json', 'node_modules/.package-lock.json'];
/** Inputs that may be missing without making the build stale. */
const OPTIONAL = new Set(['node_modules/.package-lock.json']);

/** The build's record and the files to compare with it, or the state saying why there is none. */
function buildRecord() {
  let info;
  try {
    info = JSON.parse(readFileSync(BUILD_INFO, 'utf8'));
    statSync(BUNDLE);
    statSync(VERSION_ENTRY);
  } catch {
    return { state: { current: false, reason: 'not built yet' } };
  }
  if (!Array.isArray(info.inputs) || typeof info.builtAt !== 'number' || typeof info.buildId !== 'string') return { state: { current: false, reason: 'unreadable build record' } };
  return { info, files: [...ALWAYS, ...info.inputs.filter((f) => !f.startsWith('node_modules/'))] };
}

/** The state from each file's mtime (undefined: missing), in the record's order, so both forms name the same file. */
function verdict(info, files, mtimes) {
  for (let i = 0; i < files.length; i++) {
    const m = mtimes[i];
    if (m === undefined) {
      if (OPTIONAL.has(files[i])) continue;
      return { current: false, reason: `${files[i]} is gone` };
    }
    if (m > info.builtAt) return { current: false, reason: `${files[i]} changed` };
  }
  return { current: true, reason: null, buildId: info.buildId };
}

/** `{ current: true, buildId }`, or `{ current: false, reason }` saying what is missing or newer than the build. */
function cliBuildState() {
  const r = buildRecord();
  if (r.state) return r.state;
  const mtimes = r.files.map((rel) => {
    try {
      return statSync(join(ROOT, rel)).mtimeMs;
    } catch {
      return undefined;
    }
  });
  return verdict(r.info, r.files, mtimes);
}

/**
 * The same answer as cliBuildState, with the stats in flight while the caller goes on: `state` settles
 * when they are in; `buildId` is the record's at once (null without one), for what may be prepared meanwhile.
 */
function cliBuildStateAsync() {
  const r = buildRecord();
  if (r.state) return { buildId: null, state: Promise.resolve(r.state) };
  return { buildId: r.info.buildId, state: checkFiles(r) };
}

function checkFiles(r) {
  return new Promise((resolve) => {
    const mtimes = new Array(r.files.length);
    let left = r.files.length;
    if (left === 0) resolve(verdict(r.info, r.files, mtimes));
    r.files.forEach((rel, i) => {
      stat(join(ROOT, rel), (err, s) => {
        mtimes[i] = err ? undefined : s.mtimeMs;
        if (--left === 0) resolve(verdict(r.info, r.files, mtimes));
      });
    });
  });
}

module.exports = { ROOT, OUT_DIR, BUILD_INFO, BUNDLE, VERSION_ENTRY, cliBuildState, cliBuildStateAsync };
