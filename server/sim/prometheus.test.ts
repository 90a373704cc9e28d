/**
 * A real Prometheus (Debian's 2.42 at /usr/bin/prometheus, else whatever `prometheus` is on PATH)
 * scraping the demo cluster's DCGM exporters through the API server's pod proxy: its DCGM_FI_DEV_GPU_UTIL
 * series are those of the ground truth, value for value, in the bucket each sample was taken in; and it
 * is reachable as a Service in the cluster through the service proxy.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { raw } from './api/test-support.ts';
import { startPrometheus, startSim } from './index.ts';
import type { GroundTruth, SimHandle } from './index.ts';
import { prometheusConfig, targetGroups } from './prometheus.ts';

const hasPrometheus = (process.env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, 'prometheus')));

interface Series {
  metric: Record<string, string>;
  value: [number, string];
}

test('Prometheus scrapes every exporter through the pod proxy; its GPU utilization is the ground truth', { skip: hasPrometheus ? false : 'prometheus not on PATH (apt-get install prometheus)', timeout: 120_000 }, async () => {
  const speed = 4;
  const sim = await startSim({ scenario: 'demo', seed: 7, clockSpeed: speed });
  let prom: Awaited<ReturnType<typeof startPrometheus>> | undefined;
  try {
    prom = await startPrometheus({ sim, scrapeIntervalSeconds: 1 });
    assert.ok(prom.pid > 0);
    const gpuNodes = sim.store.list('v1', 'Node').filter((n) => n.metadata.labels?.['nvidia.com/gpu.present'] === 'true').length;
    const end = Date.now() + 60_000;
    while (prom.targets() < gpuNodes && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
    assert.equal(prom.targets(), gpuNodes, 'one target per exporter pod');
    const devices = sim.groundTruth().gpus.filter((g) => g.mig === null);
    assert.equal(await prom.waitForSamples(devices.length, 60_000) >= devices.length, true);
    // Let the demo's pods settle into Running (their GPUs load only then), then compare.
    await new Promise((r) => setTimeout(r, 3000));

    const query = async (q: string): Promise<Series[]> => {
      const r = await fetch(`${prom!.url}/api/v1/query?query=${encodeURIComponent(q)}`);
      const body = (await r.json()) as { status: string; data: { result: Series[] } };
      assert.equal(body.status, 'success');
      return body.data.result;
    };
    // Simulated time of a sample: the simulated clock runs `speed` times real time.
    const realNow = Date.now();
    const simNow = sim.now();
    const series = await query('DCGM_FI_DEV_GPU_UTIL');
    assert.equal(series.length, devices.length);
    // An instant query's time is when it was evaluated, not when the sample was scraped (up to a scrape
    // interval earlier): timestamp() gives each sample's own scrape time.
    const labelsKey = (m: Record<string, string>) => JSON.stringify(Object.entries(m).filter(([k]) => k !== '__name__').sort());
    const scrapedAt = new Map((await query('timestamp(DCGM_FI_DEV_GPU_UTIL)')).map((t) => [labelsKey(t.metric), Number(t.value[1])]));
    const truthAt = new Map<string, GroundTruth>();
    const truth = async (ms: number): Promise<GroundTruth> => {
      const at = new Date(Math.floor(ms / 10_000) * 10_000).toISOString();
      let t = truthAt.get(at);
      if (!t) {
        t = JSON.parse((await raw(sim, 'GET', `/__sim/usage?at=${encodeURIComponent(at)}`)).body) as GroundTruth;
        truthAt.set(at, t);
      }
      return t;
    };
    let matched = 0;
    let compared = 0;
    const misses: string[] = [];
    for (const s of series) {
      const m = s.metric;
      assert.equal(m.job, 'dcgm');
      assert.ok(m.node === m.Hostname, 'target label node = Hostname');
      const sampleSim = simNow - (realNow - (scrapedAt.get(labelsKey(m)) ?? s.value[0]) * 1000) * speed;
      // The exporter answered a moment after the scrape started (that bucket or the next); the real → simulated
      // mapping is read once, from a clock that advances in steps (a second of real time either side).
      const candidates = [await truth(sampleSim), await truth(sampleSim + 1000 * speed), await truth(sampleSim - 1000 * speed)];
      const mine = (t: GroundTruth) => t.gpus.find((g) => g.node === m.Hostname && String(g.gpu) === m.gpu && g.mig === null);
      const g = mine(candidates[0]);
      assert.ok(g, `ground truth has ${m.Hostname}/${m.gpu}`);
      assert.equal(g!.uuid, m.UUID);
      if ((g!.pod ?? undefined) !== m.pod) continue; // the pod changed since the scrape (demo churn)
      compared++;
      if (candidates.some((t) => String(mine(t)?.utilization) === s.value[1])) matched++;
      else misses.push(`${m.Hostname}/${m.gpu} ${m.pod ?? '-'}: prometheus ${s.value[1]}, truth ${candidates.map((t) => mine(t)?.utilization).join('/')}`);
    }
    assert.ok(compared >= devices.length * 0.9, `${compared} of ${devices.length} compared`);
    // A pod that started between the scrape and now loaded its GPU only since: a few may differ.
    assert.ok(matched >= compared - 3, `${matched}/${compared} match: ${misses.join('; ')}`);

    // The demo's marked workloads, as Prometheus sees them.
    const decode = await query('DCGM_FI_DEV_GPU_UTIL{namespace="dynamo",pod=~"vllm-disagg-.*vllmdecodeworker.*"}');
    assert.ok(decode.length > 0 && decode.every((s) => Number(s.value[1]) >= 99), 'decode saturated');
    const prefill = await query('DCGM_FI_DEV_GPU_UTIL{namespace="dynamo",pod=~"vllm-disagg-.*vllmprefillworker.*"}');
    assert.ok(prefill.length > 0 && prefill.every((s) => Number(s.value[1]) === 0), 'prefill idle');
    const notebook = await query('DCGM_FI_DEV_GPU_UTIL{namespace="research",pod="notebook-alice-0"}');
    assert.deepEqual(notebook.map((s) => s.value[1]), ['0']);
    const memory = await query('DCGM_FI_DEV_FB_USED{namespace="research",pod="notebook-alice-0"}');
    assert.ok(Number(memory[0].value[1]) > 8000, 'idle, holding memory');
    const mig = await query('DCGM_FI_PROF_GR_ENGINE_ACTIVE{GPU_I_PROFILE!=""}');
    assert.equal(mig.length, 18, '14 × 1g.10gb + 4 × 3g.40gb');

    // The same Prometheus through the cluster: found as a Service, queried through the service proxy.
    const svc = JSON.parse((await raw(sim, 'GET', '/api/v1/services?labelSelector=app.kubernetes.io%2Fname%3Dprometheus')).body) as { items: Array<{ metadata: { namespace: string; name: string } }> };
    assert.deepEqual(svc.items.map((s) => `${s.metadata.namespace}/${s.metadata.name}`), ['monitoring/prometheus-k8s']);
    const viaProxy = await raw(sim, 'POST', '/api/v1/namespaces/monitoring/services/prometheus-k8s:web/proxy/api/v1/query', { body: `query=${encodeURIComponent('count(DCGM_FI_DEV_GPU_UTIL)')}`, contentType: 'application/x-www-form-urlencoded' });
    assert.equal(viaProxy.status, 200);
    assert.equal((JSON.parse(viaProxy.body) as { data: { result: Series[] } }).data.result[0].value[1], String(devices.length));
  } finally {
    const pid = prom?.pid;
    await prom?.stop();
    if (pid) assert.throws(() => process.kill(pid, 0), 'the process is gone');
    await sim.stop();
  }
});

test('startPrometheus: a clear error without the binary; the config and targets it writes', async () => {
  await assert.rejects(startPrometheus({ sim: {} as SimHandle, binary: 'no-such-prometheus-binary' }), /prometheus was not found on PATH: install it \(Debian: apt-get install prometheus\)/);
  const yml = prometheusConfig({ scrapeIntervalSeconds: 5, https: true, caFile: '/tmp/ca.pem', token: 'tok', targetsFile: '/tmp/t.json' });
  for (const line of ['  - job_name: dcgm', '    honor_labels: true', '    scheme: https', '      credentials: "tok"', '      ca_file: "/tmp/ca.pem"', '      - files: ["/tmp/t.json"]']) assert.ok(yml.split('\n').includes(line), line);
  assert.deepEqual(targetGroups('127.0.0.1:6443', [{ pod: 'nvidia-dcgm-exporter-abcde', node: 'gpu-h100-00', ip: '10.244.0.7' }]), [
    { targets: ['127.0.0.1:6443'], labels: { __metrics_path__: '/api/v1/namespaces/gpu-operator/pods/nvidia-dcgm-exporter-abcde:9400/proxy/metrics', instance: '10.244.0.7:9400', node: 'gpu-h100-00' } },
  ]);
});
