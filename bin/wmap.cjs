#!/usr/bin/env node
// The `wmap` command (bin/cli-run.cjs says which build of it runs).
require('./cli-run.cjs').start('wmap');
