import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', '.next/**', 'dist/**', 'next-env.d.ts', 'test-results/**', 'playwright-report/**', 'bench/out/**', '.wmap/**', '**/*.tmp.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', Buffer: 'readonly', performance: 'readonly', structuredClone: 'readonly', fetch: 'readonly', AbortController: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', window: 'readonly', document: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['error', 'warn'] }],
    },
  },
  // Module boundaries (DESIGN.md "Who may import whom"), kept by the linter rather than by review.
  {
    files: ['components/**', 'app/**/*.tsx'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '(^|/)server/', message: 'The browser reaches the server over HTTP only; shared types live in contract/, shared pure logic in lib/.' }] }] },
  },
  {
    files: ['contract/**', 'lib/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '(^|/)(server|components|app)/', message: 'contract/ and lib/ are shared by server and browser and import neither.' }] }] },
  },
  {
    files: ['server/engine/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^\\.\\./(\\.\\./)?(cluster|workloads|stream|sim|cli|catalog|usage|auth|log)/', message: 'The engine is pure: it imports no other server module.' }] }] },
  },
  {
    files: ['server/sim/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '(^|/)server/(engine|cluster|workloads)/|^(\\.\\./)+(engine|cluster|workloads)/', message: 'The simulated cluster is an independent cross-check of the engine and the cluster layer.' }] }] },
  },
  {
    files: ['server/usage/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^\\.\\./(engine|workloads|stream|catalog|sim|cli|auth)/', message: 'Utilization sources know no definitions: they read readings through the cluster layer and join nothing.' }] }] },
  },
  {
    files: ['server/cluster/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^\\.\\./(engine|workloads|stream|catalog)/', message: 'The cluster layer knows no definitions: its caller says what to watch.' }] }] },
  },
  {
    // Server code logs through server/log; the CLI below prints to its terminal.
    files: ['server/**'],
    ignores: ['server/cli/**', '**/*.test.ts'],
    rules: { 'no-restricted-globals': ['error', { name: 'console', message: 'Server code logs through server/log (structured, levelled).' }] },
  },
  {
    // The CLI's start-up files are CommonJS (bin/cli-run.cjs says why).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', __filename: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The CLI, scripts and benchmarks talk to a terminal on purpose.
    files: ['server/cli/**', 'scripts/**', 'bench/**', 'bin/**'],
    rules: { 'no-console': 'off' },
  },
);
