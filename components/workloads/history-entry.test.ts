import { test } from 'node:test';
import assert from 'node:assert/strict';
import { historyAction, TYPING_WINDOW_MS, type LastWrite } from './history-entry.ts';

/** Feeds changes (box or null, at time) through the policy as the hook does; returns the actions. */
function run(changes: Array<[string | null, number]>): string[] {
  let last: LastWrite | null = null;
  return changes.map(([burst, at]) => {
    const a = historyAction(last, burst, at);
    last = { burst, at };
    return a;
  });
}

test('a word typed in one go is one entry: the first keystroke pushes, the rest replace', () => {
  assert.deepEqual(run([['q', 0], ['q', 120], ['q', 260], ['q', 400]]), ['push', 'replace', 'replace', 'replace']);
});

test('the window slides with the keystrokes; a pause starts a new entry', () => {
  assert.deepEqual(run([['q', 0], ['q', 900], ['q', 1800], ['q', 1800 + TYPING_WINDOW_MS]]), ['push', 'replace', 'replace', 'push']);
});

test('clicks always push, and typing after a click or in another box pushes', () => {
  assert.deepEqual(run([[null, 0], [null, 10], ['q', 20], ['minGpus', 30], ['minGpus', 40], ['q', 50]]), ['push', 'push', 'push', 'push', 'replace', 'push']);
});
