import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatGpus } from '../../lib/format/gpus.ts';
import { jobSetTree, jobSetUsage, usageFigures } from '../graph/test-trees.ts';
import { roleUsageRows, usedOfText } from './usage-model.ts';

test('one utilization row per role, in the tree order; instances only when a role has several', () => {
  const tree = jobSetTree(1, 2);
  const rows = roleUsageRows(tree, jobSetUsage());
  assert.deepEqual(rows.map((r) => `${r.name} ${r.figures.utilization}% idle ${r.figures.idle} (${r.instances.length} instances)`), ['leader 0% idle 4 (0 instances)', 'worker 100% idle 0 (0 instances)']);

  // Two instances under one role name (groups `a` and `b` of a worker role): both listed.
  const usage = jobSetUsage();
  usage.roles = [{ name: 'worker', figures: usageFigures({ allocated: 8 }) }];
  usage.instances = [
    { component: 'group', instance: 'a', figures: usageFigures({ allocated: 4, utilization: 10 }) },
    { component: 'group', instance: 'b', figures: usageFigures({ allocated: 4, utilization: 90 }) },
  ];
  tree.roles = [
    { ...tree.roles[1], component: 'group', instance: 'a' },
    { ...tree.roles[1], component: 'group', instance: 'b' },
  ];
  assert.deepEqual(roleUsageRows(tree, usage)[0].instances.map((i) => `${i.instance}:${i.figures.utilization}`), ['a:10', 'b:90']);
});

test('used out of allocated, out of measured when some GPUs have no readings, n/a without any', () => {
  assert.equal(usedOfText(usageFigures({ allocated: 4, measured: 4, used: 3.25 }), formatGpus), '3.25 / 4');
  assert.equal(usedOfText(usageFigures({ allocated: 4, measured: 2, used: 1 }), formatGpus), '1 / 2 measured of 4');
  assert.equal(usedOfText(usageFigures({ allocated: 4 }), formatGpus), 'n/a');
});
