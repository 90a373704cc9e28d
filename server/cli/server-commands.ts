/**
 * The long-running commands, `serve` and `sim`: the compiled CLI builds them into a bundle of their
 * own (dist/cli/wmap-server.cjs, scripts/build-cli.mjs), which `wmap` loads only when one of them
 * runs. Every other command then reads and compiles a third less code at each start: the simulated
 * cluster, the dashboard server, sign-in and metrics are not in its bundle. Run from the sources,
 * main.ts imports the modules themselves.
 */
export { serve } from './serve.ts';
export { startPrometheus, startSim } from '../sim/index.ts';
