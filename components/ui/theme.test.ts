import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextPreference, parsePreference, resolveTheme } from './theme.ts';

test('system follows the OS; an explicit choice wins; the toggle cycles through all three', () => {
  assert.equal(resolveTheme('system', true), 'dark');
  assert.equal(resolveTheme('system', false), 'light');
  assert.equal(resolveTheme('light', true), 'light');
  assert.equal(resolveTheme('dark', false), 'dark');
  assert.deepEqual([nextPreference('system'), nextPreference('light'), nextPreference('dark')], ['light', 'dark', 'system']);
  assert.equal(parsePreference('nonsense'), 'system');
  assert.equal(parsePreference(null), 'system');
});
