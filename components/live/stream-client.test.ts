import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StreamClient } from './stream-client.ts';
import type { ConnectionState } from './stream-client.ts';
import { RowStore } from './row-store.ts';
import { makeRow } from '../../lib/rows/test-rows.ts';

/** A fake `/api/stream`: each request gets a stream the test writes into and can cut. */
function fakeServer() {
  const requests: Array<{ headers: Record<string, string>; write(s: string): void; end(): void; fail(): void }> = [];
  let refuse = 0;
  const enc = new TextEncoder();
  const fetchFn = (async (_url: string, init: RequestInit) => {
    if (refuse > 0) {
      refuse--;
      return new Response(JSON.stringify({ error: { code: 'unavailable', message: 'starting' } }), { status: 503 });
    }
    let ctl!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => { ctl = c; } });
    init.signal?.addEventListener('abort', () => {
      try { ctl.error(new DOMException('aborted', 'AbortError')); } catch { /* closed */ }
    });
    requests.push({
      headers: init.headers as Record<string, string>,
      write: (s) => ctl.enqueue(enc.encode(s)),
      end: () => ctl.close(),
      fail: () => ctl.error(new TypeError('network error')),
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  }) as unknown as typeof fetch;
  return { requests, fetchFn, refuseNext: (n: number) => { refuse = n; } };
}

const until = async (cond: () => boolean, ms = 2000) => {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 2));
  }
};

function setup(silenceMs = 10_000) {
  const srv = fakeServer();
  const store = new RowStore();
  const states: ConnectionState[] = [];
  const client = new StreamClient({
    url: '/api/stream',
    fetch: srv.fetchFn,
    onSnapshot: (s) => store.applySnapshot(s),
    onDeltas: (d) => store.applyDeltas(d),
    onClusters: (c) => store.setClusters(c),
    onState: (s) => states.push(s),
    lastSeq: () => store.seq,
    backoffMs: () => 5,
    silenceMs,
  });
  return { srv, store, states, client };
}

const a = makeRow({ name: 'a' });
const b = makeRow({ name: 'b' });

test('snapshot then deltas; a dropped stream reconnects and resumes with Last-Event-ID', async () => {
  const { srv, store, states, client } = setup();
  client.start();
  await until(() => srv.requests.length === 1);
  assert.equal(srv.requests[0].headers['last-event-id'], undefined);
  srv.requests[0].write(`event: snapshot\nid: 10\ndata: ${JSON.stringify({ seq: 10, rows: [a], clusters: [] })}\n\n`);
  srv.requests[0].write(`event: delta\nid: 11\ndata: ${JSON.stringify([{ seq: 11, op: 'upsert', id: b.id, row: b }])}\n\n`);
  await until(() => store.size === 2);
  assert.equal(client.state.status, 'live');

  srv.requests[0].fail();
  await until(() => states.some((s) => s.status === 'reconnecting'));
  await until(() => srv.requests.length === 2);
  assert.equal(srv.requests[1].headers['last-event-id'], '11');
  await until(() => client.state.status === 'live');
  srv.requests[1].write(`event: delta\nid: 12\ndata: ${JSON.stringify([{ seq: 12, op: 'remove', id: a.id }])}\n\n`);
  await until(() => store.size === 1);
  client.stop();
});

test('after a reconnect a new snapshot wins: rows the server no longer has disappear', async () => {
  const { srv, store, client } = setup();
  client.start();
  await until(() => srv.requests.length === 1);
  srv.requests[0].write(`event: snapshot\nid: 10\ndata: ${JSON.stringify({ seq: 10, rows: [a, b], clusters: [] })}\n\n`);
  await until(() => store.size === 2);
  srv.requests[0].end();
  await until(() => srv.requests.length === 2);
  srv.requests[1].write(`event: snapshot\nid: 40\ndata: ${JSON.stringify({ seq: 40, rows: [b], clusters: [] })}\n\n`);
  await until(() => store.seq === 40);
  assert.deepEqual(store.list().map((r) => r.name), ['b']);
  client.stop();
});

test('a silent connection (no heartbeat) counts as dropped', async () => {
  const { srv, states, client } = setup(40);
  client.start();
  await until(() => srv.requests.length === 1);
  srv.requests[0].write(': ping\n\n');
  await until(() => srv.requests.length === 2, 3000);
  const r = states.find((s) => s.status === 'reconnecting');
  assert.match(r?.error ?? '', /no data from the server/);
  client.stop();
});

test('an error response is retried and its message kept; stop() ends everything', async () => {
  const { srv, states, client } = setup();
  srv.refuseNext(2);
  client.start();
  await until(() => srv.requests.length === 1);
  assert.ok(states.some((s) => s.status === 'connecting' && /HTTP 503: starting/.test(s.error ?? '')));
  assert.equal(client.state.status, 'live');
  client.stop();
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(srv.requests.length, 1);
});
