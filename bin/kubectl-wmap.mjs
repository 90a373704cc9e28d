#!/usr/bin/env node
// `kubectl wmap …`: kubectl runs an executable named kubectl-wmap found on the PATH with the
// arguments after `wmap` (npm installs this file under that name, package.json "bin").
import { run } from './cli-run.mjs';

process.exitCode = await run('kubectl wmap');
