import { test } from 'node:test';
import assert from 'node:assert/strict';
import { captureLogs } from '../../log/test-support.ts';
import { SimClock } from '../clock.ts';
import { resolveOptions } from './options.ts';

test('reconcile errors go to the log as warnings, at most 20 per runtime', () => {
  const logs = captureLogs();
  const clock = SimClock.manual();
  try {
    const o = resolveOptions({ clock });
    for (let i = 0; i < 25; i++) o.onError(new Error(`bad ${i}`), 'job default/x');
    const lines = logs.records() as Array<{ level: number; component: string; where: string; msg: string; err: { message: string } }>;
    assert.equal(lines.length, 20);
    assert.deepEqual(
      { level: lines[0].level, component: lines[0].component, where: lines[0].where, msg: lines[0].msg, err: lines[0].err.message },
      { level: 40, component: 'sim.controllers', where: 'job default/x', msg: 'reconcile failed', err: 'bad 0' },
    );
  } finally {
    clock.stop();
    logs.restore();
  }
});
