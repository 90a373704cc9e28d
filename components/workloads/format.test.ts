import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatGpus } from '../../lib/format/gpus.ts';
import { amountsText, describeResource, gpuResources, migProfiles, sumAmounts } from './format.ts';
import { frameworkOf } from './framework.ts';


test('GPU amounts and resource names; MIG shown as such', () => {
  assert.equal(formatGpus(4), '4');
  assert.equal(formatGpus(0.5 + 0.25), '0.75');
  assert.equal(formatGpus(1 / 3), '0.33');
  assert.deepEqual(describeResource('nvidia.com/mig-1g.5gb'), { label: 'MIG 1g.5gb', mig: true });
  assert.equal(describeResource('nvidia.com/gpu').label, 'GPU');
  assert.equal(describeResource('gpu.intel.com/i915').label, 'Intel GPU (i915)');
  const amounts = { 'nvidia.com/mig-1g.5gb': 2, 'nvidia.com/gpu': 4, 'amd.com/gpu': 0 };
  assert.deepEqual(gpuResources(amounts).map((r) => r.label), ['GPU', 'MIG 1g.5gb']);
  assert.equal(amountsText(amounts), '4 nvidia.com/gpu, 2 nvidia.com/mig-1g.5gb');
  assert.equal(amountsText({}), 'none');
  assert.deepEqual(migProfiles(amounts, { 'nvidia.com/mig-3g.20gb': 1 }), ['1g.5gb', '3g.20gb']);
  assert.equal(sumAmounts(amounts), 6);
});

test('frameworks by API group, with short icon letters', () => {
  assert.deepEqual(frameworkOf('jobset.x-k8s.io/v1alpha2', 'JobSet').abbr, 'JS');
  assert.equal(frameworkOf('serving.knative.dev/v1', 'Service').framework, 'Knative');
  assert.equal(frameworkOf('v1', 'Pod').framework, 'Kubernetes core');
  assert.equal(frameworkOf('example.com/v1', 'FancyTrainingRun').abbr, 'FTR');
});
