import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadDefinitionsFromText } from './load.ts';
import { JOBSET_DEFINITION } from '../test-support.ts';

const load = (text: string) => loadDefinitionsFromText(text, 'defs.yaml');
const messages = (text: string) => {
  const r = load(text);
  return [...r.errors, ...r.definitions.flatMap((d) => d.errors)].map((e) => `${e.path} | ${e.message}`);
};

const header = (extra = '') => `apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: broken}
spec:
  structureDefinition:
${extra}`;

test('a valid definition loads in both API versions', () => {
  assert.deepEqual(messages(JOBSET_DEFINITION), []);
  const old = JOBSET_DEFINITION.replace('apiVersion: run.ai/v1alpha1\nkind: Karta', 'apiVersion: optimization.nvidia.com/v1alpha1\nkind: ResourceInterface')
    .replace(/ {6}suspendDefinition:[\s\S]*?resumeActions: .*\n/, '')
    .replace(/ {10}suspended: .*\n/, '');
  const r = load(old);
  assert.equal(r.definitions.length, 1);
  assert.equal(r.definitions[0].definition?.kind, 'ResourceInterface');
  assert.deepEqual(r.definitions[0].errors, []);
});

test('the older ResourceInterface API has no suspend support and no podGroup', () => {
  const old = JOBSET_DEFINITION.replace('apiVersion: run.ai/v1alpha1\nkind: Karta', 'apiVersion: optimization.nvidia.com/v1alpha1\nkind: ResourceInterface');
  const m = messages(old);
  assert.ok(m.some((x) => /rootComponent\.suspendDefinition \| .*exists only in run\.ai\/v1alpha1 Karta/.test(x)), m.join('\n'));
  assert.ok(m.some((x) => /statusMappings\.suspended \| .*status "suspended" exists only/.test(x)), m.join('\n'));
});

test('unknown and mistyped fields are named by their full path', () => {
  const m = messages(header(`    rootComponent:
      name: root
      kind: {group: g.io, version: v1, kind: Thing}
      statusDefinition: {statusMappings: {}}
      specDefinition: {podTemplatePath: .spec.template}
    childComponents:
      - name: worker
        ownerRef: root
        scaleDefinition: {replicasPath: 3}
`));
  assert.deepEqual(m, [
    'spec.structureDefinition.rootComponent.specDefinition.podTemplatePath | definition "broken": spec.structureDefinition.rootComponent.specDefinition.podTemplatePath: unknown field "podTemplatePath"',
    'spec.structureDefinition.childComponents[0].scaleDefinition.replicasPath | definition "broken": spec.structureDefinition.childComponents[0].scaleDefinition.replicasPath: expected string, got number (quote it: a literal program such as "1" is written as a string)',
  ]);
});

test('every semantic rule is reported, all errors of one definition together', () => {
  const m = messages(header(`    rootComponent:
      name: root
      kind: {version: v1, kind: Thing}
      ownerRef: nobody
    childComponents:
      - name: root
        ownerRef: root
      - name: a
        ownerRef: b
        instanceIdPath: .spec.groups[].name
        specDefinition:
          podTemplateSpecPath: .spec.template
          podSpecPath: .spec.template.spec
      - name: b
        ownerRef: a
        podSelector:
          componentInstanceSelector: {idPath: '.metadata.labels["g"]'}
      - name: c
      - name: d
        ownerRef: ghost
        podSelector:
          componentTypeSelector: {keyPath: '.metadata.labels.job-name'}
          replicaSelector: {keyPath: '[..]'}
        scaleDefinition: {replicasPath: 'del(.x) | (.a |= 1) | [range(10)]'}
  optimizationInstructions:
    gangScheduling:
      podGroups:
        - name: g
          members: [{componentName: missing}]
      podGroup:
        name: pg
        topology: {topologyName: ""}
        subGroups: [{componentName: ""}, {componentName: nope}]
`));
  const has = (re: RegExp) => assert.ok(m.some((x) => re.test(x)), `expected ${re} in:\n${m.join('\n')}`);
  has(/^spec\.structureDefinition\.childComponents\[0\]\.name \| .*component name "root" is not unique/);
  has(/rootComponent\.kind \| .*root component must have full kind/);
  has(/rootComponent\.ownerRef \| .*root component cannot have owner ref/);
  has(/rootComponent\.statusDefinition \| .*root component must have status definition/);
  has(/childComponents\[3\]\.ownerRef \| .*child component "c" has no owner ref/);
  has(/childComponents\[4\]\.ownerRef \| .*owner ref to non-existing component "ghost"/);
  has(/childComponents\[1\]\.specDefinition \| .*component "a" has multiple pod spec definitions/);
  has(/childComponents\[1\]\.podSelector\.componentInstanceSelector \| .*has instance id path but no pod component instance selector/);
  has(/childComponents\[2\]\.instanceIdPath \| .*has pod component instance selector but no instance id path/);
  has(/podGroups\[0\]\.members\[0\]\.componentName \| .*pod-group member component "missing" is not defined/);
  has(/podGroup\.subGroups\[0\]\.componentName \| .*subgroup component name cannot be empty/);
  has(/podGroup\.subGroups\[1\]\.componentName \| .*component "nope" not found/);
  has(/podGroup\.topology\.topologyName \| .*topology constraint must include topology name/);
  has(/childComponents\[4\]\.podSelector\.replicaSelector\.keyPath \| .*recursive descent/);
  has(/childComponents\[4\]\.scaleDefinition\.replicasPath \| .*del function is not allowed/);
  has(/childComponents\[4\]\.scaleDefinition\.replicasPath \| .*'\|=' is not allowed/);
  has(/childComponents\[4\]\.scaleDefinition\.replicasPath \| .*'range' may produce excessive output/);
  has(/childComponents\[4\]\.podSelector\.componentTypeSelector\.keyPath \| .*name\/0/);
});

test('ownership cycles are found', () => {
  const m = messages(header(`    rootComponent:
      name: root
      kind: {group: g.io, version: v1, kind: Thing}
      statusDefinition: {statusMappings: {}}
    childComponents:
      - {name: a, ownerRef: b}
      - {name: b, ownerRef: a}
`));
  assert.equal(m.length, 1);
  assert.match(m[0], /ownership cycle detected involving component "a"/);
});

test('malformed YAML is reported with its line, and other documents still load', () => {
  const text = `${JOBSET_DEFINITION}\n---\nkind: Karta\n  bad: [\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\n`;
  const r = load(text);
  assert.equal(r.definitions.length, 1);
  assert.ok(r.errors.some((e) => e.code === 'document.yaml' && /line \d+/.test(e.message)));
  assert.ok(r.errors.some((e) => e.code === 'definition.not-a-definition' && /got Pod/.test(e.message)));
});

test('CEL status expressions are checked at load time', () => {
  const cel = JOBSET_DEFINITION.replace(
    "expression: '(.status.replicatedJobsStatus // []) | any(.active > 0) and all(.ready == 0)'",
    'language: cel\n                expression: \'self.status.replicatedJobsStatus.all(j, j.ready == 0) &&\'',
  );
  const m = messages(cel);
  assert.equal(m.length, 1);
  assert.match(m[0], /statusMappings\.initializing\[0\]\.byExpression\.expression \| .*CEL expression/);
});
