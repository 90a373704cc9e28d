import { test } from 'node:test';
import assert from 'node:assert/strict';
import { marksOf } from './diagnostics.ts';

const TEXT = 'apiVersion: run.ai/v1alpha1\nkind: Karta\nmetadata:\n  name: x\nspec:\n  structureDefinition: {}\n';

test('a YAML error at its line and column, a field error at its field, the rest at the top', () => {
  const m = marksOf(TEXT, [
    { code: 'document.yaml', message: 'line 4, column 3: bad', path: 'request body' },
    { code: 'definition.invalid', message: 'must be an object', path: 'spec.structureDefinition' },
    { code: 'definition.invalid', message: 'is required', path: 'spec.structureDefinition.rootComponent' },
    { code: 'x', message: 'something', path: '' },
  ]);
  assert.deepEqual(m.map((x) => [x.line, x.message]), [
    [4, 'line 4, column 3: bad'],
    [6, 'spec.structureDefinition: must be an object'],
    [6, 'spec.structureDefinition.rootComponent (missing here): is required'],
    [1, 'something'],
  ]);
  assert.equal(TEXT.slice(m[0].from, m[0].from + 4), 'name');
});
