import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gridMinWidth } from './grid-width.ts';

test('a grid row is at least its tracks’ minimums, gaps and padding wide', () => {
  assert.equal(gridMinWidth(['minmax(150px,1fr)', '96px', 'minmax(90px, 0.8fr)'], 12, 24), 150 + 96 + 90 + 24 + 24);
  assert.equal(gridMinWidth(['1fr', 'auto', '60px'], 10, 0), 60 + 20);
  assert.equal(gridMinWidth([], 12, 24), 24);
});
