import { test } from 'node:test';
import assert from 'node:assert/strict';
import { anchorAt, restoreAnchor, revealScrollTop, visibleRange } from './virtual-window.ts';

test('only the rows in view, plus some overscan, are rendered', () => {
  assert.deepEqual(visibleRange(0, 400, 40, 10_000, 5), { start: 0, end: 16 });
  assert.deepEqual(visibleRange(4000, 400, 40, 10_000, 5), { start: 95, end: 116 });
  assert.deepEqual(visibleRange(1e9, 400, 40, 100, 5), { start: 94, end: 100 });
  assert.deepEqual(visibleRange(0, 400, 40, 0), { start: 0, end: 0 });
  assert.deepEqual(visibleRange(-50, 400, 40, 3, 5), { start: 0, end: 3 });
});

test('revealing a row scrolls the least', () => {
  assert.equal(revealScrollTop(5, 0, 400, 40), 0);
  assert.equal(revealScrollTop(12, 0, 400, 40), 120);
  assert.equal(revealScrollTop(2, 200, 400, 40), 80);
});

test('the row at the top stays put when rows are inserted above it', () => {
  const before = ['a', 'b', 'c', 'd', 'e'];
  const a = anchorAt(before, 90, 40); // inside row 2 ("c"), 10 px scrolled past its top
  assert.deepEqual(a, { id: 'c', offset: 10 });
  const after = ['x', 'y', 'a', 'b', 'c', 'd', 'e'];
  assert.equal(restoreAnchor(a, (id) => after.indexOf(id), 40), 170);
  assert.equal(restoreAnchor(a, () => -1, 40), null);
  assert.equal(anchorAt(before, 0, 40), null);
});
