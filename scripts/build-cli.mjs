#!/usr/bin/env node
// Builds the `wmap` command into dist/cli/ so that a command starts without compiling TypeScript
// through tsx. Run by `npm install` (prepare), by `npm start` and `npm test` when the output is
// stale, or by hand (`--force` rebuilds, `--if-possible` warns instead of failing).
//
// Outputs (bin/cli-run.cjs picks them):
// - wmap.cjs: the whole CLI as one CommonJS file, run by bin/cli-loader.cjs with V8's code cache
//   (Node 20 has no compile cache for ES modules; parsing and compiling is most of a short
//   command's time, and a cached command starts in about half the time).
// - wmap-server.cjs: `serve` and `sim` (server/cli/server-commands.ts), which wmap.cjs requires
//   when one of them runs: the other commands start without reading the simulated cluster and the
//   dashboard server (a third of the code; each start reads, and V8 restores, less).
// - version.cjs: `wmap --version` alone, a few KB: it answers before the big file would be read.
// - catalog-cache.json: the catalog checked ahead by the bundled engine (server/cli/catalog-cache.ts);
//   jq-trees.json: the syntax tree of each of its jq expressions, so that commands parse none.
// - build-info.json: what it was built from, for the staleness check (bin/cli-build-state.cjs).
//
// What the bundle must keep working, and how:
// - Modules find files next to their source through import.meta.url (the catalog, serve's ROOT, the
//   worker pool's pool-worker.mjs, the Karta CRD): each module's import.meta.url is rewritten to the
//   URL of its source file, relative to the bundle, so the same lookups land where they did.
// - The simulated cluster loads its controllers and scenarios by computed URL (optionalImport); those
//   calls become plain dynamic imports, so they are bundled instead of loading .ts files.
// - @kubernetes/client-node is loaded only for KubeConfig (the one value the code imports from it);
//   its index pulls the whole generated API (0.5 s), so KubeConfig is bundled from dist/config.js with
//   the generated client's configuration helpers only. Any other runtime import from the package
//   fails the build (no matching export), rather than silently slowing every command down.
// - A few pure-JavaScript libraries are bundled (BUNDLED); every other package stays in node_modules.
import { existsSync, readFileSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { BUILD_INFO, OUT_DIR, ROOT, cliBuildState } from '../bin/cli-build-state.cjs';

const ENTRY = join(ROOT, 'server', 'cli', 'main.ts');
const SERVER_COMMANDS_ENTRY = join(ROOT, 'server', 'cli', 'server-commands.ts');
const CATALOG_CACHE_ENTRY = join(ROOT, 'server', 'cli', 'catalog-cache.ts');
const VERSION_ENTRY = join(ROOT, 'server', 'cli', 'version.ts');
const CLIENT_NODE = join(ROOT, 'node_modules', '@kubernetes', 'client-node', 'dist');
const NODE_MODULES = `${join('x', 'node_modules', 'x').slice(1, -1)}`;

/** `import.meta.url` of a source module, from the bundle in OUT_DIR (a CommonJS one has __dirname instead). */
function sourceUrlExpression(file, format) {
  const rel = JSON.stringify(relative(OUT_DIR, file).split('\\').join('/'));
  return format === 'cjs' ? `require('node:url').pathToFileURL(require('node:path').join(__dirname, ${rel})).href` : `new URL(${rel}, import.meta.url).href`;
}

const OPTIONAL_IMPORT = /optionalImport<([^>]+)>\((['"])(\.[^'"]+)\2\)/g;

/** Our own sources: import.meta.url pointed back at the source file; the sim's optional imports made static. */
const sourcePlugin = {
  name: 'wmap-sources',
  setup(build) {
    const format = build.initialOptions.format;
    build.onLoad({ filter: /\.(ts|mts|mjs|js)$/ }, (args) => {
      if (args.path.includes(NODE_MODULES)) return undefined;
      let text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url') && !text.includes('optionalImport')) return undefined;
      const calls = [...text.matchAll(/optionalImport\s*(<[^>]*>)?\s*\(/g)].length;
      const definitions = [...text.matchAll(/function\s+optionalImport\b/g)].length;
      let rewritten = 0;
      text = text.replace(OPTIONAL_IMPORT, (_m, type, q, path) => {
        rewritten++;
        return `(import(${q}${path}${q}) as Promise<${type}>)`;
      });
      if (calls - definitions !== rewritten) {
        return { errors: [{ text: `${relative(ROOT, args.path)}: ${calls - definitions} optionalImport calls, ${rewritten} of the form optionalImport<T>('./literal') the build can make static` }] };
      }
      text = text.replaceAll('import.meta.url', sourceUrlExpression(args.path, format));
      return { contents: text, loader: args.path.endsWith('ts') ? 'ts' : 'js', resolveDir: dirname(args.path) };
    });
  },
};

/**
 * Our modules whose top level only declares things are side-effect free for esbuild: a module none
 * of whose exports a command uses is then not started at all (a barrel such as server/engine/index.ts
 * no longer starts the definition drafter for `wmap get`). A module with a statement of another kind
 * at its top level (the jq builtins register themselves: `define(...)`) keeps its side effects. The
 * check reads the top level as the sources are formatted: a line at column 0 that begins neither a
 * declaration nor the end of one is a statement; a false alarm only keeps a module as it was.
 */
const DECLARATION = /^(import|export|const|let|var|function|async function|class|abstract class|interface|type|enum|declare|\}|\)|\]|\/\/|\/\*|\*|'use strict')/;

function topLevelOnlyDeclares(file) {
  return readFileSync(file, 'utf8').split('\n').every((line) => !/^[^\s]/.test(line) || DECLARATION.test(line));
}

const pureSourcesPlugin = {
  name: 'wmap-pure-sources',
  setup(build) {
    const pure = new Map();
    build.onResolve({ filter: /^\.\.?\// }, async (args) => {
      if (args.namespace !== 'file' || args.importer.includes(NODE_MODULES) || args.pluginData === 'pure') return undefined;
      const r = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'pure' });
      if (r.errors.length > 0 || r.external || !r.path.endsWith('.ts') || r.path.includes(NODE_MODULES)) return undefined;
      if (!pure.has(r.path)) pure.set(r.path, topLevelOnlyDeclares(r.path));
      return pure.get(r.path) ? { ...r, sideEffects: false } : undefined;
    });
  },
};

/** Bare imports stay external, except @kubernetes/client-node, reduced to KubeConfig (see the top). */
const packagesPlugin = {
  name: 'wmap-packages',
  setup(build) {
    build.onResolve({ filter: /^@kubernetes\/client-node$/ }, (args) => {
      if (args.importer.includes(NODE_MODULES)) return { path: args.path, external: true };
      return { path: 'client-node', namespace: 'wmap-client-node' };
    });
    build.onLoad({ filter: /.*/, namespace: 'wmap-client-node' }, () => ({
      contents: `export { KubeConfig } from ${JSON.stringify(join(CLIENT_NODE, 'config.js'))};`,
      resolveDir: CLIENT_NODE,
      loader: 'js',
    }));
    // config.js needs two helpers of the generated client, not its hundreds of API classes.
    build.onResolve({ filter: /^\.\/gen\/index\.js$/ }, (args) => {
      if (args.importer !== join(CLIENT_NODE, 'config.js')) return undefined;
      return { path: 'gen', namespace: 'wmap-client-node-gen' };
    });
    build.onLoad({ filter: /.*/, namespace: 'wmap-client-node-gen' }, () => ({
      contents: `export { createConfiguration } from './configuration.js';\nexport { ServerConfiguration } from './servers.js';`,
      resolveDir: join(CLIENT_NODE, 'gen'),
      loader: 'js',
    }));
    // config.js imports node-fetch for one Headers class (applyToFetchOptions, which nothing here
    // calls), and node-fetch pulls whatwg-url and tr46's 260 KB table: native Headers instead, and
    // a fetch that says so if anything ever calls it.
    build.onResolve({ filter: /^node-fetch$/ }, (args) => (args.importer.startsWith(CLIENT_NODE) ? { path: 'node-fetch', namespace: 'wmap-no-node-fetch' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'wmap-no-node-fetch' }, () => ({
      contents: "export class Headers { constructor(init) { return new globalThis.Headers(init); } }\nexport default function fetch() { throw new Error('node-fetch is not part of the compiled wmap CLI (scripts/build-cli.mjs)'); }",
      loader: 'js',
    }));
    // config.js constructs a SocksProxyAgent only for a `socks*` proxy-url in client-node's own
    // request path, which nothing here takes (server/cluster/http.ts makes the requests), yet its
    // top-level import loads socks, ip-address and debug at every start: loaded when constructed.
    build.onResolve({ filter: /^socks-proxy-agent$/ }, (args) => {
      if (args.namespace === 'wmap-lazy-socks') return { path: args.path, external: true };
      return args.importer.startsWith(CLIENT_NODE) ? { path: 'socks-proxy-agent', namespace: 'wmap-lazy-socks' } : undefined;
    });
    build.onLoad({ filter: /.*/, namespace: 'wmap-lazy-socks' }, () => ({
      contents: "export class SocksProxyAgent { constructor(...args) { const { SocksProxyAgent: Agent } = require('socks-proxy-agent'); return new Agent(...args); } }",
      loader: 'js',
      resolveDir: CLIENT_NODE,
    }));
    // client-node's own dependencies are bundled with it (fewer files to load at start); bare
    // imports from our sources stay in node_modules.
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:') || args.namespace !== 'file' || args.importer.includes(NODE_MODULES)) return undefined;
      if (BUNDLED.has(packageOf(args.path))) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/**
 * Modules loaded on first use instead of at start. A one-shot command runs every module's top level
 * that its code imports, used or not:
 * - child_process: commander requires it for executable subcommands (wmap has none), client-node for
 *   exec and cloud auth plugins (only kubeconfigs that name one); it brings dgram and the IPC
 *   machinery with it.
 * - zlib: server/cluster/http.ts inflates a gzip answer (the few requests that ask for one).
 * - cel-js and re2js: only a CEL filter (`--query cel=…`) and definitions' CEL rules use them.
 * - zod and yaml: checking a definition's schema, reading YAML and writing it; a command that
 *   reads the cluster with the catalog the build checked does none of them.
 * - pino and pino-pretty: server/log makes its logger on the first line written at an enabled
 *   level, which a quiet one-shot command never does; they bring sonic-boom, thread-stream,
 *   worker_threads and assert.
 * Each import of such a module (from anywhere for a built-in, from our sources for a package) gets a
 * stand-in with the module's export names, which loads the module when one of them is used: a
 * function is a forwarding proxy, made when its name is first read (client-node's KubeConfig keeps
 * `spawn` in a field when it is made, long before any plugin runs; pino is called and its properties
 * read), anything else (a class, kept as itself for instanceof; a constant) is read from the module
 * when asked for. A module whose export is itself a function (pino-pretty) gets a stand-in that is one.
 */
const LAZY_MODULES = ['child_process', 'zlib', '@marcbachmann/cel-js', 're2js', 'pino', 'pino-pretty', 'zod', 'yaml'];
const BUILTIN = new Set(['child_process', 'zlib']);

const lazyModulesPlugin = {
  name: 'wmap-lazy-modules',
  setup(build) {
    const names = LAZY_MODULES.map((m) => m.replace(/[/.@-]/g, (c) => `\\${c}`)).join('|');
    build.onResolve({ filter: new RegExp(`^(node:)?(${names})$`) }, (args) => {
      const spec = args.path.replace(/^node:/, '');
      if (args.namespace === 'wmap-lazy') return BUILTIN.has(spec) ? { path: `node:${spec}`, external: true } : undefined;
      if (!BUILTIN.has(spec) && (args.importer.includes(NODE_MODULES) || args.namespace !== 'file')) return undefined;
      return { path: spec, namespace: 'wmap-lazy' };
    });
    build.onLoad({ filter: /.*/, namespace: 'wmap-lazy' }, (args) => {
      const spec = BUILTIN.has(args.path) ? `node:${args.path}` : args.path;
      // The names as Node gives them (an ES module package through require(esm), as the bundle reads it too).
      const real = createRequire(join(ROOT, 'package.json'))(spec);
      const keys = Object.keys(real).filter((n) => /^[A-Za-z_$][\w$]*$/.test(n) && n !== 'default' && n !== '__esModule');
      // Configurable, so that a function stand-in's proxy may answer with the module's own values.
      // A function's stand-in is made when the name is first read (zod has some 200 of them).
      const member = (n) => (typeof real[n] === 'function' && /^_?[a-z]/.test(n) ? `${n}: { get: () => (made.${n} ??= forward((m) => m.${n})), enumerable: true, configurable: true }` : `${n}: { get: () => load().${n}, enumerable: true, configurable: true }`);
      return {
        contents: [
          `let real;`,
          `const load = () => (real ??= require(${JSON.stringify(spec)}));`,
          `function forward(pick) {`,
          `  return new Proxy(function () {}, {`,
          `    apply: (_, self, args) => Reflect.apply(pick(load()), self, args),`,
          `    construct: (_, args, target) => Reflect.construct(pick(load()), args, target),`,
          // What esbuild's interop asks before any use: a CommonJS module's exports are no ES module.
          `    get: (_, key) => (key === '__esModule' ? undefined : pick(load())[key]),`,
          `  });`,
          `}`,
          `const made = {};`,
          `const stub = ${typeof real === 'function' ? 'forward((m) => m)' : '{}'};`,
          `Object.defineProperties(stub, {\n  ${keys.map(member).join(',\n  ')}\n});`,
          `module.exports = stub;`,
        ].join('\n'),
        loader: 'js',
        resolveDir: ROOT,
      };
    });
  },
};

/**
 * In wmap.cjs, main.ts's imports of the serve and sim modules become the server bundle, required
 * from next to it when the command runs (the bundle's `require` resolves from dist/cli). Both
 * bundles then hold their own copy of the modules they share; what must be one per process (the
 * root logger, the runtime) lives on globalThis already.
 */
const serverCommandsPlugin = {
  name: 'wmap-server-commands',
  setup(build) {
    build.onResolve({ filter: /^(\.\/serve\.ts|\.\.\/sim\/index\.ts)$/ }, (args) => (args.importer === ENTRY ? { path: 'server-commands', namespace: 'wmap-server-commands' } : undefined));
    build.onResolve({ filter: /^\.\/wmap-server\.cjs$/ }, (args) => (args.namespace === 'wmap-server-commands' ? { path: args.path, external: true } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'wmap-server-commands' }, () => ({ contents: "module.exports = require('./wmap-server.cjs');", loader: 'js' }));
  },
};

/**
 * Pure-JavaScript libraries the one-shot commands load, bundled instead of loaded from node_modules:
 * Node's ESM loader costs about a millisecond per file it resolves and reads (zod alone is ~80 files,
 * 80 ms cold), while bundled code is one file whose functions V8 compiles when first called. Only
 * libraries without native parts, worker files or paths of their own; everything else (next, react,
 * prom-client, openid-client, tsx) stays in node_modules.
 */
const BUNDLED = new Set(['yaml', 'zod', 'commander', 'jsonpath-plus', '@marcbachmann/cel-js', 're2js', 'diff', 'pino', 'pino-pretty']);

function packageOf(spec) {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const COMMON = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  // Less to read and hash at every start; identifiers kept, so messages and stacks stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
  plugins: [lazyModulesPlugin, pureSourcesPlugin, sourcePlugin, packagesPlugin],
};

/**
 * Rewrites the few non-ASCII characters esbuild leaves (in regular expression literals) as \u
 * escapes, which mean the same in strings, regular expressions and identifiers, the only places
 * a minified bundle has them. bin/cli-loader.cjs then reads the bundle as Latin-1, a plain copy of
 * its bytes, instead of decoding 2.8 MB of UTF-8 at every start (about 5 ms).
 */
function asciiOnly(file) {
  const text = readFileSync(file, 'utf8');
  // Per UTF-16 unit: a character outside the BMP becomes its surrogate pair, which strings and
  // regular expressions (with or without the u flag) read back as the same character.
  const ascii = text.replace(/[\u0080-\uffff]/g, (u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (ascii !== text) writeFileSync(file, ascii);
}

export async function buildCli() {
  const esbuild = await import('esbuild');
  const started = Date.now();
  rmSync(OUT_DIR, { recursive: true, force: true });
  mkdirSync(OUT_DIR, { recursive: true });
  // Ties the shipped catalog cache and the code caches to this build (catalog-cache.ts, cli-loader.cjs).
  const buildId = `${Date.now().toString(36)}${process.pid.toString(36)}`;
  const define = { __WMAP_BUILD_ID__: JSON.stringify(buildId) };
  const [cli, server, version] = await Promise.all([
    esbuild.build({ ...COMMON, plugins: [serverCommandsPlugin, ...COMMON.plugins], entryPoints: { wmap: ENTRY, 'catalog-cache-writer': CATALOG_CACHE_ENTRY }, outdir: OUT_DIR, outExtension: { '.js': '.cjs' }, format: 'cjs', define }),
    esbuild.build({ ...COMMON, entryPoints: { 'wmap-server': SERVER_COMMANDS_ENTRY }, outdir: OUT_DIR, outExtension: { '.js': '.cjs' }, format: 'cjs', define }),
    // yaml only for `version -o yaml`, which the full CLI answers: left out of the small file.
    esbuild.build({ ...COMMON, entryPoints: { version: VERSION_ENTRY }, outdir: OUT_DIR, outExtension: { '.js': '.cjs' }, format: 'cjs', define, external: ['yaml'] }),
  ]);
  asciiOnly(join(OUT_DIR, 'wmap.cjs'));
  // The checked form of every catalog file, by the engine just bundled: commands then parse no YAML.
  const writer = join(OUT_DIR, 'catalog-cache-writer.cjs');
  const cached = createRequire(import.meta.url)(writer).writeCatalogCache(join(OUT_DIR, 'catalog-cache.json'));
  for (const f of [writer, `${writer}.map`]) rmSync(f, { force: true });
  const inputs = new Set();
  for (const r of [cli, server, version]) for (const p of Object.keys(r.metafile.inputs)) if (!p.includes(':')) inputs.add(relative(ROOT, resolve(ROOT, p)));
  // What the bundle holds, for whoever wonders why a command loads what it loads (esbuild's analyzer reads it).
  writeFileSync(join(OUT_DIR, 'metafile.json'), JSON.stringify(cli.metafile));
  writeFileSync(BUILD_INFO, JSON.stringify({ buildId, builtAt: Date.now(), node: process.version, inputs: [...inputs].sort() }, null, 1));
  return { ms: Date.now() - started, inputs: inputs.size, cached };
}

/**
 * Builds when the output is missing or older than a source it was built from, and says why. `soft`:
 * a failed build is a warning (the CLI then runs from its sources through tsx), for the commands
 * that only want it current (npm start, npm test, npm install).
 */
export async function buildCliIfStale({ force = false, quiet = false, soft = false } = {}) {
  const state = cliBuildState();
  if (!force && state.current) return { built: false, reason: 'current' };
  if (!existsSync(join(ROOT, 'node_modules', 'esbuild'))) {
    if (!quiet) console.error('wmap: esbuild is not installed; the CLI keeps running through tsx');
    return { built: false, reason: 'no esbuild' };
  }
  if (!quiet) console.error(`building the wmap CLI (${force ? 'forced' : state.reason})...`);
  try {
    const r = await buildCli();
    if (!quiet) console.error(`built dist/cli in ${r.ms} ms from ${r.inputs} files (${r.cached} catalog files checked ahead)`);
  } catch (e) {
    if (!soft) throw e;
    console.error(`wmap: the CLI build failed (${e instanceof Error ? e.message : String(e)}); it keeps running from its TypeScript sources through tsx`);
    return { built: false, reason: 'failed' };
  }
  return { built: true, reason: force ? 'forced' : state.reason };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    // `npm install` (--if-possible) must not fail for it: the CLI then runs through tsx, slower. A build by hand does.
    await buildCliIfStale({ force: process.argv.includes('--force'), soft: process.argv.includes('--if-possible') });
  } catch (e) {
    console.error(`wmap: the CLI build failed: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  }
}

