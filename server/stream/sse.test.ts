import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LiveWorkloads } from '../workloads/index.ts';
import { loadCatalog } from '../catalog/index.ts';
import { jobSetObjects } from '../engine/test-support.ts';
import { DEFAULT_QUERY, type RowQuery } from '../../lib/rows/index.ts';
import { streamResponse, filterDeltas, resumeDeltas } from './sse.ts';

const q = (p: Partial<RowQuery> = {}): RowQuery => ({ ...DEFAULT_QUERY, ...p });
import type { RowDelta, WorkloadRow } from '../workloads/index.ts';

function newLive(historySize?: number) {
  const live = new LiveWorkloads({ clusters: [], catalog: LiveWorkloads.catalogEntries(loadCatalog()), index: { historySize } });
  return live;
}

async function firstFrames(res: Response, n: number): Promise<string[]> {
  const reader = res.body!.getReader();
  let text = '';
  while (text.split('\n\n').length <= n) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  return text.split('\n\n').slice(0, n);
}

test('Last-Event-ID resumes with only the missed deltas; too old an id gets a snapshot', async () => {
  const live = newLive(3);
  for (const o of jobSetObjects({ name: 'a' })) live.index.upsert('c', o);
  live.index.flush();
  const seqAfterA = live.index.currentSeq;
  for (const o of jobSetObjects({ name: 'b' })) live.index.upsert('c', o);
  live.index.flush();
  const abort = new AbortController();
  const [resumed] = await firstFrames(streamResponse(live, q(), seqAfterA, abort.signal), 1);
  assert.match(resumed, /^id: \d+\nevent: delta\n/);
  assert.match(resumed, /"name":"b"/);
  assert.doesNotMatch(resumed, /"name":"a"/);
  // Fill the small history so the old id is gone.
  for (const n of ['c1', 'c2', 'c3', 'c4']) for (const o of jobSetObjects({ name: n })) live.index.upsert('c', o);
  live.index.flush();
  const [fresh] = await firstFrames(streamResponse(live, q(), seqAfterA, abort.signal), 1);
  assert.match(fresh, /event: snapshot/);
  abort.abort();
});

test('per-client filters: a row leaving the filter becomes a removal; resume turns non-matching rows into removals', () => {
  const row = (id: string, allocated: number) => ({ id, gpus: { allocated, requested: allocated, desired: allocated, byResource: { allocated: {}, requested: {}, desired: {} }, unknown: [] }, definition: { name: 'd', source: 'catalog' }, status: 'Running', kind: 'JobSet', namespace: 'd', cluster: 'c', name: id, rolesSummary: '' }) as unknown as WorkloadRow;
  const visible = new Set<string>();
  const up = (seq: number, id: string, g: number): RowDelta => ({ seq, op: 'upsert', id, row: row(id, g) });
  assert.deepEqual(filterDeltas([up(1, 'x', 8)], q({ minGpus: 4 }), visible).map((d) => d.op), ['upsert']);
  assert.deepEqual(filterDeltas([up(2, 'x', 0)], q({ minGpus: 4 }), visible).map((d) => d.op), ['remove']);
  assert.deepEqual(filterDeltas([up(3, 'y', 0)], q({ minGpus: 4 }), visible), []);
  assert.deepEqual(resumeDeltas([up(4, 'x', 8), up(5, 'y', 0), { seq: 6, op: 'remove', id: 'z' }], q({ minGpus: 4 })).map((d) => `${d.op}:${d.id}`), ['upsert:x', 'remove:y', 'remove:z']);
});

test('a client that leaves too many frames unread is dropped with its backlog, counted, and can resume', async () => {
  const { setInstruments, instruments } = await import('../metrics/index.ts');
  const counted = { clients: 0, dropped: 0 };
  setInstruments({ ...instruments(), streamClients: (c) => { counted.clients += c; }, streamFramesDropped: (n) => { counted.dropped += n; } });
  try {
    const live = newLive();
    const abort = new AbortController();
    const res = streamResponse(live, q(), null, abort.signal, undefined, 5);
    assert.equal(counted.clients, 1);
    // Nobody reads: the snapshot and then one delta frame per flush pile up.
    for (let i = 0; i < 8; i++) {
      for (const o of jobSetObjects({ name: `w${i}` })) live.index.upsert('c', o);
      live.index.flush();
    }
    assert.equal(counted.clients, 0, 'the stream was closed');
    assert.equal(counted.dropped, 6, 'the five unread frames and the one that did not fit');
    await assert.rejects(res.body!.getReader().read(), /left 5 frames unread/);
    // The client resumes from the last id it saw (none here: a snapshot with every row).
    const [snap] = await firstFrames(streamResponse(live, q(), null, abort.signal), 1);
    assert.match(snap, /event: snapshot/);
    assert.match(snap, /"name":"w7"/);
    abort.abort();
  } finally {
    setInstruments(null);
  }
});
