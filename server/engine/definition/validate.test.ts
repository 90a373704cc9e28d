import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkDefinition, loadDefinitionsFromText } from './load.ts';
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
  const karta = JOBSET_DEFINITION.split('\n').length + 2; // "kind: Karta", whose value "  bad: [" would continue
  assert.deepEqual(
    r.errors.map((e) => [e.code, e.path, e.message]),
    [
      ['document.yaml', 'defs.yaml#2', `line ${karta}, column 7: Nested mappings are not allowed in compact mappings`],
      ['definition.not-a-definition', `defs.yaml#3 (line ${karta + 3})`, 'expected a run.ai/v1alpha1 Karta or optimization.nvidia.com/v1alpha1 ResourceInterface, got Pod'],
    ],
  );
});

test('schema errors do not hide semantic ones: all are reported at once, each with its field path', () => {
  const text = header(`    rootComponent:
      name: root
      kind: {group: g.io, version: v1, kind: Thing}
      statusDefinition:
        statusMappings:
          running: [{byExpression: {expression: '.status.phase ==', expectedResult: "true"}}]
    childComponents:
      - name: a
        ownerRef: ghost
        kind: {group: batch, version: v1, kind: Job}
      - name: b
        ownerRef: root
        instanceIdPath: .spec.groups[].name
        scaleDefinition: {replicasPath: '[range(10)] | length'}
        podSelector:
          componentInstanceSelector: {}
`);
  const r = load(text);
  assert.equal(r.definitions[0].definition, null, 'a definition with schema errors is not used');
  assert.deepEqual(
    r.definitions[0].errors.map((e) => [e.code, e.path]),
    [
      ['definition.schema', 'spec.structureDefinition.childComponents[1].podSelector.componentInstanceSelector.idPath'],
      ['definition.invalid', 'spec.structureDefinition.childComponents[0].ownerRef'],
      ['definition.invalid', 'spec.structureDefinition.rootComponent.statusDefinition.statusMappings.running[0].byExpression.expression'],
      ['definition.invalid', 'spec.structureDefinition.childComponents[1].scaleDefinition.replicasPath'],
    ],
  );
  const m = messages(text);
  assert.match(m[0], /idPath: required field is missing/);
  assert.match(m[1], /owner ref to non-existing component "ghost"/);
  assert.match(m[2], /failed to parse/);
  assert.match(m[3], /'range' may produce excessive output/);
});

test('a field the schema rejects gets the schema error only, not also the semantic checks of a missing field', () => {
  const m = messages(header(`    rootComponent:
      name: root
      kind: Thing
      statusDefinition: {statusMappings: {running: 'yes', failed: [{byExpression: {language: python, expression: 'not jq ((', expectedResult: "true"}}]}}
      suspendDefinition: {suspendActions: [{path: .spec.suspend, value: 1}]}
    childComponents:
      - name: 7
        ownerRef: 42
      - {name: c, ownerRef: root, scaleDefinition: {replicasPath: '.a |= 1'}}
      - just a string
  optimizationInstructions:
    gangScheduling:
      podGroups: [{name: g}, {name: h, members: [{componentName: 3}, {componentName: nobody}]}]
`));
  assert.deepEqual(m.map((x) => x.split(' | ')[0]), [
    'spec.structureDefinition.rootComponent.kind',
    'spec.structureDefinition.rootComponent.statusDefinition.statusMappings.running',
    'spec.structureDefinition.rootComponent.statusDefinition.statusMappings.failed[0].byExpression.language',
    'spec.structureDefinition.rootComponent.suspendDefinition.suspendActions[0].value',
    'spec.structureDefinition.rootComponent.suspendDefinition.resumeActions',
    'spec.structureDefinition.childComponents[0].name',
    'spec.structureDefinition.childComponents[0].ownerRef',
    'spec.structureDefinition.childComponents[2]',
    'spec.optimizationInstructions.gangScheduling.podGroups[0].members',
    'spec.optimizationInstructions.gangScheduling.podGroups[1].members[0].componentName',
    // semantic, on what passed the schema
    'spec.optimizationInstructions.gangScheduling.podGroups[1].members[1].componentName',
    'spec.structureDefinition.childComponents[1].scaleDefinition.replicasPath',
  ], m.join('\n'));
  assert.equal(new Set(m).size, m.length, 'no error twice');
  assert.doesNotMatch(m.find((x) => x.startsWith('spec.structureDefinition.childComponents[0].name'))!, /quote it/, 'a name is no program');
});

test('a document broken at the top still gets its checks, and is not changed by them', () => {
  const doc = { apiVersion: 'run.ai/v1alpha1', kind: 'Karta', metadata: { name: 'x' }, spec: { structureDefinition: { childComponents: [{ name: 'a', ownerRef: 'root', instanceIdPath: '[..]' }] } } };
  const before = structuredClone(doc);
  const r = checkDefinition(doc, 'file', 'x.yaml');
  assert.deepEqual(doc, before);
  assert.deepEqual(r.errors.map((e) => e.path), [
    'spec.structureDefinition.rootComponent',
    'spec.structureDefinition.childComponents[0].ownerRef',
    'spec.structureDefinition.childComponents[0].podSelector.componentInstanceSelector',
    'spec.structureDefinition.childComponents[0].instanceIdPath',
  ]);
  const spec = checkDefinition({ ...doc, spec: 'nope' }, 'file', 'x.yaml');
  assert.deepEqual(spec.errors.map((e) => [e.path, e.message]), [['spec', 'definition "x": spec: expected object, got string']]);
  const unnamed = checkDefinition({ ...doc, metadata: {} }, 'file', 'x.yaml');
  assert.match(unnamed.errors[0].message, /^unnamed definition: metadata\.name: required field is missing/);
  assert.doesNotMatch(unnamed.errors.map((e) => e.message).join('\n'), /x\.yaml/);
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
