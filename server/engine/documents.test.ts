import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_DOCUMENT_LIMITS, parseDocuments } from './documents.ts';

/** Parses and returns the result with the time it took. */
function timed(text: string, source = 'x.yaml', limits?: Parameters<typeof parseDocuments>[2]) {
  const start = performance.now();
  const r = parseDocuments(text, source, limits);
  // as the CLI prints them: the path names the source and document, the message does not
  return { ...r, ms: performance.now() - start, messages: r.errors.map((e) => `${e.path}: ${e.message}`) };
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
    assert.equal(r.errors.length, 1);
    assert.match(r.messages[0], /^x\.yaml#2: line 4, column 1: /);
    assert.equal(r.errors[0].path, 'x.yaml#2');
  });

  // a definition-sized document: 30 lines, nested maps and a list, quoted jq
  const body = (n: number) =>
    Array.from({ length: n }, (_, i) => (i % 3 === 0 ? `k${i}:` : i % 3 === 1 ? `  a${i}: '.status.x${i} // 0'` : `  b${i}: [${i}, {c: "d"}]`)).join('\n');
  const withLine = (text: string, line: number, edit: (l: string) => string) => text.split('\n').map((l, i) => (i === line - 1 ? edit(l) : l)).join('\n');

  it('one typo gives one error, at the typo\'s line and column, not its consequences', () => {
    const text = body(30);
    assert.deepEqual(timed(text).errors, []);
    // line 13 is "k12:"; each edit is detected on line 13 itself
    const cases: Array<[string, (l: string) => string, number]> = [
      ['an unclosed flow sequence', (l) => l.replace(':', ': [x'), 7],
      ['a tab as indentation', (l) => `\t${l}`, 1],
      ['a key without its colon, then a nested map', (l) => l.replace(':', ''), 1],
    ];
    for (const [what, edit, col] of cases) {
      const r = timed(withLine(text, 13, edit));
      assert.deepEqual(r.messages.length, 1, `${what}: ${r.messages.join('\n')}`);
      assert.match(r.messages[0], new RegExp(`^x\\.yaml: line 13, column ${col}: `), what);
    }
    // a badly indented item is named at the item, not at the end of the line before it
    const dedented = timed(withLine(text, 15, (l) => l.slice(1)));
    assert.deepEqual(dedented.messages, ['x.yaml: line 15, column 2: All mapping items must start at the same column']);
  });

  it('a quoted string that runs on, or an unclosed bracket, names where it was opened', () => {
    const text = ['spec:', '  root: "x', '    name: jobset', '    kind:', '      group: "batch"', '  other: 1', ''].join('\n');
    const r = timed(text);
    assert.equal(r.messages.length, 1, r.messages.join('\n'));
    assert.match(r.messages[0], /^x\.yaml: line 5, column \d+: .*\(a quoted string runs to here from line 2, column 9: is its closing quote missing\?\)$/);
    // an unclosed flow collection names where it was opened
    assert.deepEqual(timed('a:\n  b: {x: [1, 2\n  c: 3\n').messages, [
      'x.yaml: line 3, column 3: Flow sequence in block collection must be sufficiently indented and end with a ] (opened at line 2, column 10)',
    ]);
    // an unclosed quote that yaml can place itself needs no hint
    const plain = timed(withLine(body(30), 14, (l) => l.replace(/'$/, '')));
    assert.deepEqual(plain.messages, ["x.yaml: line 14, column 25: Missing closing 'quote"]);
  });

  it('in a multi-document text, the line of an error in a later document is the text\'s line', () => {
    const text = `${body(30)}\n---\n${body(30)}\n---\n${body(6)}\n`;
    // the second document starts at line 32; its line 13 is the text's line 44
    const r = timed(withLine(text, 44, (l) => l.replace(':', ': [x')));
    assert.deepEqual(r.messages.length, 1, r.messages.join('\n'));
    assert.match(r.messages[0], /^x\.yaml#2: line 44, column 7: /);
    assert.equal(r.documents.length, 2, 'the other documents still load');
    assert.deepEqual(r.documents.map((d) => d.where), ['x.yaml#1 (line 1)', 'x.yaml#3 (line 63)']);
  });

  it('names the source once: in the path, not again in the message', () => {
    for (const text of ['a: [1\n', 'a: 1\n---\nb: [\n', '[{"a":', 'a: 1\n'.repeat(30)]) {
      for (const e of timed(text, 'request body', { ...DEFAULT_DOCUMENT_LIMITS, maxBytes: 100 }).errors) {
        assert.match(e.path, /^request body/);
        assert.doesNotMatch(e.message, /request body/);
      }
    }
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
    assert.deepEqual(timed(block).messages, ['x.yaml: nests deeper than 128 levels']);
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
