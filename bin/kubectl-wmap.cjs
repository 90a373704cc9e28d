#!/usr/bin/env node
// `kubectl wmap …`: kubectl runs an executable named kubectl-wmap found on the PATH with the
// arguments after `wmap` (npm installs this file under that name, package.json "bin").
require('./cli-run.cjs').start('kubectl wmap');
