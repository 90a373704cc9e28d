/**
 * Hostile definitions and objects against the live index (issue "hardening"): each case puts one
 * bad cluster definition (and the objects it runs on) next to a healthy JobSet. Every case must end
 * with a clear error naming what and where — the definition listed as invalid, failing or
 * quarantined — while the JobSet's row stays exactly right, and within a bounded time.
 */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { parse } from 'yaml';
import { loadCatalog } from '../catalog/index.ts';
import type { KubeObject } from '../engine/index.ts';
import { JOBSET_DEFINITION, jobSetObjects } from '../engine/test-support.ts';
import { DefinitionSet } from './definitions.ts';
import { LiveWorkloads } from './live.ts';
import { definitionItems } from './views.ts';
import { WorkloadIndex } from './workload-index.ts';

const catalog = LiveWorkloads.catalogEntries(loadCatalog());
const open: WorkloadIndex[] = [];
afterEach(() => {
  for (const i of open.splice(0)) i.close();
});

const BASE = `
apiVersion: run.ai/v1alpha1
kind: Karta
spec:
  structureDefinition:
    rootComponent:
      name: thing
      kind: {group: example.com, version: v1, kind: Thing}
      statusDefinition:
        statusMappings:
          running: [{byExpression: {expression: '.status.phase == "Running"', expectedResult: "true"}}]
    childComponents:
      - name: worker
        kind: {group: "", version: v1, kind: Pod}
        ownerRef: thing
        specDefinition: {podTemplateSpecPath: .spec.template}
        scaleDefinition: {replicasPath: .spec.replicas}
        podSelector:
          componentTypeSelector: {keyPath: '.metadata.labels["role"]', value: worker}
`;

type Doc = { spec: { structureDefinition: { rootComponent: Record<string, unknown> & { statusDefinition: { statusMappings: Record<string, unknown> } }; childComponents: Array<Record<string, unknown>> } } } & Record<string, unknown>;

function definition(edit: (d: Doc) => void): KubeObject {
  const d = parse(BASE) as Doc;
  edit(d);
  return { ...d, metadata: { name: 'hostile', uid: 'uid-hostile', resourceVersion: '1', creationTimestamp: '2026-01-01T00:00:00Z', ...((d.metadata as object) ?? {}) } } as KubeObject;
}

const jqStatus = (expression: string) => (d: Doc) => {
  d.spec.structureDefinition.rootComponent.statusDefinition.statusMappings = { running: [{ byExpression: { expression, expectedResult: 'true' } }] };
};
const celStatus = (expression: string) => (d: Doc) => {
  d.spec.structureDefinition.rootComponent.statusDefinition.statusMappings = { running: [{ byExpression: { expression, language: 'cel', expectedResult: 'true' } }] };
};

function thing(extra: Record<string, unknown> = {}, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'thing-1', namespace: 'default', uid: 'uid-thing-1', labels }, spec: { replicas: 1, template: { spec: { containers: [{ name: 'c' }] } }, ...extra }, status: { phase: 'Running' } };
}

interface Case {
  what: string;
  definition: KubeObject;
  objects?: KubeObject[];
  /** How the hostile definition must be listed (`valid`: harmless here, e.g. linear-time regexes). */
  status: 'valid' | 'invalid' | 'failing' | 'quarantined';
  /** Its first error (invalid) or the failing example must match. */
  message: RegExp;
  /** The field path of that error (invalid only). */
  path?: RegExp;
}

/** The test JobSet definition with a status expression that exceeds its size budget on any object. */
const JOBSET_HEAVY = JOBSET_DEFINITION.replace(/name: [^\n]+/, 'name: heavy').replace(/expression: '[^']*'/, `expression: '${Array.from({ length: 22 }, () => '[.,.]').join(' | ')} | tojson | length > 0'`);

const doubling = `${Array.from({ length: 22 }, () => '[.,.]').join(' | ')} | tojson | length > 0`;
const deepParens = `${'('.repeat(3000)}.${')'.repeat(3000)}`;
let deepObject: Record<string, unknown> = { leaf: true };
for (let i = 0; i < 5000; i++) deepObject = { x: deepObject };
const ten = '[0,1,2,3,4,5,6,7,8,9]';
let eightAll = 'true';
for (let i = 0; i < 8; i++) eightAll = `${ten}.all(x${i}, ${eightAll})`;

const CASES: Case[] = [
  { what: 'jq values doubled 22 times, then serialised', definition: definition(jqStatus(doubling)), objects: [thing()], status: 'failing', message: /budget|limit|exceed/i },
  { what: 'a backtracking regex against a crafted label', definition: definition(jqStatus('.metadata.labels.x | test("^(a+)+$")')), objects: [thing({}, { x: `${'a'.repeat(38)}!` })], status: 'valid', message: /./ },
  { what: '3,000 nested parentheses', definition: definition(jqStatus(deepParens)), status: 'invalid', message: /nest|deep|depth/i, path: /statusMappings/ },
  { what: 'an expression of 100 KB', definition: definition(jqStatus(`.a${' or .a'.repeat(20_000)}`)), status: 'invalid', message: /long|length|size/i, path: /statusMappings/ },
  { what: 'CEL: eight nested comprehensions', definition: definition(celStatus(eightAll)), status: 'invalid', message: /too costly/, path: /statusMappings/ },
  { what: 'CEL: costly for the object at hand', definition: definition(celStatus('self.spec.items.all(a, self.spec.items.all(b, self.spec.items.all(c, a + b + c >= 0)))')), objects: [thing({ items: Array.from({ length: 200 }, (_, i) => i) })], status: 'failing', message: /cost limit/ },
  { what: 'CEL: a catastrophic matches pattern', definition: definition(celStatus('self.metadata.labels.x.matches("^(a+)+$")')), objects: [thing({}, { x: `${'a'.repeat(40)}!` })], status: 'valid', message: /./ },
  { what: 'jq recursion operators', definition: definition(jqStatus('[..] | length > 0')), status: 'invalid', message: /\.\.|recurs|not allowed|rejected/i, path: /statusMappings/ },
  { what: 'jq repeat', definition: definition(jqStatus('[limit(100000000; repeat(.))] | length > 0')), status: 'invalid', message: /repeat/, path: /statusMappings/ },
  { what: 'jq range', definition: definition(jqStatus('[range(1e9)] | length > 0')), status: 'invalid', message: /range/, path: /statusMappings/ },
  { what: 'a syntax error', definition: definition(jqStatus('.status.phase ==')), status: 'invalid', message: /./, path: /statusMappings/ },
  { what: 'an expression that is not a string', definition: definition((d) => { d.spec.structureDefinition.rootComponent.statusDefinition.statusMappings = { running: [{ byExpression: { expression: 42, expectedResult: 'true' } }] }; }), status: 'invalid', message: /./, path: /statusMappings/ },
  { what: 'a child-component cycle a ↔ b', definition: definition((d) => { d.spec.structureDefinition.childComponents = [{ name: 'a', kind: { group: 'batch', version: 'v1', kind: 'Job' }, ownerRef: 'b' }, { name: 'b', kind: { group: 'batch', version: 'v1', kind: 'Job' }, ownerRef: 'a' }]; }), status: 'invalid', message: /ownership cycle/, path: /childComponents\[\d\]\.ownerRef/ },
  { what: 'no root component', definition: definition((d) => { delete (d.spec.structureDefinition as Record<string, unknown>).rootComponent; }), status: 'invalid', message: /rootComponent|root component/, path: /rootComponent/ },
  { what: 'spec is not an object', definition: definition((d) => { (d as Record<string, unknown>).spec = 'nope'; }), status: 'invalid', message: /./ },
  { what: 'a 5,000-deep object in the definition', definition: definition((d) => { (d.spec as Record<string, unknown>).extra = deepObject; }), status: 'invalid', message: /./ },
  { what: 'a replicas path that outputs ten thousand values', definition: definition((d) => { (d.spec.structureDefinition.childComponents[0].scaleDefinition as Record<string, unknown>).replicasPath = '.spec.items[]'; }), objects: [thing({ items: Array.from({ length: 10_000 }, (_, i) => i) })], status: 'failing', message: /./ },
  { what: 'a pod template path into a string', definition: definition((d) => { (d.spec.structureDefinition.childComponents[0].specDefinition as Record<string, unknown>).podTemplateSpecPath = '.metadata.name | tonumber'; }), objects: [thing()], status: 'failing', message: /tonumber|cannot|parse/ },
  { what: 'a status mapping that is not a list', definition: definition((d) => { d.spec.structureDefinition.rootComponent.statusDefinition.statusMappings = { running: 'yes' }; }), status: 'invalid', message: /./, path: /statusMappings/ },
  { what: 'an unknown status name', definition: definition((d) => { d.spec.structureDefinition.rootComponent.statusDefinition.statusMappings = { exploding: [] }; }), status: 'invalid', message: /./, path: /statusMappings/ },
  { what: 'ten thousand status mappings', definition: definition((d) => { d.spec.structureDefinition.rootComponent.statusDefinition.statusMappings = { running: Array.from({ length: 10_000 }, (_, i) => ({ byExpression: { expression: `.status.n == ${i}`, expectedResult: 'true' } })) }; }), status: 'invalid', message: /bytes|large/ },
];

for (const c of CASES) {
  test(`hostile definition: ${c.what}`, () => {
    const index = new WorkloadIndex(new DefinitionSet(catalog), { coalesceMs: 1e9 });
    open.push(index);
    const t0 = performance.now();
    index.upsertMany('c1', [c.definition, ...(c.objects ?? []), ...jobSetObjects({ name: 'healthy' })]);
    index.flush();
    index.flush();
    const ms = performance.now() - t0;
    const item = definitionItems(index).find((d) => d.name === 'hostile')!;
    assert.ok(item, 'the hostile definition is listed');
    if (c.status === 'failing' && item.status === 'quarantined') {
      // Quarantined is the stronger form of failing.
    } else assert.equal(item.status, c.status, JSON.stringify({ errors: item.errors, failing: item.failing }));
    if (c.status === 'valid') {
      // Harmless: the workload it runs on resolves, with no error.
      const row = index.allRows().find((r) => r.kind === 'Thing');
      assert.ok(row, 'the Thing row');
      assert.deepEqual(row.errors, []);
    } else if (c.status === 'invalid') {
      assert.ok(item.errors.length > 0);
      assert.match(item.errors[0].message, c.message);
      if (c.path) assert.match(item.errors[0].path, c.path);
    } else {
      assert.match(item.failing.example?.message ?? item.quarantined[0]?.reason ?? '', c.message);
      // The workload it runs on shows the error, with the field it came from.
      const row = index.allRows().find((r) => r.kind === 'Thing');
      assert.ok(row && row.errors.length > 0, 'the Thing row shows the error');
    }
    // Everything else is unaffected: the JobSet row is exactly right.
    const js = index.allRows().find((r) => r.name === 'healthy')!;
    assert.equal(js.definition.source, 'catalog');
    assert.deepEqual([js.status, js.gpus.allocated, js.gpus.desired, js.pods.total, js.errors.length], ['Running', 12, 12, 3, 0]);
    assert.ok(ms < 10_000, `${ms.toFixed(0)} ms`);
  });
}

test('the same hostile definition gives the same answer every time (budgets are steps, not time)', () => {
  const answers = new Set<string>();
  for (let i = 0; i < 3; i++) {
    const index = new WorkloadIndex(new DefinitionSet(catalog), { coalesceMs: 1e9 });
    open.push(index);
    index.upsertMany('c1', [CASES[0].definition, thing()]);
    index.flush();
    answers.add(JSON.stringify(index.allRows().map((r) => [r.status, r.errors])));
  }
  assert.equal(answers.size, 1);
});

test('a cluster definition that keeps exceeding its budgets is quarantined; its workloads go to the next definition', () => {
  const index = new WorkloadIndex(new DefinitionSet(catalog), { coalesceMs: 1e9 });
  open.push(index);
  // A JobSet definition of the cluster's own whose status expression blows its size budget.
  const heavy = parse(JOBSET_HEAVY) as Record<string, unknown>;
  const def = { ...heavy, metadata: { name: 'heavy', uid: 'uid-heavy', resourceVersion: '1', creationTimestamp: '2026-01-01T00:00:00Z' } } as KubeObject;
  index.upsertMany('c1', [def, ...['a', 'b', 'c', 'd'].flatMap((name) => jobSetObjects({ name }))]);
  index.flush();
  index.flush();
  const item = definitionItems(index).find((d) => d.name === 'heavy')!;
  assert.equal(item.status, 'quarantined');
  assert.match(item.quarantined[0].reason, /size budget/);
  // Served by the catalog instead, with the right numbers.
  for (const r of index.allRows()) assert.deepEqual([r.definition.source, r.gpus.allocated, r.errors.length], ['catalog', 12, 0]);
});
