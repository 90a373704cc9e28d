import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_VIEW, clearFilters, decodeView, encodeView, hasFilters, toggleSort } from './view-state.ts';
import type { ViewState } from './view-state.ts';

test('the default view encodes to an empty query and back', () => {
  assert.equal(encodeView(DEFAULT_VIEW), '');
  assert.deepEqual(decodeView(''), DEFAULT_VIEW);
});

test('every field survives a round trip through the URL', () => {
  const v: ViewState = {
    q: 'llama train',
    status: ['Running', 'Failed'],
    kind: ['JobSet'],
    namespace: ['team-a', 'team b'],
    cluster: ['prod/eu,1'],
    gpuField: 'requested',
    minGpus: 4,
    maxGpus: 16,
    preset: 'waiting',
    cel: 'gpus.allocated >= 8 && status == "Running"',
    sort: 'allocated',
    order: 'asc',
  };
  // Context names may hold commas: clusters are never split.
  assert.deepEqual(decodeView(encodeView(v)), v);
});

test('comma-separated and repeated list parameters are both read, without duplicates', () => {
  const v = decodeView('status=Running,Failed&status=Failed&kind=%20JobSet%20');
  assert.deepEqual(v.status, ['Running', 'Failed']);
  assert.deepEqual(v.kind, ['JobSet']);
});

test('bad values fall back to defaults instead of breaking the page', () => {
  const v = decodeView('sort=bogus&order=sideways&gpuField=x&minGpus=-3&maxGpus=abc&preset=nope');
  assert.equal(v.sort, 'name');
  assert.equal(v.order, 'asc');
  assert.equal(v.gpuField, 'allocated');
  assert.equal(v.minGpus, null);
  assert.equal(v.maxGpus, null);
  assert.equal(v.preset, null);
});

test('numeric columns sort descending by default and omit the order when it is the default', () => {
  const v = toggleSort(DEFAULT_VIEW, 'allocated');
  assert.equal(v.order, 'desc');
  assert.equal(encodeView(v), 'sort=allocated');
  assert.deepEqual(decodeView('sort=allocated'), v);
  const flipped = toggleSort(v, 'allocated');
  assert.equal(flipped.order, 'asc');
  assert.equal(encodeView(flipped), 'sort=allocated&order=asc');
  assert.equal(encodeView(toggleSort(DEFAULT_VIEW, 'name')), 'sort=name&order=desc');
});

test('zero is a real bound, not an absent one', () => {
  const v = decodeView('minGpus=0&maxGpus=0');
  assert.equal(v.minGpus, 0);
  assert.equal(v.maxGpus, 0);
  assert.equal(encodeView(v), 'minGpus=0&maxGpus=0');
});

test('hasFilters ignores the sort; clearFilters keeps it', () => {
  const sorted = toggleSort(DEFAULT_VIEW, 'age');
  assert.equal(hasFilters(sorted), false);
  const filtered = { ...sorted, q: 'x', status: ['Running'] };
  assert.equal(hasFilters(filtered), true);
  assert.deepEqual(clearFilters(filtered), sorted);
});
