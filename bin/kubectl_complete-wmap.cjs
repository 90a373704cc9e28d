#!/usr/bin/env node
// Completion of `kubectl wmap …` (kubectl 1.26+): kubectl runs kubectl_complete-wmap with the
// arguments after `wmap`, the last one being typed, and reads cobra's answer, which `__complete` gives.
require('./cli-run.cjs').start('kubectl wmap', ['__complete', ...process.argv.slice(2)]);
