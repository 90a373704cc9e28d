import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDocuments } from './documents.ts';

/** Parses and returns the result with the time it took. */
function timed(text: string, source = 'x.yaml', limits?: Parameters<typeof parseDocuments>[2]) {
  const start = performance.now();
  const r = parseDocuments(text, source, limits);
  return { ...r, ms: performance.now() - start, messages: r.errors.map((e) => e.message) };
}

// Generous for a loaded 2-core machine; on an idle one these take a few to a few hundred milliseconds.
const FAST_MS = 3000;

describe('parseDocuments', () => {
  it('reads multi-document YAML, JSON and Lists, naming each document and its line', () => {
    const r = timed('a: 1\n---\n\nb: no\n---\nkind: PodList\nitems: [{x: 1}, {x: 2}]\n');
    assert.deepEqual(r.errors, []);
    assert.deepEqual(
      r.documents.map((d) => [d.value, d.where]),
      [
        [{ a: 1 }, 'x.yaml#1 (line 1)'],
        [{ b: false }, 'x.yaml#2 (line 4)'],
        [{ x: 1 }, 'x.yaml#3 (line 6) items[0]'],
        [{ x: 2 }, 'x.yaml#3 (line 6) items[1]'],
      ],
    );
    assert.deepEqual(timed('[{"a": 1}, {"b": 2}]', 'x.json').documents.map((d) => d.where), ['x.json[0]', 'x.json[1]']);
  });

  it('reports YAML errors with their line and column', () => {
    const r = timed('a: 1\n---\nb: [1\n');
    assert.equal(r.documents.length, 1);
    assert.match(r.messages[0], /^x\.yaml: line 4, column 1: /);
    assert.equal(r.errors[0].path, 'x.yaml#2 (line 3)');
  });

  it('is linear in the number of documents and stops at the document limit', () => {
    const many = timed('---\n'.repeat(100_000));
    assert.ok(many.ms < FAST_MS, `${many.ms} ms`);
    assert.deepEqual(many.documents, []);
    assert.deepEqual(many.messages, ['x.yaml: more than 10000 documents (document 10001 starts at line 10001)']);
    const under = timed('a: 1\n---\n'.repeat(5000));
    assert.ok(under.ms < FAST_MS, `${under.ms} ms`);
    assert.equal(under.documents.length, 5000);
    assert.equal(under.documents[4999].where, 'x.yaml#5000 (line 9999)');
  });

  it('refuses an alias bomb with an error, not an exception', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 10; i++) {
      const name = String.fromCharCode(97 + i);
      lines.push(`${name}: &${name} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
    }
    const r = timed(`kind: Pod\n---\n${lines.join('\n')}\n`);
    assert.ok(r.ms < FAST_MS, `${r.ms} ms`);
    assert.equal(r.documents.length, 1);
    assert.deepEqual(r.messages, ['x.yaml#2 (line 3): too many aliases: Excessive alias count indicates a resource exhaustion attack']);
    // a few aliases are fine
    assert.deepEqual(timed('a: &x {b: 1}\nc: *x\n').documents[0].value, { a: { b: 1 }, c: { b: 1 } });
  });

  it('bounds nesting depth in YAML (block and flow) and JSON', () => {
    const deepJson = timed('['.repeat(100_000) + ']'.repeat(100_000), 'x.json');
    assert.ok(deepJson.ms < FAST_MS, `${deepJson.ms} ms`);
    assert.deepEqual(deepJson.messages, ['x.json[0]: nests deeper than 128 levels']);
    const deepObject = timed(`${'{"a":'.repeat(200)}1${'}'.repeat(200)}`, 'x.json');
    assert.deepEqual(deepObject.messages, ['x.json: nests deeper than 128 levels']);
    const block = Array.from({ length: 200 }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ' 1\n';
    assert.deepEqual(timed(block).messages, ['x.yaml (line 1): nests deeper than 128 levels']);
    const flow = timed(`a: ${'['.repeat(50_000)}${']'.repeat(50_000)}\n`);
    assert.ok(flow.ms < FAST_MS, `${flow.ms} ms`);
    assert.equal(flow.documents.length, 0);
    assert.match(flow.messages[0], /nests (too deeply|deeper than 128 levels)/);
    // at the limit is fine
    assert.equal(timed(`${'{"a":'.repeat(127)}1${'}'.repeat(127)}`, 'x.json').errors.length, 0);
  });

  it('bounds the size of the text', () => {
    const r = timed('a: 1\n'.repeat(100), 'x.yaml', { maxBytes: 100, maxDocuments: 10, maxDepth: 10, maxAliasCount: 10 });
    assert.deepEqual(r.messages, ['x.yaml: the text has 500 characters, more than the limit of 100']);
    assert.deepEqual(r.documents, []);
  });
});
