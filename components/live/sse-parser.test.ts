import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SseParser } from './sse-parser.ts';
import type { SseEvent } from './sse-parser.ts';
import { assertLinearTime } from '../../lib/testing/linear-time.ts';

function collect() {
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const retries: number[] = [];
  const p = new SseParser({ event: (e) => events.push(e), comment: (c) => comments.push(c), retry: (r) => retries.push(r) });
  return { p, events, comments, retries };
}

test('events, ids, comments and retry', () => {
  const { p, events, comments, retries } = collect();
  p.feed('retry: 1500\n: ping\n\nevent: snapshot\nid: 7\ndata: {"a":1}\n\ndata: x\ndata: y\n\n');
  assert.deepEqual(events, [
    { event: 'snapshot', data: '{"a":1}', id: '7' },
    { event: 'message', data: 'x\ny', id: '7' },
  ]);
  assert.deepEqual(comments, ['ping']);
  assert.deepEqual(retries, [1500]);
  assert.equal(p.lastEventId, '7');
});

test('chunks split anywhere, including inside \\r\\n, give the same events', () => {
  const text = 'event: delta\r\nid: 12\r\ndata: [1,2,3]\r\n\r\n: ping\r\n\r\nevent: clusters\rdata: []\r\r';
  const whole = collect();
  whole.p.feed(text);
  for (let cut = 1; cut < text.length; cut++) {
    const c = collect();
    c.p.feed(text.slice(0, cut));
    c.p.feed(text.slice(cut));
    assert.deepEqual(c.events, whole.events, `cut at ${cut}`);
    assert.deepEqual(c.comments, whole.comments, `cut at ${cut}`);
  }
  assert.equal(whole.events.length, 2);
  assert.equal(whole.events[1].event, 'clusters');
});

test('a multi-megabyte data line in many small chunks parses in linear time', () => {
  const parse = (items: number) => {
    const { p, events } = collect();
    const payload = JSON.stringify(Array.from({ length: items }, (_, i) => ({ i, name: `workload-${i}` })));
    const text = `event: snapshot\nid: 1\ndata: ${payload}\n\n`;
    // Chunks built as a network stream gives them: fresh strings, so nothing is pre-flattened.
    const chunks: string[] = [];
    for (let i = 0; i < text.length; i += 16_384) chunks.push(`${text.slice(i, i + 16_384)}`);
    for (const c of chunks) p.feed(c);
    assert.equal(events.length, 1);
    assert.equal(events[0].data, payload);
  };
  assertLinearTime(parse, 100_000, 'one data line of 100,000 items in 16 KB chunks');
});

test('reset drops a half-received event and its id, so resuming asks for it again', () => {
  const { p, events } = collect();
  p.feed('id: 3\ndata: a\n\nid: 4\ndata: partial');
  p.reset();
  p.feed('\n\n');
  assert.equal(events.length, 1);
  assert.equal(p.lastEventId, '3');
});
