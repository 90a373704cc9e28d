import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from './index.ts';
import { logSink as sink } from './test-support.ts';

test('JSON lines carry the level, the component and the bound fields', () => {
  const s = sink();
  const root = createLogger({ level: 'info', format: 'json', destination: s.stream });
  root.child({ component: 'cluster', cluster: 'prod' }).warn({ kind: 'pods', status: 410 }, 'watch expired, relisting');
  root.debug('not written at info');
  const [line, ...rest] = s.records();
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
  assert.equal(s.records().length, 1);
  const q = sink();
  createLogger({ level: 'silent', format: 'json', destination: q.stream }).error('dropped');
  assert.equal(q.records().length, 0);
});
