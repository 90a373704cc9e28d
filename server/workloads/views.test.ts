import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateDefinitionText } from './views.ts';
import { JOBSET_DEFINITION } from '../engine/test-support.ts';

// What the dashboard's validate box shows for each error: its path, then its message.
const shown = (e: { path: string; message: string }) => `${e.path}: ${e.message}`;

test('validate box: a definition valid as a whole', () => {
  const r = validateDefinitionText(JOBSET_DEFINITION);
  assert.equal(r.valid, true);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.definitions.map((d) => [d.name, d.valid, d.errors]), [['test-jobset', true, []]]);
});

test('validate box: every error of a definition at once, schema and semantic, each with its field path', () => {
  const r = validateDefinitionText(
    JOBSET_DEFINITION.replace('ownerRef: jobset', 'ownerRef: ghost')
      .replace(/componentInstanceSelector: \{idPath: .*\}/, 'componentInstanceSelector: {}')
      .replace("replicasPath: '.spec.replicatedJobs[] | (.replicas // 1) * (.template.spec.parallelism // 1)'", "replicasPath: '[range(3)] | length'")
      .replace('conditionsDefinition: {path: .status.conditions,', "conditionsDefinition: {path: '.status.conditions |',"),
  );
  assert.equal(r.valid, false);
  assert.deepEqual(r.errors, []);
  const [d] = r.definitions;
  assert.equal(d.status, 'invalid');
  const c = 'spec.structureDefinition.childComponents[0]';
  assert.deepEqual(d.errors.map((e) => [e.code, e.path]), [
    ['definition.schema', `${c}.podSelector.componentInstanceSelector.idPath`],
    ['definition.invalid', `${c}.ownerRef`],
    ['definition.invalid', 'spec.structureDefinition.rootComponent.statusDefinition.conditionsDefinition.path'],
    ['definition.invalid', `${c}.scaleDefinition.replicasPath`],
  ]);
});

test('validate box: a YAML typo is one error at its line and column, "request body" named once', () => {
  const lines = JOBSET_DEFINITION.split('\n');
  lines[12] = lines[12].replace(':', ': [x');
  const r = validateDefinitionText(lines.join('\n'));
  assert.equal(r.valid, false);
  assert.deepEqual(r.definitions, []);
  assert.deepEqual(r.errors.map(shown), ['request body: line 13, column 26: Implicit keys of flow sequence pairs need to be on a single line']);
  const several = validateDefinitionText(`${JOBSET_DEFINITION}---\napiVersion: v1\nkind: Pod\n---\nkind: [\n`);
  assert.deepEqual(several.errors.map(shown), [
    'request body#3: line 52, column 1: Flow sequence in block collection must be sufficiently indented and end with a ] (opened at line 51, column 7)',
    'request body#2 (line 48): expected a run.ai/v1alpha1 Karta or optimization.nvidia.com/v1alpha1 ResourceInterface, got Pod',
  ]);
});
