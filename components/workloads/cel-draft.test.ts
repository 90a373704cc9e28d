import { test } from 'node:test';
import assert from 'node:assert/strict';
import { celBoxMessage } from './cel-draft.ts';

test('the applied expression broken: its error shows while the box holds it', () => {
  const m = celBoxMessage({ draft: 'gpus.allocated >=', checked: 'gpus.allocated >=', applied: 'gpus.allocated >=', appliedError: 'Unexpected token' });
  assert.deepEqual(m, { tone: 'bad', text: 'Unexpected token', applied: true });
});

test('typing a new draft clears the old error at once, before the draft is checked', () => {
  assert.equal(celBoxMessage({ draft: 'gpus.allocated >= 8', checked: 'gpus.allocated >=', applied: 'gpus.allocated >=', appliedError: 'Unexpected token' }), null);
});

test('after the pause the draft itself is checked: its own error, or a hint that Enter applies it', () => {
  const bad = celBoxMessage({ draft: 'status ==', checked: 'status ==', applied: '', appliedError: null });
  assert.equal(bad?.tone, 'bad');
  assert.match(bad!.tone === 'bad' ? bad!.text : '', /Unexpected token/);
  assert.equal(bad!.tone === 'bad' && bad!.applied, false);
  assert.deepEqual(celBoxMessage({ draft: 'gpus.allocated >= 8', checked: 'gpus.allocated >= 8', applied: 'gpus.allocated >=', appliedError: 'Unexpected token' }), {
    tone: 'hint',
    text: 'Enter applies this expression in place of the current one.',
  });
});

test('an empty box or a working applied expression says nothing', () => {
  assert.equal(celBoxMessage({ draft: '', checked: '', applied: '', appliedError: null }), null);
  assert.equal(celBoxMessage({ draft: 'gpus.allocated > 1', checked: 'gpus.allocated > 1', applied: 'gpus.allocated > 1', appliedError: null }), null);
  assert.equal(celBoxMessage({ draft: '  ', checked: '  ', applied: 'x > 1', appliedError: null }), null);
});
