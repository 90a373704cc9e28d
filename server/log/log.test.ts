import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createLogger } from './index.ts';

function sink(): { stream: Writable & { write(chunk: string): boolean }; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  });
  return { stream, lines: () => chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) };
}

test('JSON lines carry the level, the component and the bound fields', () => {
  const s = sink();
  const root = createLogger({ level: 'info', format: 'json', destination: s.stream });
  root.child({ component: 'cluster', cluster: 'prod' }).warn({ kind: 'pods', status: 410 }, 'watch expired, relisting');
  root.debug('not written at info');
  const [line, ...rest] = s.lines();
  assert.equal(rest.length, 0);
  assert.equal(line.level, 40);
  assert.equal(line.component, 'cluster');
  assert.equal(line.cluster, 'prod');
  assert.equal(line.kind, 'pods');
  assert.equal(line.msg, 'watch expired, relisting');
  assert.match(String(line.time), /^\d{4}-\d\d-\d\dT/);
});

test('an unknown level falls back to info; silent writes nothing', () => {
  const s = sink();
  createLogger({ level: 'loud', format: 'json', destination: s.stream }).info('kept');
  assert.equal(s.lines().length, 1);
  const q = sink();
  createLogger({ level: 'silent', format: 'json', destination: q.stream }).error('dropped');
  assert.equal(q.lines().length, 0);
});
