import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseExposition } from './exposition.ts';
import { isDcgmMetric, readingsOf } from './dcgm.ts';
import { IdleTracker } from './idle-tracker.ts';

const EXPORTER_TEXT = `# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).
# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-aaa",pci_bus_id="00000000:07:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-1",container="trainer",namespace="team-a",pod="train-0"} 97
DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-bbb",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-1"} 0
DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-aaa",Hostname="gpu-1",container="trainer",namespace="team-a",pod="train-0"} 61000
DCGM_FI_DEV_FB_FREE{gpu="0",UUID="GPU-aaa",Hostname="gpu-1",container="trainer",namespace="team-a",pod="train-0"} 20559
DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-aaa",Hostname="gpu-1"} 612.5
# MIG: engine activity per instance; GPU_UTIL is the parent's and must not be read per instance
DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu="2",UUID="GPU-ccc",GPU_I_PROFILE="1g.10gb",GPU_I_ID="7",Hostname="gpu-1",namespace="team-b",pod="embed-0"} 0.25
DCGM_FI_DEV_GPU_UTIL{gpu="2",UUID="GPU-ccc",GPU_I_PROFILE="1g.10gb",GPU_I_ID="7",Hostname="gpu-1",namespace="team-b",pod="embed-0"} 88
DCGM_FI_DEV_GPU_UTIL{gpu="3",UUID="GPU-ddd",Hostname="gpu-1",pod="a\\"b\\\\c",namespace="x"} NaN
this is not a sample
DCGM_FI_DEV_GPU_UTIL{gpu="4",UUID="GPU-eee",Hostname="gpu-1" 12
`;

test('exposition: samples with escaped labels, comments skipped, malformed lines counted, unwanted names dropped', () => {
  const all = parseExposition(EXPORTER_TEXT);
  assert.equal(all.samples.length, 8);
  assert.equal(all.malformed, 2);
  assert.equal(all.firstMalformed, 'this is not a sample');
  assert.equal(all.samples[7].labels.pod, 'a"b\\c');
  assert.ok(Number.isNaN(all.samples[7].value));
  const wanted = parseExposition(EXPORTER_TEXT, isDcgmMetric);
  assert.equal(wanted.samples.some((s) => s.name === 'DCGM_FI_DEV_POWER_USAGE'), false);
  assert.equal(parseExposition('m 1 1700000000000\nm{a="1"} +Inf\nm -2.5e3').samples.map((s) => s.value).join(), '1,Infinity,-2500');
});

test('readings: one per device and pod; memory; a MIG instance by engine activity only; NaN is no figure', () => {
  const r = readingsOf(parseExposition(EXPORTER_TEXT, isDcgmMetric).samples);
  const byUuid = new Map(r.map((x) => [`${x.uuid}/${x.mig?.instance ?? ''}`, x]));
  const train = byUuid.get('GPU-aaa/')!;
  assert.deepEqual([train.pod, train.namespace, train.container, train.utilization, train.memUsedMiB, train.memFreeMiB, train.model], ['train-0', 'team-a', 'trainer', 97, 61000, 20559, 'NVIDIA H100 80GB HBM3']);
  const free = byUuid.get('GPU-bbb/')!;
  assert.deepEqual([free.pod, free.namespace, free.utilization], [null, null, 0]);
  const mig = byUuid.get('GPU-ccc/7')!;
  assert.deepEqual(mig.mig, { profile: '1g.10gb', instance: '7' });
  assert.equal(mig.utilization, 25);
  assert.equal(byUuid.get('GPU-ddd/')!.utilization, null);
});

test('readings: Prometheus without honor_labels renames pod labels to exported_*; those are the pod', () => {
  const [r] = readingsOf([{ name: 'DCGM_FI_DEV_GPU_UTIL', value: 40, labels: { gpu: '0', UUID: 'GPU-x', Hostname: 'n1', pod: 'dcgm-exporter-abc', namespace: 'gpu-operator', exported_pod: 'serve-1', exported_namespace: 'team-c' } }]);
  assert.deepEqual([r.namespace, r.pod], ['team-c', 'serve-1']);
  // Whole GPUs fall back to engine activity when GPU_UTIL is not exported.
  const [e] = readingsOf([{ name: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE', value: 0.5, labels: { gpu: '0', UUID: 'GPU-y', Hostname: 'n1' } }]);
  assert.equal(e.utilization, 50);
});

const reading = (util: number | null, windowMax?: number | null) => ({ key: 'n/G/ns/p', node: 'n', gpu: '0', uuid: 'G', model: null, mig: null, namespace: 'ns', pod: 'p', container: null, utilization: util, memUsedMiB: null, memFreeMiB: null, ...(windowMax !== undefined ? { windowMax } : {}) });

test('idle without history: unknown until watched for a whole window; busy resets; since is the last busy reading', () => {
  const t = new IdleTracker({ thresholdPercent: 5, windowSeconds: 60 });
  const key = reading(0).key;
  const at = (s: number) => s * 1000;
  assert.deepEqual(t.update([reading(0)], at(0)).get(key), { idle: null, since: null });
  assert.deepEqual(t.update([reading(1)], at(30)).get(key), { idle: null, since: null });
  assert.deepEqual(t.update([reading(2)], at(60)).get(key), { idle: true, since: at(0) });
  assert.deepEqual(t.update([reading(50)], at(90)).get(key), { idle: false, since: null });
  assert.deepEqual(t.update([reading(0)], at(120)).get(key), { idle: false, since: null });
  assert.deepEqual(t.update([reading(0)], at(150)).get(key), { idle: true, since: at(90) });
  assert.deepEqual(t.update([reading(null)], at(160)).get(key), { idle: null, since: null });
  // A reading that disappears is forgotten: seen again, it starts over.
  t.update([], at(170));
  assert.deepEqual(t.update([reading(0)], at(180)).get(key), { idle: null, since: null });
});

test('idle with history: the window maximum decides; since comes from the look-back, else the window start', () => {
  const t = new IdleTracker({ thresholdPercent: 5, windowSeconds: 900 });
  const key = reading(0).key;
  const now = Date.parse('2026-12-03T10:00:00Z');
  // A burst inside the window (between two refreshes) keeps it busy though the current value is 0.
  assert.deepEqual(t.update([reading(0, 80)], now).get(key), { idle: false, since: null });
  // Next refresh: the burst left the window; idle since at least the window's start one refresh ago.
  const s = t.update([reading(0, 2)], now + 30_000);
  assert.deepEqual(s.get(key), { idle: true, since: now - 900_000 });
  assert.deepEqual(t.unseeded(s), []);
  // A reading idle when first seen asks the history once.
  const fresh = new IdleTracker({ thresholdPercent: 5, windowSeconds: 900 });
  const first = fresh.update([reading(0, 1)], now);
  assert.deepEqual(first.get(key), { idle: true, since: now - 900_000 });
  assert.deepEqual(fresh.unseeded(first), [key]);
  fresh.seed(key, now - 3_600_000, now - 86_400_000);
  assert.equal(fresh.sinceOf(key), now - 3_600_000);
  assert.deepEqual(fresh.unseeded(fresh.update([reading(0, 1)], now + 30_000)), []);
  assert.deepEqual(fresh.update([reading(0, 1)], now + 60_000).get(key), { idle: true, since: now - 3_600_000 });
  // No sample in the window at all: the refreshes' own readings decide (idle since it was last seen busy).
  assert.deepEqual(fresh.update([reading(null, null)], now + 90_000).get(key), { idle: null, since: null });
  assert.deepEqual(fresh.update([reading(0, null)], now + 120_000).get(key), { idle: true, since: now - 3_600_000 });
  assert.deepEqual(fresh.update([reading(9, null)], now + 150_000).get(key), { idle: false, since: null });
});
