import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileOne } from './test-support.ts';
import { evaluateStatus } from './status.ts';
import type { EngineError } from './errors.ts';

const def = (statusYaml: string) => compileOne(`
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: s}
spec:
  structureDefinition:
    rootComponent:
      name: root
      kind: {group: g.io, version: v1, kind: Thing}
      statusDefinition:
${statusYaml}
`);

const run = (yamlText: string, obj: unknown) => {
  const errors: EngineError[] = [];
  const s = evaluateStatus(def(yamlText).root.status, obj, 'Thing default/x', errors);
  return { ...s, errors };
};

const conditions = `        conditionsDefinition: {path: .status.conditions}
`;

test('conditions: field names default like the CRD, absence is not False, duplicates keep the last', () => {
  const yamlText = `${conditions}        statusMappings:
          running: [{byConditions: [{type: Ready, status: "True"}, {type: Failed, status: "False"}]}]
          failed: [{byConditions: [{type: Failed, status: "True", reason: BackoffLimitExceeded}]}]`;
  assert.deepEqual(run(yamlText, { status: { conditions: [{ type: 'Ready', status: 'True' }] } }).matched, ['Undefined']);
  assert.deepEqual(run(yamlText, { status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Failed', status: 'False' }] } }).matched, ['Running']);
  const failed = run(yamlText, { status: { conditions: [{ type: 'Failed', status: 'False' }, { type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'too many' }] } });
  assert.deepEqual(failed.matched, ['Failed']);
  assert.deepEqual(failed.conditions[1], { type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'too many' });
});

test('phase: exact match; absent field gives an empty phase; non-strings are errors', () => {
  const yamlText = `        phaseDefinition: {path: .status.state}
        statusMappings:
          running: [{byPhase: ready}]
          failed: [{byPhase: failed}]`;
  assert.deepEqual(run(yamlText, { status: { state: 'ready' } }).matched, ['Running']);
  assert.deepEqual(run(yamlText, { status: { state: 'Ready' } }).matched, ['Undefined']);
  const absent = run(yamlText, {});
  assert.equal(absent.phase, '');
  assert.deepEqual(absent.matched, ['Undefined']);
  const bad = run(yamlText, { status: { state: 3 } });
  assert.equal(bad.errors[0].code, 'expression.type');
  assert.match(bad.errors[0].path, /phaseDefinition\.path$/);
});

test('statuses come in vocabulary order; a matcher with no parts always holds', () => {
  const yamlText = `        statusMappings:
          degraded: [{}]
          running: [{}]
          suspended: [{}]`;
  assert.deepEqual(run(yamlText, {}).matched, ['Suspended', 'Running', 'Degraded']);
});

test('byExpression compares the tostring of the first output; an expected value with quotes cannot inject jq', () => {
  const yamlText = `        statusMappings:
          running:
            - byExpression: {expression: .status.n, expectedResult: "3"}
          failed:
            - byExpression: {expression: .status.s, expectedResult: 'x" or true or "'}
          completed:
            - byExpression: {expression: '.status.obj', expectedResult: '{"a":1,"b":2}'}`;
  assert.deepEqual(run(yamlText, { status: { n: 3, s: 'y', obj: { b: 2, a: 1 } } }).matched, ['Running', 'Completed']);
  assert.deepEqual(run(yamlText, { status: { n: 4, s: 'x" or true or "' } }).matched, ['Failed']);
});

test('a failing expression is reported and the other statuses still evaluate', () => {
  const yamlText = `        statusMappings:
          running:
            - byExpression: {expression: '.status.items[] | .x', expectedResult: "true"}
          failed: [{}]`;
  const r = run(yamlText, { status: { items: null } });
  assert.deepEqual(r.matched, ['Failed']);
  assert.equal(r.errors.length, 1);
  assert.match(r.errors[0].message, /statusMappings\.running\[0\]\.byExpression\.expression.*cannot iterate over/);
});

test('CEL dialect: selected explicitly, integers are ints', () => {
  const yamlText = `        statusMappings:
          running:
            - byExpression:
                language: cel
                expression: 'self.status.ready + 1 == self.spec.replicas + 1 && self.status.conditions.exists(c, c.type == "Available")'
                expectedResult: "true"`;
  assert.deepEqual(run(yamlText, { spec: { replicas: 2 }, status: { ready: 2, conditions: [{ type: 'Available' }] } }).matched, ['Running']);
  assert.deepEqual(run(yamlText, { spec: { replicas: 2 }, status: { ready: 1, conditions: [] } }).matched, ['Undefined']);
});
