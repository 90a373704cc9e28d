import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpuResourceMatcher, podSpecGpus } from './gpu.ts';
import { parseQuantity } from './quantity.ts';

const c = (requests?: Record<string, unknown>, limits?: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ name: 'c', resources: { requests, limits }, ...extra });

test('quantities parse like Kubernetes', () => {
  assert.equal(parseQuantity('4'), 4);
  assert.equal(parseQuantity(2), 2);
  assert.equal(parseQuantity('500m'), 0.5);
  assert.equal(parseQuantity('1Ki'), 1024);
  assert.equal(parseQuantity('2e3'), 2000);
  assert.equal(parseQuantity('four'), null);
  assert.equal(parseQuantity({}), null);
});

test('limit-only GPU containers request their limit; requests win when both are set', () => {
  assert.deepEqual(podSpecGpus({ containers: [c(undefined, { 'nvidia.com/gpu': 4 })] }), { 'nvidia.com/gpu': 4 });
  assert.deepEqual(podSpecGpus({ containers: [c({ 'nvidia.com/gpu': '2' }, { 'nvidia.com/gpu': '2' }), c(undefined, { 'nvidia.com/gpu': '1' })] }), { 'nvidia.com/gpu': 3 });
});

test('GPU resource kinds: MIG, shared, AMD, Intel; CPU and memory are not GPUs', () => {
  const spec = {
    containers: [
      c({ cpu: '4', memory: '16Gi' }, { 'nvidia.com/mig-1g.10gb': 2, 'amd.com/gpu': 1 }),
      c(undefined, { 'nvidia.com/gpu.shared': 1, 'gpu.intel.com/i915': 1, 'example.com/fpga': 1 }),
    ],
  };
  assert.deepEqual(podSpecGpus(spec), { 'nvidia.com/mig-1g.10gb': 2, 'amd.com/gpu': 1, 'nvidia.com/gpu.shared': 1, 'gpu.intel.com/i915': 1 });
  const custom = gpuResourceMatcher(['example.com/fpga']);
  assert.deepEqual(podSpecGpus(spec, custom), { 'example.com/fpga': 1 });
});

test('init containers: the pod needs the larger of the biggest init container and the app sum', () => {
  const spec = { initContainers: [c(undefined, { 'nvidia.com/gpu': 8 })], containers: [c(undefined, { 'nvidia.com/gpu': 2 }), c(undefined, { 'nvidia.com/gpu': 2 })] };
  assert.deepEqual(podSpecGpus(spec), { 'nvidia.com/gpu': 8 });
  const small = { initContainers: [c(undefined, { 'nvidia.com/gpu': 1 })], containers: [c(undefined, { 'nvidia.com/gpu': 4 })] };
  assert.deepEqual(podSpecGpus(small), { 'nvidia.com/gpu': 4 });
});

test('sidecar init containers keep running and add to the app containers', () => {
  const spec = {
    initContainers: [c(undefined, { 'nvidia.com/gpu': 1 }, { restartPolicy: 'Always' }), c(undefined, { 'nvidia.com/gpu': 2 })],
    containers: [c(undefined, { 'nvidia.com/gpu': 4 })],
  };
  // steady state 4 + 1 sidecar = 5; during the second init container 1 + 2 = 3.
  assert.deepEqual(podSpecGpus(spec), { 'nvidia.com/gpu': 5 });
});

test('malformed specs yield no GPUs instead of throwing', () => {
  assert.deepEqual(podSpecGpus(null), {});
  assert.deepEqual(podSpecGpus({ containers: 'x' }), {});
  assert.deepEqual(podSpecGpus({ containers: [null, { resources: 'x' }, c(undefined, { 'nvidia.com/gpu': 'lots' })] }), {});
});

test('a null request is absent: the limit applies', () => {
  assert.deepEqual(podSpecGpus({ containers: [c({ 'nvidia.com/gpu': null }, { 'nvidia.com/gpu': 2 })] }), { 'nvidia.com/gpu': 2 });
});
