#!/usr/bin/env node
// The `wmap` command (bin/cli-run.mjs says which build of it runs).
import { run } from './cli-run.mjs';

process.exitCode = await run('wmap');
