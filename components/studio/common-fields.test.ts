import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readCommonFields, writeCommonField } from './common-fields.ts';

const TEXT = `# my definition
apiVersion: run.ai/v1alpha1
kind: Karta
metadata:
  name: old # keep me
spec:
  structureDefinition:
    rootComponent:
      name: root
`;

test('the common fields are read, and written back keeping comments and creating missing parents', () => {
  assert.deepEqual(readCommonFields(TEXT), { name: 'old', rootName: 'root', group: '', version: '', kind: '' });
  const named = writeCommonField(TEXT, 'name', 'new');
  assert.match(named, /^# my definition/);
  assert.match(named, /name: new # keep me/);
  const kinded = writeCommonField(named, 'kind', 'TrainingRun');
  assert.equal(readCommonFields(kinded)?.kind, 'TrainingRun');
  assert.match(kinded, /rootComponent:\n\s+name: root\n\s+kind:\n\s+kind: TrainingRun/);
  assert.equal(readCommonFields('a: [\n'), null);
  assert.equal(writeCommonField('a: [\n', 'name', 'x'), 'a: [\n');
});
