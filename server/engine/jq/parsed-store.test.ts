import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readdirSync, readFileSync } from 'node:fs';
import { compileDefinition, loadDefinitionsFromText } from '../index.ts';
import { parse } from './parser.ts';
import { compileJq } from './program.ts';
import { noteParsed, parsedTree, recordParsedTrees, useParsedTrees } from './parsed-store.ts';

test('every catalog expression is recorded, and its tree read back is the parser\'s own', () => {
  const dir = new URL('../../../catalog/', import.meta.url);
  const { trees: recorded } = recordParsedTrees(() => {
    for (const name of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
      for (const d of loadDefinitionsFromText(readFileSync(new URL(name, dir), 'utf8'), name, 'catalog').definitions) compileDefinition(d);
    }
  });
  assert.ok(recorded.size > 300, `${recorded.size} expressions`);
  useParsedTrees((source) => recorded.get(source));
  try {
    for (const [source] of recorded) assert.deepEqual(parsedTree(source), parse(source), source);
  } finally {
    useParsedTrees(null);
  }
});

test('compileJq takes a tree from the store instead of parsing, and parses what the store lacks', () => {
  // The store's tree wins: `.b` compiled from the tree of `.a` reads `.a` (a store is trusted as the parser's output).
  const source = '.b # stored';
  useParsedTrees((s) => (s === source ? JSON.stringify(parse('.a')) : undefined));
  try {
    assert.deepEqual(compileJq(source).run({ a: 1, b: 2 }), [1]);
    assert.deepEqual(compileJq('.b # not stored').run({ a: 1, b: 2 }), [2]);
  } finally {
    useParsedTrees(null);
  }
});

test('only trees JSON gives back unchanged are recorded', () => {
  // A literal beyond a double's range is Infinity, which JSON would write as null.
  const { trees: recorded } = recordParsedTrees(() => {
    for (const source of ['.x + 1e1000', '[-0]', '{a: .b?, "c": [1, "two", null, true]} | tostring']) noteParsed(source, parse(source));
  });
  // Nothing is kept once the work is done.
  noteParsed('.after', parse('.after'));
  assert.deepEqual([...recorded.keys()], ['[-0]', '{a: .b?, "c": [1, "two", null, true]} | tostring']);
  for (const [source, json] of recorded) assert.deepEqual(JSON.parse(json), parse(source));
});
