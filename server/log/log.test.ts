import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger, logger, rootLoggerWasSet, setRootDefaults, setRootLogger } from './index.ts';
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

test('a component logger makes the root only for a line the root will write, with the defaults of that moment', () => {
  const early = sink();
  const late = sink();
  setRootDefaults({ level: 'warn', format: 'json', destination: early.stream });
  const log = logger('cluster', { cluster: 'prod' });
  const child = log.child({ resource: 'pods' });
  log.info('below warn: no logger is made for it');
  child.debug('nor for this');
  // Had the lines above made the root, it would write to `early`.
  setRootDefaults({ level: 'warn', format: 'json', destination: late.stream });
  child.warn({ status: 410 }, 'watch expired');
  log.error('list failed');
  assert.equal(early.records().length, 0);
  const lines = late.records();
  assert.deepEqual(lines.map((l) => [l.level, l.component, l.cluster, l.resource, l.msg]), [
    [40, 'cluster', 'prod', 'pods', 'watch expired'],
    [50, 'cluster', 'prod', undefined, 'list failed'],
  ]);
  assert.equal(lines[0].status, 410);
  // Once the root exists, a component logger is a plain pino child: its level reads through.
  assert.equal(logger('live').level, 'warn');
  assert.equal(log.isLevelEnabled('info'), false);
});

test('a root set on purpose outlives later defaults', () => {
  const chosen = sink();
  const ignored = sink();
  setRootLogger(createLogger({ level: 'info', format: 'json', destination: chosen.stream }));
  assert.equal(rootLoggerWasSet(), true);
  setRootDefaults({ level: 'error', format: 'json', destination: ignored.stream });
  logger('audit').info('kept');
  assert.deepEqual(chosen.records().map((l) => l.msg), ['kept']);
  assert.equal(ignored.records().length, 0);
});
