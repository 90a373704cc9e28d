/**
 * Shared mode's cost per request: which of N rows a user may see (rowScope) with cached access
 * reviews, and a page of rows filtered by it. The reviews are answered by a stand-in transport with
 * a fixed latency (a real API server's SubjectAccessReview takes a few milliseconds). Prints the cold
 * scope (reviews sent), the warm one (all cached), and a filtered page, as medians.
 *
 *   node --import tsx bench/row-scope-bench.ts [--rows 100000] [--namespaces 500] [--kinds 10] [--latency-ms 3]
 */
import { performance } from 'node:perf_hooks';
import { AccessReviewer } from '../server/auth/access-review.ts';
import type { Principal } from '../server/auth/principal.ts';
import { runQuery, parseQuery } from '../lib/rows/index.ts';
import type { LiveWorkloads } from '../server/workloads/live.ts';
import { rowScope } from '../server/workloads/row-access.ts';
import type { WorkloadRow } from '../server/workloads/row.ts';
import { numberArg } from './measure.ts';

const ROWS = numberArg('rows', 100_000);
const NAMESPACES = numberArg('namespaces', 500);
const KINDS = numberArg('kinds', 10);
const LATENCY = numberArg('latency-ms', 3);

const served = Array.from({ length: KINDS }, (_, k) => ({ group: `g${k}.example.com`, version: 'v1', resource: `kind${k}s`, kind: `Kind${k}`, namespaced: true, verbs: [] }));
const rows: WorkloadRow[] = Array.from({ length: ROWS }, (_, i) => {
  const k = served[i % KINDS];
  return { id: `c1/ns-${i % NAMESPACES}/${k.kind}.${k.group}/w-${i}`, cluster: 'c1', namespace: `ns-${i % NAMESPACES}`, apiVersion: `${k.group}/v1`, kind: k.kind, name: `w-${i}`, status: 'Running', statuses: ['Running'], gpus: { allocated: 1, requested: 1, desired: 1, byResource: { allocated: {}, requested: {}, desired: {} }, unknown: [] }, pods: { ready: 1, total: 1 } } as unknown as WorkloadRow;
});
const live = { index: { allRows: () => rows, currentSeq: 1 }, connection: () => ({ servedResources: () => served }) } as unknown as LiveWorkloads;
// A user who may list every kind in one namespace in ten, and nothing cluster-wide (the expensive case).
const user: Principal = { user: 'alice', groups: [], via: 'oidc', credential: { kind: 'impersonate' } };
const reviewer = new AccessReviewer(async (_c, _p, a) => {
  await new Promise((r) => setTimeout(r, LATENCY));
  return { allowed: a.namespace !== undefined && Number(a.namespace.slice(3)) % 10 === 0, reason: '' };
});
const may = (c: string, q: { verb: string; group: string; resource: string; namespace?: string }) => reviewer.check(c, user, q);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
let t = performance.now();
const cold = await rowScope(live, may);
const coldMs = performance.now() - t;
const sentCold = reviewer.sent;
const warm: number[] = [];
for (let i = 0; i < 7; i++) {
  t = performance.now();
  await rowScope(live, may);
  warm.push(performance.now() - t);
}
const query = parseQuery(new URLSearchParams('sort=allocated')).query;
const page: number[] = [];
for (let i = 0; i < 7; i++) {
  t = performance.now();
  runQuery(rows.filter((r) => cold.test(r)), query, Date.now());
  page.push(performance.now() - t);
}
const visible = rows.filter((r) => cold.test(r)).length;
process.stdout.write(
  `rows ${ROWS}, namespaces ${NAMESPACES}, kinds ${KINDS}, review latency ${LATENCY} ms (concurrency 16)\n` +
    `cold scope: ${coldMs.toFixed(0)} ms, ${sentCold} reviews (one per kind cluster-wide, then one per namespace holding its rows), ${visible} rows visible\n` +
    `warm scope (cached): median ${median(warm).toFixed(1)} ms of 7\n` +
    `filtered and sorted page: median ${median(page).toFixed(1)} ms of 7\n`,
);
