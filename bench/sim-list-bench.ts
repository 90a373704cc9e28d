/**
 * Simulated cluster at scale: time to list 100,000 pods through kubectl and through
 * @kubernetes/client-node, and watch throughput (events/s). Prints numbers; not a test.
 *
 *   node --import tsx bench/sim-list-bench.ts [--pods 100000] [--workloads 10000] [--events 50000]
 *     [--parts kubectl,raw,client,watch]   (default: all)
 */

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { startSim } from '../server/sim/index.ts';
import type { KubeObject, SimHandle } from '../server/sim/index.ts';

const { values } = parseArgs({
  options: {
    pods: { type: 'string', default: '100000' },
    workloads: { type: 'string', default: '10000' },
    events: { type: 'string', default: '50000' },
    namespaces: { type: 'string', default: '50' },
    parts: { type: 'string', default: 'kubectl,raw,client,watch' },
  },
});
const PODS = Number(values.pods);
const WORKLOADS = Number(values.workloads);
const EVENTS = Number(values.events);
const NAMESPACES = Number(values.namespaces);
const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';
const PARTS = new Set(values.parts.split(','));

const ms = (t0: number) => Math.round(performance.now() - t0);
const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;

function workload(i: number): KubeObject {
  const ns = `team-${String(i % NAMESPACES).padStart(2, '0')}`;
  return {
    apiVersion: 'batch/v1', kind: 'Job',
    metadata: { name: `train-${i}`, namespace: ns, labels: { app: 'trainer', 'team': ns } },
    spec: { parallelism: 10, completions: 10, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'nvcr.io/nvidia/pytorch:24.05-py3', resources: { limits: { 'nvidia.com/gpu': '8' } } }] } } },
    status: { active: 10, startTime: '2026-01-01T00:00:00Z' },
  };
}

/** A pod shaped like what a Job controller, scheduler and kubelet leave behind (~1.5 KB of JSON). */
function pod(i: number, owner: KubeObject): KubeObject {
  const ns = owner.metadata.namespace!;
  const index = i % 10;
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name: `${owner.metadata.name}-${index}-x${i.toString(36)}`, namespace: ns,
      labels: { app: 'trainer', 'batch.kubernetes.io/job-name': owner.metadata.name!, 'batch.kubernetes.io/job-completion-index': String(index), 'controller-uid': owner.metadata.uid! },
      annotations: { 'batch.kubernetes.io/job-completion-index': String(index) },
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: owner.metadata.name!, uid: owner.metadata.uid!, controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      nodeName: `gpu-node-${i % 2000}`, restartPolicy: 'Never', schedulerName: 'default-scheduler', serviceAccountName: 'default', terminationGracePeriodSeconds: 30,
      containers: [{ name: 'main', image: 'nvcr.io/nvidia/pytorch:24.05-py3', command: ['torchrun', '--nproc-per-node=8', 'train.py'], resources: { limits: { 'nvidia.com/gpu': '8', cpu: '96', memory: '1Ti' }, requests: { 'nvidia.com/gpu': '8', cpu: '96', memory: '1Ti' } }, env: [{ name: 'RANK', value: String(index) }] }],
      tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
    },
    status: {
      phase: 'Running', hostIP: '10.1.0.1', podIP: `10.244.${(i >> 8) & 255}.${i & 255}`, startTime: '2026-01-01T00:00:05Z', qosClass: 'Guaranteed',
      conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Initialized', status: 'True' }, { type: 'ContainersReady', status: 'True' }, { type: 'Ready', status: 'True' }],
      containerStatuses: [{ name: 'main', ready: true, started: true, restartCount: 0, image: 'nvcr.io/nvidia/pytorch:24.05-py3', imageID: 'sha256:0', containerID: `containerd://${i}`, state: { running: { startedAt: '2026-01-01T00:00:08Z' } } }],
    },
  };
}

function runKubectl(sim: SimHandle, cacheDir: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(KUBECTL, args, { env: { ...process.env, KUBECONFIG: sim.kubeconfigPath, KUBECACHEDIR: cacheDir }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('close', (code) => (code === 0 ? resolve(ms(t0)) : reject(new Error(`kubectl ${args.join(' ')}: ${err}`))));
  });
}

/** Counts watch events on a raw stream until `n` arrived; returns elapsed ms from `start()`. */
function watchCount(sim: SimHandle, path: string, n: number, start: () => void, progress: { n: number }): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, sim.url), { headers: { Authorization: `Bearer ${sim.adminToken}` }, ca: sim.caPem }, (res) => {
      let seen = 0;
      let buf = '';
      let t0 = 0;
      res.on('data', (c: Buffer) => {
        buf += c.toString('utf8');
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          JSON.parse(buf.slice(0, i));
          buf = buf.slice(i + 1);
          progress.n = ++seen;
          if (seen === n) {
            resolve(ms(t0));
            req.destroy();
            return;
          }
        }
      });
      t0 = performance.now();
      start();
    });
    req.on('error', (e) => {
      if (!req.destroyed) reject(e);
    });
    req.end();
  });
}

function withTimeout<T>(p: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  const timeout = new Promise<T>((_, reject) => {
    setTimeout(() => reject(new Error(`${what}: no result after ${timeoutMs} ms`)), timeoutMs).unref();
  });
  return Promise.race([p, timeout]);
}

async function main(): Promise<void> {
  console.log(`sim list bench: ${PODS} pods, ${WORKLOADS} workloads, ${NAMESPACES} namespaces, node ${process.version}`);
  const sim = await startSim({ controllers: false, historySize: Math.max(100_000, EVENTS * 2) });
  try {
    const store = sim.store;
    for (let n = 0; n < NAMESPACES; n++) store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `team-${String(n).padStart(2, '0')}` } });
    let t0 = performance.now();
    const owners: KubeObject[] = [];
    for (let i = 0; i < WORKLOADS; i++) owners.push(store.create(workload(i)));
    for (let i = 0; i < PODS; i++) store.create(pod(i, owners[i % owners.length]));
    const loadMs = ms(t0);
    global.gc?.();
    console.log(`load: ${PODS + WORKLOADS} objects in ${loadMs} ms (${Math.round(((PODS + WORKLOADS) / loadMs) * 1000)} creates/s), heap ${mb(process.memoryUsage().heapUsed)}`);

    t0 = performance.now();
    const items = store.list('v1', 'Pod');
    console.log(`store.list of ${items.length} pods: ${ms(t0)} ms`);

    if (!PARTS.has('kubectl')) {
      // skipped
    } else if (existsSync(KUBECTL)) {
      const cache = mkdtempSync(join(tmpdir(), 'wmap-bench-kube-'));
      await runKubectl(sim, cache, ['get', 'namespaces']);
      const t = await runKubectl(sim, cache, ['get', 'pods', '-A', '-o', 'json']);
      console.log(`kubectl get pods -A -o json > /dev/null (pages of 500): ${t} ms`);
      const table = await runKubectl(sim, cache, ['get', 'pods', '-A']);
      console.log(`kubectl get pods -A (Table, pages of 500): ${table} ms`);
      const chunkless = await runKubectl(sim, cache, ['get', 'pods', '-A', '-o', 'json', '--chunk-size=0']);
      console.log(`kubectl get pods -A -o json --chunk-size=0 (one response): ${chunkless} ms`);
    } else {
      console.log(`kubectl not found at ${KUBECTL}: kubectl timings skipped`);
    }

    // The server side alone: pages of 500 over one keep-alive connection, parsed with JSON.parse.
    if (PARTS.has('raw')) await rawLists(sim);
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    if (PARTS.has('client')) await clientLists(core);
    if (PARTS.has('watch')) await watches(sim, kc);
    console.log(`heap at end: ${mb(process.memoryUsage().heapUsed)}, rss ${mb(process.memoryUsage().rss)}`);
  } finally {
    await sim.stop();
  }
}

async function rawLists(sim: SimHandle): Promise<void> {
  let t0: number;
  const agent = new Agent({ keepAlive: true, ca: sim.caPem });
  const fetchJson = (path: string) => new Promise<{ metadata: { continue?: string }; items: unknown[] }>((resolve, reject) => {
    const req = request(new URL(path, sim.url), { agent, headers: { Authorization: `Bearer ${sim.adminToken}`, Accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
    });
    req.on('error', reject);
    req.end();
  });
  t0 = performance.now();
  let rawCount = 0;
  let rawCont: string | undefined;
  do {
    const page = await fetchJson(`/api/v1/pods?limit=500${rawCont ? `&continue=${encodeURIComponent(rawCont)}` : ''}`);
    rawCount += page.items.length;
    rawCont = page.metadata.continue;
  } while (rawCont);
  console.log(`raw HTTPS GET /api/v1/pods in pages of 500 + JSON.parse (server + transfer): ${ms(t0)} ms, ${rawCount} pods`);
  t0 = performance.now();
  const whole = await fetchJson('/api/v1/pods');
  console.log(`raw HTTPS GET /api/v1/pods, one response + JSON.parse: ${ms(t0)} ms, ${whole.items.length} pods`);
  agent.destroy();
}

async function clientLists(core: k8s.CoreV1Api): Promise<void> {
  let t0 = performance.now();
  const list = await core.listPodForAllNamespaces();
  console.log(`client-node listPodForAllNamespaces (one response, typed deserialisation): ${ms(t0)} ms, ${list.items.length} pods`);
  t0 = performance.now();
  let count = 0;
  let cont: string | undefined;
  do {
    const page = await core.listPodForAllNamespaces({ limit: 500, _continue: cont });
    count += page.items.length;
    cont = page.metadata?._continue;
  } while (cont);
  console.log(`client-node listPodForAllNamespaces in pages of 500: ${ms(t0)} ms, ${count} pods`);
}

async function watches(sim: SimHandle, kc: k8s.KubeConfig): Promise<void> {
  const store = sim.store;

  // Watch throughput: status updates of existing pods, one event each. Producer and consumers share
  // this process, so writes go in batches of 500 with a yield to I/O in between.
  // Closed loop: the producer stays at most 5,000 events ahead of what the consumer has seen, so the
  // number measured is delivery throughput (a watcher that falls 64 MB behind is cut, as on a real server).
  const churn = (phase: string, seen: () => number) => {
    const targets = store.list('v1', 'Pod').slice(0, EVENTS);
    let i = 0;
    const step = () => {
      if (i - seen() > 5000) {
        setTimeout(step, 1);
        return;
      }
      const end = Math.min(i + 500, targets.length);
      for (; i < end; i++) {
        const p = structuredClone(targets[i]);
        (p.status as Record<string, unknown>).phase = phase;
        store.updateStatus(p);
      }
      if (i < targets.length) setTimeout(step, 1);
    };
    step();
    return targets.length;
  };
  const n = Math.min(EVENTS, PODS);
  const rv = store.resourceVersion();
  const rawSeen = { n: 0 };
  const rawMs = await withTimeout(watchCount(sim, `/api/v1/pods?watch=true&resourceVersion=${rv}`, n, () => churn('Succeeded', () => rawSeen.n), rawSeen), 120_000, 'raw watch');
  const targets = { length: n };
  console.log(`watch (raw HTTPS stream, all namespaces): ${targets.length} events in ${rawMs} ms = ${Math.round((targets.length / rawMs) * 1000)} events/s`);

  // The same through client-node's Watch (its line splitting and JSON parsing).
  const targets2 = { length: n };
  const rv2 = store.resourceVersion();
  const watch = new k8s.Watch(kc);
  let seen = 0;
  let tStart = 0;
  const done = new Promise<number>((resolve) => {
    void watch.watch('/api/v1/pods', { resourceVersion: rv2 }, () => {
      if (++seen === targets2.length) resolve(ms(tStart));
    }, (err) => {
      if (seen < targets2.length) console.error(`client-node watch ended after ${seen} events: ${String(err)}`);
    }).then((req) => done.then(() => req.abort()));
  });
  await new Promise((r) => setTimeout(r, 300));
  tStart = performance.now();
  churn('Failed', () => seen);
  const cnMs = await withTimeout(done, 120_000, 'client-node watch');
  console.log(`watch (client-node Watch): ${targets2.length} events in ${cnMs} ms = ${Math.round((targets2.length / cnMs) * 1000)} events/s`);
}

await main();
