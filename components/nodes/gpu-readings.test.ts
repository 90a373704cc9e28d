import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sortedReadings, type NodeReading } from './gpu-readings.ts';

const r = (gpu: string, instance?: string): NodeReading => ({
  node: 'n', gpu, uuid: `GPU-${gpu}`, model: null, mig: instance ? { profile: '1g.10gb', instance } : null, utilization: null, memory: null, idle: null, idleSince: null, shared: false, worth: 1, pod: null,
});

test('device readings in device order: 2 before 10, MIG instances in order within a device', () => {
  const sorted = sortedReadings([r('10'), r('2'), r('0', '11'), r('0', '3')]);
  assert.deepEqual(sorted.map((x) => `${x.gpu}${x.mig ? `/${x.mig.instance}` : ''}`), ['0/3', '0/11', '2', '10']);
});
