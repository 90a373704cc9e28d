/** Bounded JSON bodies: size (declared or streamed), encoding, nesting and syntax, each a clear 4xx. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonDeeperThan, readJsonBody } from './body.ts';

const req = (body: BodyInit | null, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  new Request('http://127.0.0.1/x', { method: 'POST', body, headers, duplex: 'half' } as RequestInit);

function chunked(parts: number, size: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(c) {
      if (sent++ >= parts) c.close();
      else c.enqueue(new Uint8Array(size).fill(0x20));
    },
  });
}

async function code(r: Request, limits?: { maxBytes?: number; maxDepth?: number }): Promise<string> {
  const out = await readJsonBody(r, limits);
  return out.ok ? 'ok' : `${out.problem.status} ${out.problem.code}`;
}

test('a JSON body within the limits is read', async () => {
  const out = await readJsonBody(req('{"text":"a"}'));
  assert.deepEqual(out, { ok: true, value: { text: 'a' } });
  assert.equal(await code(req('{}', { 'content-type': 'application/json; charset=UTF-8' })), 'ok');
});

test('refusals: type, declared and streamed size, encoding, depth, syntax, emptiness', async () => {
  assert.equal(await code(req('{}', { 'content-type': 'text/plain' })), '415 unsupported_media_type');
  assert.equal(await code(req('{}', {})), '415 unsupported_media_type');
  assert.equal(await code(req('x'.repeat(2000)), { maxBytes: 1000 }), '413 too_large');
  // A streamed body declares no length: the read stops once it passes the limit.
  assert.equal(await code(req(chunked(1000, 1024)), { maxBytes: 64 * 1024 }), '413 too_large');
  assert.equal(await code(req(new Uint8Array([0x22, 0xff, 0xfe, 0x22]))), '400 invalid_encoding');
  assert.equal(await code(req('['.repeat(40) + ']'.repeat(40))), '400 json_too_deep');
  assert.equal(await code(req('{"a":[[[1]]]}'), { maxDepth: 3 }), '400 json_too_deep');
  assert.equal(await code(req('{"a":')), '400 invalid_json');
  assert.equal(await code(req('  ')), '400 invalid_json');
});

test('the depth scan skips strings and escapes, and is linear', () => {
  assert.equal(jsonDeeperThan('{"a":"[[[[[[\\"[[[["}', 2), false);
  assert.equal(jsonDeeperThan('[[[', 2), true);
  const t0 = performance.now();
  assert.equal(jsonDeeperThan(`"${'\\\\['.repeat(500_000)}"`, 1), false);
  assert.ok(performance.now() - t0 < 1000);
});
