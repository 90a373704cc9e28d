import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chooseGpuResources } from './gpu-resources.ts';

const dir = mkdtempSync(join(tmpdir(), 'wmap-gpu-'));
const file = (text: string) => { const f = join(dir, `c${Math.random()}.yaml`); writeFileSync(f, text); return f; };

test('flag over environment over config file over defaults', () => {
  const cfg = file('gpuResources: [example.com/npu, habana.ai/gaudi*]\n');
  assert.deepEqual(chooseGpuResources({ flag: 'nvidia.com/gpu,amd.com/gpu', env: { WMAP_GPU_RESOURCES: 'x.io/y' }, file: cfg }), { patterns: ['nvidia.com/gpu', 'amd.com/gpu'], source: '--gpu-resources' });
  assert.deepEqual(chooseGpuResources({ env: { WMAP_GPU_RESOURCES: 'x.io/y nvidia.com/mig-*' }, file: cfg }).patterns, ['x.io/y', 'nvidia.com/mig-*']);
  assert.deepEqual(chooseGpuResources({ env: {}, file: cfg }), { patterns: ['example.com/npu', 'habana.ai/gaudi*'], source: cfg });
  const d = chooseGpuResources({ env: {}, file: join(dir, 'missing.yaml') });
  assert.equal(d.source, 'defaults');
  assert.ok(d.patterns.includes('nvidia.com/gpu'));
});

test('a malformed list is an error naming the entry and where it came from', () => {
  assert.throws(() => chooseGpuResources({ flag: 'nvidia.com/gpu,not a name' }), /--gpu-resources: entry 2 \("not"\)|--gpu-resources: entry 3/);
  assert.throws(() => chooseGpuResources({ flag: 'gpu' }), /--gpu-resources: entry 1 \("gpu"\) is not a resource name/);
  assert.throws(() => chooseGpuResources({ env: {}, file: file('gpuResources: nvidia.com/gpu\n') }), /gpuResources: a non-empty list/);
  assert.throws(() => chooseGpuResources({ env: {}, file: file('gpuResources: [1]\n') }), /entry 1 \(1\)/);
  assert.throws(() => chooseGpuResources({ env: {}, file: file(': : :\n  - [\n') }), /not YAML/);
});
