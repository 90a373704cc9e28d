import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deviceWorth, migProfileOf, nodeGpuInfo } from './device-worth.ts';

const near = (a: number | null, b: number) => assert.ok(a !== null && Math.abs(a - b) < 1e-9, `${a} ≉ ${b}`);

test('MIG slices count as their compute slices over the device: 7 on H100/A100, 4 on A30', () => {
  near(deviceWorth('nvidia.com/mig-1g.10gb', nodeGpuInfo({ 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3' })), 1 / 7);
  near(deviceWorth('nvidia.com/mig-3g.40gb', nodeGpuInfo({ 'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-80GB' })), 3 / 7);
  near(deviceWorth('nvidia.com/mig-1g.6gb', nodeGpuInfo({ 'nvidia.com/gpu.product': 'NVIDIA-A30' })), 1 / 4);
  near(deviceWorth('nvidia.com/mig-2g.12gb', null), 2 / 4);
  near(deviceWorth('nvidia.com/mig-4g.24gb', null), 4 / 4);
  near(deviceWorth('nvidia.com/mig-1g.5gb', null), 1 / 7);
  near(deviceWorth('nvidia.com/mig-7g.80gb', null), 1);
  assert.deepEqual(migProfileOf('nvidia.com/mig-1g.10gb+me'), { name: '1g.10gb+me', slices: 1, memoryGb: 10 });
});

test('the single MIG strategy: nvidia.com/gpu on a MIG node is a slice', () => {
  near(deviceWorth('nvidia.com/gpu', nodeGpuInfo({ 'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-40GB-MIG-1g.5gb', 'nvidia.com/mig.strategy': 'single' })), 1 / 7);
  near(deviceWorth('nvidia.com/gpu', nodeGpuInfo({ 'nvidia.com/gpu.product': 'NVIDIA-A30-MIG-2g.12gb' })), 2 / 4);
});

test('time-sliced replicas are 1/replicas when the node says so, else unknown', () => {
  near(deviceWorth('nvidia.com/gpu.shared', nodeGpuInfo({ 'nvidia.com/gpu.replicas': '4' })), 0.25);
  assert.equal(deviceWorth('nvidia.com/gpu.shared', nodeGpuInfo({})), null);
  assert.equal(deviceWorth('nvidia.com/gpu.shared', null), null);
  near(deviceWorth('nvidia.com/gpu', nodeGpuInfo({ 'nvidia.com/gpu.replicas': '2' })), 0.5);
  near(deviceWorth('nvidia.com/gpu', null), 1);
});

test('other vendors: whole devices, Intel millicores a thousandth', () => {
  near(deviceWorth('amd.com/gpu', null), 1);
  near(deviceWorth('gpu.intel.com/i915', null), 1);
  near(deviceWorth('gpu.intel.com/millicores', null), 0.001);
});
