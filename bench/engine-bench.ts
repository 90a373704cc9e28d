/**
 * Engine benchmark: a synthetic set of workloads across the catalog kinds (clones of every catalog
 * fixture, topped up with large JobSets) resolved from scratch. Prints workloads/s, pods/s, peak RSS.
 *
 *   npm run bench:engine -- [--workloads 10000] [--pods 100000]
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { catalogDefinitions, catalogDir } from '../server/catalog/index.ts';
import { definitionForRoot, parseDocuments, pickRoot, resolveWorkload, type KubeObject } from '../server/engine/index.ts';
import { jobSetObjects } from '../server/engine/test-support.ts';
import { numberArg } from './measure.ts';

const WORKLOADS = numberArg('workloads', 10_000);
const PODS = numberArg('pods', 100_000);

const t0 = performance.now();
const defs = catalogDefinitions();
const tCompile = performance.now() - t0;

// Templates: every catalog fixture.
interface Template { objects: KubeObject[]; pods: number }
const templates: Template[] = [];
const fixtures = join(catalogDir(), 'fixtures');
for (const dir of existsSync(fixtures) ? readdirSync(fixtures) : []) {
  for (const f of readdirSync(join(fixtures, dir)).filter((x) => x.endsWith('.yaml'))) {
    const { documents } = parseDocuments(readFileSync(join(fixtures, dir, f), 'utf8'), f);
    const objects = documents.map((d) => d.value as KubeObject);
    if (pickRoot(objects, defs)) templates.push({ objects, pods: objects.filter((o) => o.kind === 'Pod').length });
  }
}

/** A copy with fresh uids and names, so that no two workloads share identity. */
function cloneWorkload(objects: KubeObject[], n: number): KubeObject[] {
  let text = JSON.stringify(objects);
  for (const o of objects) {
    const uid = o.metadata?.uid;
    if (uid) text = text.split(`"${uid}"`).join(`"${uid}-${n}"`);
  }
  return JSON.parse(text) as KubeObject[];
}

// 70% of the workloads are fixture clones; the rest are JobSets sized to reach the pod target.
const workloads: Array<{ root: KubeObject; objects: KubeObject[] }> = [];
let pods = 0;
const fromFixtures = templates.length > 0 ? Math.floor(WORKLOADS * 0.7) : 0;
for (let i = 0; i < fromFixtures; i++) {
  const t = templates[i % templates.length];
  const objects = cloneWorkload(t.objects, i);
  workloads.push({ root: pickRoot(objects, defs)!, objects });
  pods += t.pods;
}
const rest = WORKLOADS - fromFixtures;
for (let i = 0; i < rest; i++) {
  const remaining = Math.max(PODS - pods, rest - i);
  const workers = Math.max(1, Math.round(remaining / (rest - i)) - 1);
  const objects = jobSetObjects({ name: `bench-${i}`, workers });
  workloads.push({ root: objects[0], objects });
  pods += workers + 1;
}

let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage().rss); }, 20);
const start = performance.now();
const cpuStart = process.cpuUsage();
let resolvedPods = 0;
let errors = 0;
let gpus = 0;
for (const w of workloads) {
  const def = definitionForRoot(defs, w.root)!;
  const tree = resolveWorkload(def, w.root, w.objects);
  resolvedPods += tree.pods.length + tree.unmatchedPods.length;
  errors += tree.errors.length;
  gpus += tree.gpus.allocated.total;
}
const seconds = (performance.now() - start) / 1000;
const cpu = process.cpuUsage(cpuStart);
// CPU time is the steadier figure on a shared machine; wall time is what a user waits.
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
clearInterval(sampler);
peakRss = Math.max(peakRss, process.memoryUsage().rss);

console.log(`catalog: ${defs.length} definitions compiled in ${tCompile.toFixed(0)} ms; ${templates.length} fixture templates`);
console.log(`workloads: ${workloads.length}, pods: ${resolvedPods}, allocated GPUs: ${gpus}, tree errors: ${errors}`);
console.log(`resolve from scratch: ${seconds.toFixed(2)} s  ${(workloads.length / seconds).toFixed(0)} workloads/s  ${(resolvedPods / seconds).toFixed(0)} pods/s`);
console.log(`CPU time: ${cpuSeconds.toFixed(2)} s  (${(resolvedPods / cpuSeconds).toFixed(0)} pods per CPU-second)`);
console.log(`peak RSS: ${(peakRss / 2 ** 20).toFixed(0)} MiB (includes the generated input)`);
