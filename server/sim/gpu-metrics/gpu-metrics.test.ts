import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryStore } from '../store/memory-store.ts';
import type { KubeObject } from '../store/object-store.ts';
import { nodeObject } from '../scenarios/node-pools.ts';
import { DeviceTracker } from './device-tracker.ts';
import { renderExposition } from './exposition.ts';
import { groundTruthUsage, nodeUsage } from './gpu-usage.ts';
import { BUSY_THEN_IDLE_MS, LOAD_LABEL, loadAt, profileOf } from './load-model.ts';
import { nodeDevices } from './node-devices.ts';

const T0 = Date.UTC(2026, 0, 1);

function store(): MemoryStore {
  let now = T0;
  const s = new MemoryStore({ now: () => new Date((now += 1000)), initialResourceVersion: 1 });
  s.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
  return s;
}

function gpuPod(name: string, node: string | undefined, resources: Record<string, number>, extra: { labels?: Record<string, string>; phase?: string; containers?: Array<{ name: string; res: Record<string, number> }>; owner?: KubeObject } = {}): KubeObject {
  const containers = extra.containers ?? [{ name: 'trainer', res: resources }];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'team-a',
      ...(extra.labels ? { labels: extra.labels } : {}),
      ...(extra.owner ? { ownerReferences: [{ apiVersion: extra.owner.apiVersion, kind: extra.owner.kind, name: extra.owner.metadata.name!, uid: extra.owner.metadata.uid!, controller: true }] } : {}),
    },
    spec: { ...(node ? { nodeName: node } : {}), containers: [{ name: 'sidecar', image: 'x' }, ...containers.map((c) => ({ name: c.name, image: 'y', resources: { limits: Object.fromEntries(Object.entries(c.res).map(([k, v]) => [k, String(v)])) } }))] },
    status: { phase: extra.phase ?? 'Running', startTime: new Date(T0).toISOString().replace('.000Z', 'Z') },
  };
}

function setPhase(s: MemoryStore, name: string, phase: string): void {
  const p = s.get('v1', 'Pod', 'team-a', name)!;
  s.updateStatus({ ...p, status: { ...(p.status as object), phase } });
}

/** A tiny exposition parser: `name{labels} value` lines, HELP/TYPE remembered per metric. */
function parseExposition(text: string): { samples: Array<{ name: string; labels: Record<string, string>; value: number }>; types: Map<string, string>; helps: Map<string, string> } {
  const samples: Array<{ name: string; labels: Record<string, string>; value: number }> = [];
  const types = new Map<string, string>();
  const helps = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (!line) continue;
    let m = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (m) {
      types.set(m[1], m[2]);
      continue;
    }
    m = /^# HELP (\S+) (.*)$/.exec(line);
    if (m) {
      helps.set(m[1], m[2]);
      continue;
    }
    m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/g;
    for (let l = re.exec(m[2] ?? ''); l; l = re.exec(m[2] ?? '')) labels[l[1]] = l[2].replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return { samples, types, helps };
}

test('node devices: whole GPUs, mixed-strategy MIG instances after them, deterministic UUIDs and PCI ids, memory from the label', () => {
  const h100 = nodeDevices(nodeObject('h100', 0, 0))!;
  assert.equal(h100.devices.length, 8);
  assert.equal(h100.devices[0].modelName, 'NVIDIA H100 80GB HBM3');
  assert.equal(h100.devices[0].memoryMiB, 81559);
  assert.match(h100.devices[3].uuid, /^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.equal(nodeDevices(nodeObject('h100', 0, 0))!.devices[3].uuid, h100.devices[3].uuid);
  assert.notEqual(nodeDevices(nodeObject('h100', 1, 1))!.devices[3].uuid, h100.devices[3].uuid);
  assert.equal(h100.devices[0].pciBusId, '00000000:18:00.0');
  assert.equal(h100.driverVersion, '570.133.20');
  const mig = nodeDevices(nodeObject('a100-mig', 0, 0))!;
  // 4 whole + 2 × (7 × 1g.10gb) + 2 × (2 × 3g.40gb)
  assert.equal(mig.devices.length, 8);
  assert.deepEqual(mig.devices.slice(0, 4).map((d) => d.mig), [undefined, undefined, undefined, undefined]);
  assert.deepEqual(mig.devices[4].mig?.map((i) => `${i.profile}/${i.instance}/${i.memoryMiB}`), ['1g.10gb/7/9856', '1g.10gb/8/9856', '1g.10gb/9/9856', '1g.10gb/10/9856', '1g.10gb/11/9856', '1g.10gb/12/9856', '1g.10gb/13/9856']);
  assert.deepEqual(mig.devices[6].mig?.map((i) => `${i.profile}/${i.instance}`), ['3g.40gb/1', '3g.40gb/2']);
  assert.equal(mig.units.get('nvidia.com/mig-1g.10gb')!.length, 14);
  assert.equal(mig.units.get('nvidia.com/gpu')!.length, 4);
  assert.equal(nodeDevices(nodeObject('cpu', 0, 0)), undefined);
  assert.equal(nodeDevices(nodeObject('l4', 0, 0))!.devices[0].memoryMiB, 23034);
});

test('device assignment: lowest free units at binding, stable while the pod lives, released when it ends, never beyond capacity', () => {
  const s = store();
  s.create(nodeObject('h100', 0, 0));
  const t = new DeviceTracker(s);
  const gpus = (name: string): number[] => t.unitsOf('team-a', name).map((u) => u.device);
  s.create(gpuPod('a', 'gpu-h100-00', { 'nvidia.com/gpu': 2 }));
  s.create(gpuPod('b', 'gpu-h100-00', { 'nvidia.com/gpu': 4 }));
  s.create(gpuPod('c', 'gpu-h100-00', { 'nvidia.com/gpu': 2 }));
  s.create(gpuPod('d', 'gpu-h100-00', { 'nvidia.com/gpu': 2 }));
  s.create(gpuPod('unbound', undefined, { 'nvidia.com/gpu': 1 }, { phase: 'Pending' }));
  assert.deepEqual(gpus('a'), [0, 1]);
  assert.deepEqual(gpus('b'), [2, 3, 4, 5]);
  assert.deepEqual(gpus('c'), [6, 7]);
  assert.deepEqual(gpus('d'), [], 'no room left: holds nothing');
  assert.deepEqual(gpus('unbound'), []);
  assert.equal(t.unitsOf('team-a', 'b')[0].container, 'trainer', 'the container asking for the GPUs, not the first container');
  setPhase(s, 'a', 'Succeeded');
  assert.deepEqual(gpus('a'), []);
  assert.deepEqual(gpus('d'), [0, 1], 'the waiting pod gets what was released');
  assert.deepEqual(gpus('b'), [2, 3, 4, 5], 'others keep theirs');
  s.delete('v1', 'Pod', 'team-a', 'b');
  s.create(gpuPod('e', 'gpu-h100-00', { 'nvidia.com/gpu': 3 }));
  assert.deepEqual(gpus('e'), [2, 3, 4]);
  assert.deepEqual(gpus('c'), [6, 7]);
  const held = nodeUsage(t.node('gpu-h100-00')!, 1, T0).filter((u) => u.pod);
  assert.deepEqual(held.map((u) => `${u.gpu}:${u.pod}`), ['0:d', '1:d', '2:e', '3:e', '4:e', '6:c', '7:c']);

  // A tracker built later from the same store (a restart) assigns by creation order, then name.
  const s2 = store();
  s2.create(nodeObject('h100', 0, 0));
  s2.create(gpuPod('zeta', 'gpu-h100-00', { 'nvidia.com/gpu': 1 }));
  s2.create(gpuPod('alpha', 'gpu-h100-00', { 'nvidia.com/gpu': 1 }));
  const t2 = new DeviceTracker(s2);
  assert.deepEqual(t2.unitsOf('team-a', 'zeta').map((u) => u.device), [0]);
  assert.deepEqual(t2.unitsOf('team-a', 'alpha').map((u) => u.device), [1]);
  t.stop();
  t2.stop();
});

test('MIG: instances of the asked profile, one series per instance with GPU_I_PROFILE/GPU_I_ID, no GPU_UTIL for them', () => {
  const s = store();
  s.create(nodeObject('a100-mig', 0, 0));
  const t = new DeviceTracker(s);
  s.create(gpuPod('small', 'gpu-a100-mig-00', { 'nvidia.com/mig-1g.10gb': 2 }));
  s.create(gpuPod('mid', 'gpu-a100-mig-00', { 'nvidia.com/mig-3g.40gb': 1 }));
  s.create(gpuPod('whole', 'gpu-a100-mig-00', { 'nvidia.com/gpu': 1 }));
  const units = nodeUsage(t.node('gpu-a100-mig-00')!, 3, T0 + 60_000);
  const { samples } = parseExposition(renderExposition(units, '570.133.20'));
  const util = samples.filter((x) => x.name === 'DCGM_FI_DEV_GPU_UTIL');
  assert.equal(util.length, 4, 'only the 4 whole devices');
  assert.ok(util.every((x) => x.labels.GPU_I_PROFILE === undefined));
  const engine = samples.filter((x) => x.name === 'DCGM_FI_PROF_GR_ENGINE_ACTIVE' && x.labels.GPU_I_PROFILE);
  assert.equal(engine.length, 14 + 4);
  const small = engine.filter((x) => x.labels.pod === 'small');
  assert.deepEqual(small.map((x) => `${x.labels.gpu}/${x.labels.GPU_I_PROFILE}/${x.labels.GPU_I_ID}`), ['4/1g.10gb/7', '4/1g.10gb/8']);
  assert.equal(small[0].labels.UUID, units.find((u) => u.gpu === 4)!.uuid, 'the parent device');
  const mid = samples.filter((x) => x.labels.pod === 'mid' && x.name === 'DCGM_FI_DEV_FB_USED');
  assert.deepEqual(mid.map((x) => x.labels.GPU_I_ID), ['1']);
  const free = samples.find((x) => x.labels.pod === 'mid' && x.name === 'DCGM_FI_DEV_FB_FREE')!;
  assert.equal(mid[0].value + free.value, 40192, 'instance memory');
  assert.equal(samples.find((x) => x.name === 'DCGM_FI_DEV_GPU_UTIL' && x.labels.pod === 'whole')?.labels.gpu, '0');
  t.stop();
});

test('exposition: HELP/TYPE per metric, the real label set, no pod labels on unheld GPUs, values as the ground truth says', () => {
  const s = store();
  s.create(nodeObject('h100', 0, 0));
  s.create(gpuPod('llama-train-worker-0', 'gpu-h100-00', { 'nvidia.com/gpu': 1 }, { labels: { [LOAD_LABEL]: 'saturated' } }));
  const t = new DeviceTracker(s);
  const at = T0 + 123_456;
  const text = renderExposition(nodeUsage(t.node('gpu-h100-00')!, 9, at), '570.133.20');
  const { samples, types, helps } = parseExposition(text);
  assert.equal(helps.get('DCGM_FI_DEV_GPU_UTIL'), 'GPU utilization (in %).');
  for (const n of ['DCGM_FI_DEV_GPU_UTIL', 'DCGM_FI_DEV_FB_USED', 'DCGM_FI_DEV_FB_FREE', 'DCGM_FI_DEV_POWER_USAGE', 'DCGM_FI_DEV_GPU_TEMP', 'DCGM_FI_PROF_GR_ENGINE_ACTIVE']) assert.equal(types.get(n), 'gauge', n);
  const util = samples.filter((x) => x.name === 'DCGM_FI_DEV_GPU_UTIL');
  assert.equal(util.length, 8);
  const held = util.find((x) => x.labels.gpu === '0')!;
  assert.deepEqual(Object.keys(held.labels), ['gpu', 'UUID', 'pci_bus_id', 'device', 'modelName', 'Hostname', 'DCGM_FI_DRIVER_VERSION', 'container', 'namespace', 'pod']);
  assert.deepEqual([held.labels.device, held.labels.modelName, held.labels.Hostname, held.labels.container, held.labels.namespace, held.labels.pod], ['nvidia0', 'NVIDIA H100 80GB HBM3', 'gpu-h100-00', 'trainer', 'team-a', 'llama-train-worker-0']);
  assert.ok(held.value >= 99 && held.value <= 100);
  for (const x of util.filter((u) => u.labels.gpu !== '0')) {
    assert.equal(x.labels.pod, undefined);
    assert.equal(x.value, 0);
  }
  assert.ok(!/\d \d+$/m.test(text), 'no timestamps');
  const gt = groundTruthUsage(s, 9, at);
  assert.equal(gt.at, new Date(Math.floor(at / 10_000) * 10_000).toISOString());
  for (const g of gt.gpus) {
    const u = util.find((x) => x.labels.gpu === String(g.gpu))!;
    assert.equal(u.value, g.utilization);
    assert.equal(samples.find((x) => x.name === 'DCGM_FI_DEV_FB_USED' && x.labels.gpu === String(g.gpu))!.value, g.memoryUsedMiB);
    assert.equal(g.memoryTotalMiB, 81559);
  }
  const unheld = gt.gpus.find((g) => g.gpu === 5)!;
  assert.deepEqual([unheld.pod, unheld.namespace, unheld.container, unheld.mig], [null, null, null, null]);
  assert.equal(unheld.memoryUsedMiB, Math.round(81559 * 0.005));
  t.stop();
});

test('load model: profiles by label, else by top owner; values per profile; constant within a bucket; seeded', () => {
  assert.equal(profileOf('idle', 'Job'), 'idle');
  assert.equal(profileOf('bogus', 'Deployment'), 'inference');
  assert.equal(profileOf(undefined, 'PyTorchJob'), 'training');
  assert.equal(profileOf(undefined, 'DynamoGraphDeployment'), 'inference');
  assert.equal(profileOf(undefined, undefined), 'training');
  const args = { seed: 1, key: 'ns/p/GPU-1', startedAt: T0 };
  for (let i = 0; i < 200; i++) {
    const at = T0 + i * 10_000;
    const tr = loadAt({ ...args, profile: 'training', at });
    assert.ok(tr.utilization >= 88 && tr.utilization <= 99 && tr.memory >= 0.69 && tr.memory <= 0.96, JSON.stringify(tr));
    const inf = loadAt({ ...args, profile: 'inference', at });
    assert.ok(inf.utilization >= 15 && inf.utilization <= 95 && inf.memory >= 0.54 && inf.memory <= 0.81);
    assert.deepEqual(loadAt({ ...args, profile: 'idle', at }).utilization, 0);
    assert.ok(loadAt({ ...args, profile: 'saturated', at }).utilization >= 99);
    assert.deepEqual(loadAt({ ...args, profile: 'training', at: at + 9_999 }), tr, 'same bucket, same figures');
  }
  const inference = Array.from({ length: 120 }, (_, i) => loadAt({ ...args, profile: 'inference', at: T0 + i * 60_000 }).utilization);
  assert.ok(inference.some((u) => u >= 70) && inference.some((u) => u <= 35), 'bursty');
  assert.ok(loadAt({ ...args, profile: 'busy-then-idle', at: T0 + BUSY_THEN_IDLE_MS - 10_000 }).utilization >= 88);
  assert.equal(loadAt({ ...args, profile: 'busy-then-idle', at: T0 + BUSY_THEN_IDLE_MS }).utilization, 0);
  const a = Array.from({ length: 20 }, (_, i) => loadAt({ ...args, profile: 'training', at: T0 + i * 10_000 }).utilization);
  const b = Array.from({ length: 20 }, (_, i) => loadAt({ ...args, seed: 2, profile: 'training', at: T0 + i * 10_000 }).utilization);
  assert.notDeepEqual(a, b);
});

test('tracker: the profile follows the top owner through ownerReferences, and the load label when it changes', () => {
  const s = store();
  s.create(nodeObject('h100', 0, 0));
  const dep = s.create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'serve', namespace: 'team-a' }, spec: {} });
  const rs = s.create({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'serve-1', namespace: 'team-a', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'serve', uid: dep.metadata.uid!, controller: true }] }, spec: {} });
  const js = s.create({ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'train', namespace: 'team-a' }, spec: {} });
  const job = s.create({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'train-w-0', namespace: 'team-a', ownerReferences: [{ apiVersion: js.apiVersion, kind: 'JobSet', name: 'train', uid: js.metadata.uid!, controller: true }] }, spec: {} });
  const t = new DeviceTracker(s);
  s.create(gpuPod('serve-1-x', 'gpu-h100-00', { 'nvidia.com/gpu': 1 }, { owner: rs }));
  s.create(gpuPod('train-w-0-0', 'gpu-h100-00', { 'nvidia.com/gpu': 1 }, { owner: job }));
  const profile = (pod: string): string => t.node('gpu-h100-00')!.holders.get('nvidia.com/gpu')!.find((h) => h?.holder.pod === pod)!.holder.profile;
  assert.equal(profile('serve-1-x'), 'inference');
  assert.equal(profile('train-w-0-0'), 'training');
  const p = s.get('v1', 'Pod', 'team-a', 'train-w-0-0')!;
  s.update({ ...p, metadata: { ...p.metadata, labels: { [LOAD_LABEL]: 'idle' } } });
  assert.equal(profile('train-w-0-0'), 'idle');
  t.stop();
});

test('time-slicing: every sharing pod gets a series with the device figures', () => {
  const s = store();
  const node = nodeObject('l4', 0, 0);
  const status = node.status as { capacity: Record<string, string>; allocatable: Record<string, string> };
  delete status.capacity['nvidia.com/gpu'];
  delete status.allocatable['nvidia.com/gpu'];
  status.capacity['nvidia.com/gpu.shared'] = '16';
  status.allocatable['nvidia.com/gpu.shared'] = '16';
  s.create({ ...node, metadata: { ...node.metadata, labels: { ...node.metadata.labels, 'nvidia.com/gpu.replicas': '4', 'nvidia.com/gpu.product': 'NVIDIA-L4-SHARED' } } });
  const t = new DeviceTracker(s);
  s.create(gpuPod('x', 'gpu-l4-00', { 'nvidia.com/gpu.shared': 1 }));
  s.create(gpuPod('y', 'gpu-l4-00', { 'nvidia.com/gpu.shared': 1 }));
  const units = nodeUsage(t.node('gpu-l4-00')!, 1, T0);
  assert.equal(new Set(units.map((u) => u.gpu)).size, 4, '16 replicas of 4 devices');
  const dev0 = units.filter((u) => u.gpu === 0);
  assert.deepEqual(dev0.map((u) => u.pod), ['x', 'y']);
  assert.equal(dev0[0].utilization, dev0[1].utilization);
  assert.equal(dev0[0].memoryUsedMiB, dev0[1].memoryUsedMiB);
  assert.equal(dev0[0].modelName, 'NVIDIA L4');
  t.stop();
});
