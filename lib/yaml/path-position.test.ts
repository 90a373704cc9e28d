import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathSegments, rangeOfPath } from './path-position.ts';

const TEXT = `apiVersion: run.ai/v1alpha1
kind: Karta
metadata:
  name: x
spec:
  structureDefinition:
    rootComponent:
      name: root
    childComponents:
      - name: a
      - name: b
        podSelector:
          componentInstanceSelector:
            idPath: .bad
`;

test('path segments: dots, indexes, quoted keys', () => {
  assert.deepEqual(pathSegments('spec.structureDefinition.childComponents[1].podSelector'), ['spec', 'structureDefinition', 'childComponents', 1, 'podSelector']);
  assert.deepEqual(pathSegments('metadata.labels["run.ai/karta-kind"]'), ['metadata', 'labels', 'run.ai/karta-kind']);
  assert.deepEqual(pathSegments('a.0.b'), ['a', 0, 'b']);
});

test('a field path is found at its key\'s line; a missing field at its nearest parent', () => {
  const r = rangeOfPath(TEXT, 'spec.structureDefinition.childComponents[1].podSelector.componentInstanceSelector.idPath');
  assert.deepEqual([r?.line, r?.exact, TEXT.slice(r!.from, r!.to)], [14, true, 'idPath']);
  const missing = rangeOfPath(TEXT, 'spec.structureDefinition.rootComponent.kind');
  assert.deepEqual([missing?.line, missing?.exact], [7, false]);
  const item = rangeOfPath(TEXT, 'spec.structureDefinition.childComponents[0]');
  assert.equal(item?.line, 10);
  assert.equal(rangeOfPath('{{{', 'a'), null);
});
