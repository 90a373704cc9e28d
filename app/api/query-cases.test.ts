/**
 * The row query's table of cases (lib/rows/query-cases.ts) through every server-side client: the
 * list API, the stream's snapshot and deltas, and `wmap get workloads --query`. The rows come from
 * a fixed row source, so the test is about the query path, the same for every client.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { RowDelta } from '@/contract/index.ts';
import { CASE_NOW, CASE_ROWS, QUERY_CASES } from '@/lib/rows/query-cases.ts';
import { parseQuery } from '@/lib/rows/index.ts';
import { selectRows } from '@/server/cli/live-commands.ts';
import { filterDeltas } from '@/server/stream/index.ts';
import type { LiveWorkloads } from '@/server/workloads/index.ts';
import { setRuntime } from '@/server/workloads/runtime.ts';
import { GET as listWorkloads } from './workloads/route.ts';
import { GET as stream } from './stream/route.ts';

// Only what the list and stream handlers read: the rows, no deltas yet, no clusters.
const rowSource = {
  index: { allRows: () => CASE_ROWS, currentSeq: 0, deltasSince: () => null, subscribe: () => () => {} },
  clusters: () => [],
  subscribeClusters: () => () => {},
} as unknown as LiveWorkloads;
setRuntime({ live: rowSource, startedAt: new Date().toISOString(), demo: null, testHooks: null });
after(() => setRuntime(null));

// The cases' CEL filters on age need the cases' clock.
const realNow = Date.now;
Date.now = () => CASE_NOW;
after(() => {
  Date.now = realNow;
});

const url = (qs: string, path = '/api/workloads') => `http://127.0.0.1${path}${qs ? `?${qs}` : ''}`;
const names = (rows: Array<{ name: string }>) => rows.map((r) => r.name);

for (const c of QUERY_CASES) {
  const refused = (c.problems?.length ?? 0) > 0 || c.celError === true;
  test(`API, stream and CLI: ${c.what}`, async () => {
    const res = await listWorkloads(new Request(url(c.query)));
    if (refused) {
      assert.equal(res.status, 400);
      const body = await res.json();
      assert.equal(body.error.code, c.celError ? 'invalid_cel' : 'invalid_request');
      for (const p of c.problems ?? ['cel']) assert.match(body.error.message, new RegExp(`(^|; )${p}: `));
      assert.equal((await stream(new Request(url(c.query, '/api/stream')))).status, 400);
      assert.throws(() => selectRows(CASE_ROWS, { query: c.query, allNamespaces: true }, '', CASE_NOW), /--query: /);
      return;
    }
    const page = await res.json();
    assert.deepEqual(names(page.rows), c.names);
    assert.equal(page.total, c.names.length);

    // The stream: the snapshot holds the same rows, and deltas keep exactly those.
    const abort = new AbortController();
    const sres = await stream(new Request(url(c.query, '/api/stream'), { signal: abort.signal }));
    const { value } = await sres.body!.getReader().read();
    abort.abort();
    const snap = JSON.parse(new TextDecoder().decode(value).split('\n').find((l) => l.startsWith('data: '))!.slice(6));
    assert.deepEqual(names(snap.rows).sort(), [...c.names].sort());
    const ups: RowDelta[] = CASE_ROWS.map((row, i) => ({ seq: i + 1, op: 'upsert', id: row.id, row }));
    const kept = filterDeltas(ups, parseQuery(c.query).query, new Set(), CASE_NOW);
    assert.deepEqual(kept.map((d) => (d.op === 'upsert' ? d.row.name : '')).sort(), [...c.names].sort());

    // The CLI across namespaces: the same rows; the same order when the query sorts.
    const cli = names(selectRows(CASE_ROWS, { query: c.query, allNamespaces: true }, '', CASE_NOW));
    if (new URLSearchParams(c.query).has('sort')) assert.deepEqual(cli, c.names);
    else assert.deepEqual([...cli].sort(), [...c.names].sort());
  });
}

test('the CLI in one namespace keeps that namespace and cluster-scoped workloads', () => {
  assert.deepEqual(names(selectRows(CASE_ROWS, { query: 'sort=allocated' }, 'team-a', CASE_NOW)), ['a-train', 'c-wait']);
  // Across namespaces without a sort, kubectl's order: by namespace, then name.
  assert.deepEqual(names(selectRows(CASE_ROWS, { allNamespaces: true }, '', CASE_NOW)), ['a-train', 'c-wait', 'b-serve', 'd-cpu']);
});
