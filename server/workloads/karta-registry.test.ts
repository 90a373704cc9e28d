/**
 * The registry's pure parts: the CRD we ship (upstream's facts), how a cluster's CRD compares, the
 * server's defaults and pruning, the run.ai/karta-* labels, planning a registration, and the listing
 * of a cluster's definitions (which one serves each root kind, overrides, label mismatches).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { loadCatalog } from '../catalog/index.ts';
import type { KubeObject } from '../engine/index.ts';
import { kartaCrd } from '../sim/crds/index.ts';
import { LiveWorkloads } from './live.ts';
import {
  checkKartaLabels, clusterRegistry, crdSchema, kartaCrdReport, planCrdInstall, planRegistration, shippedKartaCrd, unknownFields, withSchemaDefaults,
  type ClusterDefinitionsRead,
} from './karta-registry.ts';
import { thingKarta } from './test-karta.ts';

const catalog = LiveWorkloads.catalogEntries(loadCatalog());

const DEF = `\n${thingKarta()}`;
/** The value at a dotted path (`a.b.0.c`). */
function dig(v: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), v);
}

/** Sets the value at a dotted path (which must exist up to its last part). */
function put(v: unknown, path: string, value: unknown): void {
  const keys = path.split('.');
  const last = keys.pop()!;
  const holder = (keys.length ? dig(v, keys.join('.')) : v) as Record<string, unknown>;
  if (value === undefined) delete holder[last];
  else holder[last] = value;
}

const rows = (v: unknown) => v as Array<Record<string, unknown>>;
const DOC_ROOT = 'spec.structureDefinition.rootComponent';
const DOC_CHILD = 'spec.structureDefinition.childComponents.0';
/** A status rule in CEL (our extension, which upstream's CRD does not have). */
const CEL: [string, unknown] = [`${DOC_ROOT}.statusDefinition.statusMappings.running`, [{ byExpression: { expression: 'true', expectedResult: 'true', language: 'cel' } }]];
/** A pod selector by labels (newer than Karta v0.1.x). */
const MATCH_LABELS: [string, unknown] = [`${DOC_CHILD}.podSelector.componentTypeSelector`, { matchLabels: { role: 'worker' } }];

const doc = (...edits: Array<[string, unknown]>): Record<string, unknown> => {
  const d = parse(DEF) as Record<string, unknown>;
  for (const [path, value] of edits) put(d, path, value);
  return d;
};

test('the shipped CRD has upstream\'s names, scope, printer columns, status subresource and schema', () => {
  const crd = shippedKartaCrd();
  assert.equal(crd.metadata?.name, 'kartas.run.ai');
  assert.deepEqual([dig(crd, 'spec.group'), dig(crd, 'spec.scope')], ['run.ai', 'Cluster']);
  assert.deepEqual(dig(crd, 'spec.names'), { kind: 'Karta', listKind: 'KartaList', plural: 'kartas', singular: 'karta', shortNames: ['krt'] });
  assert.equal(rows(dig(crd, 'spec.versions')).length, 1);
  const v = dig(crd, 'spec.versions.0');
  assert.deepEqual([dig(v, 'name'), dig(v, 'served'), dig(v, 'storage')], ['v1alpha1', true, true]);
  assert.deepEqual(dig(v, 'subresources'), { status: {} });
  assert.deepEqual(rows(dig(v, 'additionalPrinterColumns')).map((c) => [c.name, c.type, c.jsonPath]), [
    ['Framework', 'string', '.spec.structureDefinition.rootComponent.kind.kind'],
    ['Root Component', 'string', '.spec.structureDefinition.rootComponent.name'],
    ['Age', 'date', '.metadata.creationTimestamp'],
  ]);
  const s = dig(v, 'schema.openAPIV3Schema');
  assert.deepEqual(dig(s, 'properties.spec.required'), ['structureDefinition']);
  const sd = dig(s, 'properties.spec.properties.structureDefinition');
  assert.deepEqual(dig(sd, 'required'), ['rootComponent']);
  assert.deepEqual([dig(sd, 'properties.childComponents.x-kubernetes-list-type'), dig(sd, 'properties.childComponents.x-kubernetes-list-map-keys')], ['map', ['name']]);
  assert.deepEqual(dig(sd, 'properties.additionalChildKinds.x-kubernetes-list-map-keys'), ['kind']);
  const root = dig(sd, 'properties.rootComponent');
  assert.deepEqual(dig(root, 'required'), ['name']);
  const cond = dig(root, 'properties.statusDefinition.properties.conditionsDefinition.properties');
  assert.deepEqual(['typeFieldName', 'statusFieldName', 'reasonFieldName', 'messageFieldName'].map((f) => dig(cond, `${f}.default`)), ['type', 'status', 'reason', 'message']);
  assert.deepEqual(Object.keys(dig(root, 'properties.statusDefinition.properties.statusMappings.properties') as object).sort(), ['completed', 'degraded', 'failed', 'initializing', 'resuming', 'running', 'suspended', 'suspending']);
  const selector = dig(root, 'properties.podSelector.properties.componentTypeSelector');
  assert.deepEqual(rows(dig(selector, 'x-kubernetes-validations')).map((r) => r.rule), ['has(self.keyPath) || has(self.matchLabels)', '!has(self.value) || has(self.keyPath)']);
  assert.equal(dig(selector, 'properties.matchLabels.minProperties'), 1);
  // As upstream today: a suspend action's value is a JSON-encoded string, not raw JSON.
  assert.equal(dig(root, 'properties.suspendDefinition.properties.suspendActions.items.properties.value.type'), 'string');
  const gang = dig(s, 'properties.spec.properties.optimizationInstructions.properties.gangScheduling.properties');
  assert.deepEqual(dig(gang, 'podGroup.required'), ['name']);
  assert.deepEqual(dig(gang, 'podGroup.properties.topology.required'), ['preferredTopologyLevel', 'requiredTopologyLevel', 'topologyName']);
  assert.deepEqual(dig(s, 'properties.status.properties.conditions.x-kubernetes-list-map-keys'), ['type']);
  // The child component schema is the root's.
  assert.deepEqual(dig(sd, 'properties.childComponents.items.properties.podSelector'), dig(root, 'properties.podSelector'));
});

test('a cluster\'s CRD compared with ours: missing, current whatever the descriptions, older, different', () => {
  assert.equal(kartaCrdReport(null).state, 'missing');
  const same = kartaCrdReport(kartaCrd('current')!);
  assert.equal(same.state, 'current', same.summary);
  const reworded = shippedKartaCrd();
  put(reworded, 'spec.versions.0.schema.openAPIV3Schema.properties.spec.description', 'someone else\'s words');
  put(reworded, 'spec.versions.0.additionalPrinterColumns.0.description', 'Target framework kind');
  assert.equal(kartaCrdReport(reworded).state, 'current');

  const older = kartaCrdReport(kartaCrd('older')!);
  assert.equal(older.state, 'older', older.summary);
  assert.ok(older.missingFields.includes('spec.optimizationInstructions.gangScheduling.podGroup'), older.missingFields.join());
  assert.ok(older.missingFields.includes('spec.structureDefinition.rootComponent.podSelector.componentTypeSelector.matchLabels'));
  assert.ok(older.missingFields.includes('spec.structureDefinition.childComponents[].podSelector.componentTypeSelector.matchLabels'));
  assert.deepEqual(older.extraFields, []);
  assert.match(older.summary, /older schema than Workload Map ships: it lacks 3 fields/);

  // A CRD that accepts anything (no Karta schema) is not an earlier release of ours.
  const open = shippedKartaCrd();
  put(open, 'spec.versions.0.schema.openAPIV3Schema', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
  assert.equal(kartaCrdReport(open).state, 'different');
  const extra = shippedKartaCrd();
  put(extra, 'spec.versions.0.schema.openAPIV3Schema.properties.spec.properties.future', { type: 'string' });
  const r = kartaCrdReport(extra);
  assert.deepEqual([r.state, r.extraFields], ['different', ['spec.future']]);
  const moved = shippedKartaCrd();
  put(moved, 'spec.scope', 'Namespaced');
  put(moved, 'spec.versions.0.name', 'v1beta1');
  const m = kartaCrdReport(moved);
  assert.equal(m.state, 'different');
  assert.match(m.summary, /scope is Namespaced, not Cluster; does not serve v1alpha1 \(serves v1beta1\)/);
});

test('the server\'s defaults and pruning: condition field names filled in, unknown fields named', () => {
  const schema = crdSchema(shippedKartaCrd());
  const d = withSchemaDefaults(schema, doc());
  assert.deepEqual(dig(d, `${DOC_ROOT}.statusDefinition.conditionsDefinition`), { path: '.status.conditions', typeFieldName: 'type', statusFieldName: 'status', reasonFieldName: 'reason', messageFieldName: 'message' });
  const input = doc();
  withSchemaDefaults(schema, input);
  assert.equal(dig(input, `${DOC_ROOT}.statusDefinition.conditionsDefinition.typeFieldName`), undefined, 'the input is not changed');
  const cel = doc(CEL);
  assert.deepEqual(unknownFields(schema, cel), ['spec.structureDefinition.rootComponent.statusDefinition.statusMappings.running[0].byExpression.language']);
  const labels = doc(MATCH_LABELS);
  assert.deepEqual(unknownFields(schema, labels), []);
  assert.deepEqual(unknownFields(crdSchema(kartaCrd('older')!), labels), ['spec.structureDefinition.childComponents[0].podSelector.componentTypeSelector.matchLabels']);
  // Every catalog definition fits the schema as it is.
  for (const e of catalog) assert.deepEqual(unknownFields(schema, e.document), [], e.name);
});

test('run.ai/karta-* labels: ok, missing, mismatched', () => {
  const labelled = (labels: Record<string, string>) => doc(['metadata.labels', labels]);
  assert.equal(checkKartaLabels(labelled({ 'run.ai/karta-group': 'example.com', 'run.ai/karta-version': 'v1', 'run.ai/karta-kind': 'Thing' })).state, 'ok');
  const none = checkKartaLabels(doc());
  assert.equal(none.state, 'missing');
  assert.match(none.message, /KAI Scheduler cannot select it for Thing.example.com\/v1/);
  const wrong = checkKartaLabels(labelled({ 'run.ai/karta-group': 'example.com', 'run.ai/karta-version': 'v2', 'run.ai/karta-kind': 'Thing' }));
  assert.equal(wrong.state, 'mismatch');
  assert.deepEqual(wrong.findings, [{ label: 'run.ai/karta-version', expected: 'v1', actual: 'v2' }]);
  const partial = checkKartaLabels(labelled({ 'run.ai/karta-kind': 'Thing' }));
  assert.equal(partial.state, 'mismatch');
  assert.match(partial.message, /run.ai\/karta-group is absent, run.ai\/karta-version is absent/);
  const pod = checkKartaLabels({ spec: { structureDefinition: { rootComponent: { kind: { group: '', version: 'v1', kind: 'Pod' } } } }, metadata: { labels: { 'run.ai/karta-group': '', 'run.ai/karta-version': 'v1', 'run.ai/karta-kind': 'Pod' } } });
  assert.equal(pod.state, 'ok', 'the core group is the empty label value');
});

test('planning a registration: a create stamps the labels; errors carry their field paths; nothing unknown to the CRD gets through', () => {
  const p = planRegistration(null, doc(['metadata.labels', { team: 'ml', 'run.ai/karta-kind': 'Other' }]), { cluster: 'c1' });
  assert.deepEqual(p.errors, []);
  assert.equal(p.action, 'create');
  assert.deepEqual(p.after.metadata?.labels, { team: 'ml', 'run.ai/karta-kind': 'Thing', 'run.ai/karta-group': 'example.com', 'run.ai/karta-version': 'v1' });
  assert.match(p.warnings.join('\n'), /label run.ai\/karta-kind is "Other" but the root kind says "Thing"/);
  assert.match(p.diff, /^\+\+\+ karta.run.ai\/thing \(after\)$/m);
  assert.match(p.diff, /^\+kind: Karta$/m);
  assert.deepEqual(p.patch.map((o) => [o.op, o.path]), [['add', '']]);

  const bad = planRegistration(null, doc([`${DOC_CHILD}.ownerRef`, 'nobody']), { cluster: 'c1' });
  assert.equal(bad.errors.length, 1);
  assert.equal(bad.errors[0].path, 'spec.structureDefinition.childComponents[0].ownerRef');
  const ri = planRegistration(null, doc(['apiVersion', 'optimization.nvidia.com/v1alpha1'], ['kind', 'ResourceInterface']), { cluster: 'c1' });
  assert.match(ri.errors[0].message, /only run.ai\/v1alpha1 Karta definitions can be registered.*change apiVersion and kind/);
  const unnamed = planRegistration(null, doc(['metadata', undefined]), { cluster: 'c1' });
  assert.deepEqual(unnamed.errors.map((e) => e.path), ['metadata.name']);
  const cel = planRegistration(null, doc(CEL), { cluster: 'c1' });
  assert.deepEqual(cel.errors.map((e) => e.code), ['register.unknown-field']);
  assert.match(cel.errors[0].message, /byExpression.language: the kartas.run.ai CRD has no such field/);
  const older = planRegistration(null, doc(MATCH_LABELS), { cluster: 'c1', crd: kartaCrd('older') });
  assert.match(older.errors.map((e) => e.message).join(), /componentTypeSelector.matchLabels: the cluster's kartas.run.ai CRD has no such field/);
});

test('planning an update: the live object as the server stored it (defaults filled in) is no change; a spec change is a diff', () => {
  const created = planRegistration(null, doc(), { cluster: 'c1' }).after;
  const stored = { ...withSchemaDefaults(crdSchema(shippedKartaCrd()), created) as KubeObject, metadata: { ...created.metadata, uid: 'u1', resourceVersion: '7', creationTimestamp: '2026-01-01T00:00:00Z', generation: 1 }, status: { conditions: [] } };
  const again = planRegistration(stored, doc(), { cluster: 'c1' });
  assert.deepEqual([again.action, again.noChange, again.diff], ['update', true, '']);
  const changed = planRegistration(stored, doc([`${DOC_CHILD}.scaleDefinition.replicasPath`, '.spec.workers']), { cluster: 'c1' });
  assert.equal(changed.noChange, false);
  assert.equal(changed.resourceVersion, '7');
  assert.equal(changed.after.metadata?.resourceVersion, '7', 'the PUT carries the precondition');
  assert.equal(changed.after.status, undefined);
  assert.match(changed.diff, /^-\s+replicasPath: \.spec\.replicas$/m);
  assert.match(changed.diff, /^\+\s+replicasPath: \.spec\.workers$/m);
  assert.doesNotMatch(changed.diff, /uid:|resourceVersion:|conditions:|FieldName/);
  assert.deepEqual(changed.patch.map((o) => [o.op, o.path]), [['test', '/metadata/resourceVersion'], ['replace', '']]);
});

test('planning the CRD install: a create when missing, an upgrade of an older one, nothing when current, a foreign one left alone', () => {
  const create = planCrdInstall(null, kartaCrdReport(null), { cluster: 'c1' });
  assert.equal(create.action, 'create');
  assert.equal(create.after?.metadata?.name, 'kartas.run.ai');
  const old = kartaCrd('older')!;
  old.metadata.resourceVersion = '42';
  const upgrade = planCrdInstall(old, kartaCrdReport(old), { cluster: 'c1' });
  assert.equal(upgrade.action, 'update');
  assert.equal(upgrade.after?.metadata?.resourceVersion, '42');
  assert.match(upgrade.diff, /^\+\s+matchLabels:$/m);
  assert.equal(planCrdInstall(kartaCrd('current')!, kartaCrdReport(kartaCrd('current')!), { cluster: 'c1' }).action, 'none');
  const foreign = shippedKartaCrd();
  put(foreign, 'spec.versions.0.schema.openAPIV3Schema.properties.spec.properties.future', { type: 'string' });
  const leave = planCrdInstall(foreign, kartaCrdReport(foreign), { cluster: 'c1' });
  assert.deepEqual([leave.action, leave.errors.length], ['none', 1]);
});

function read(kartas: KubeObject[], ris: KubeObject[] = []): ClusterDefinitionsRead {
  return { cluster: 'c1', crd: kartaCrdReport(kartaCrd('current')!), resourceInterfaceServed: true, kartas, resourceInterfaces: ris, problems: [] };
}

const jobsetCatalog = catalog.find((e) => e.compiled?.rootKind.kind === 'JobSet')!;

function clusterKarta(name: string, d: unknown, created: string, labels?: Record<string, string>): KubeObject {
  const o = structuredClone(d) as KubeObject;
  o.metadata = { ...(o.metadata ?? {}), name, uid: `uid-${name}`, resourceVersion: '1', creationTimestamp: created, ...(labels ? { labels } : {}) };
  return o;
}

test('listing a cluster: a cluster definition overrides the catalog\'s for its kind and version; the older of two wins; labels checked', () => {
  const jobsetLabels = { 'run.ai/karta-group': 'jobset.x-k8s.io', 'run.ai/karta-version': 'v1alpha2', 'run.ai/karta-kind': 'JobSet' };
  const mine = clusterKarta('my-jobset', jobsetCatalog.document, '2026-01-01T00:00:00Z', jobsetLabels);
  const later = clusterKarta('later-jobset', jobsetCatalog.document, '2026-02-01T00:00:00Z', { ...jobsetLabels, 'run.ai/karta-kind': 'Job' });
  const thing = clusterKarta('thing', doc(), '2026-01-05T00:00:00Z');
  const broken = clusterKarta('broken', doc([`${DOC_CHILD}.ownerRef`, 'nobody']), '2026-01-06T00:00:00Z');
  const ri = clusterKarta('old-thing', doc(['apiVersion', 'optimization.nvidia.com/v1alpha1'], ['kind', 'ResourceInterface'], [`${DOC_ROOT}.kind.kind`, 'OldThing']), '2026-01-07T00:00:00Z');
  const r = clusterRegistry(read([later, mine, thing, broken], [ri]), catalog);
  const by = new Map(r.definitions.map((d) => [`${d.source}/${d.name}`, d]));
  assert.deepEqual(r.definitions.slice(0, 5).map((d) => d.name), ['my-jobset', 'thing', 'broken', 'old-thing', 'later-jobset'], 'the cluster\'s own first, oldest first');
  const m = by.get('cluster/my-jobset')!;
  assert.deepEqual([m.state, m.overrides, m.labels?.state], ['serves', [jobsetCatalog.name], 'ok']);
  assert.deepEqual(by.get(`catalog/${jobsetCatalog.name}`)!.shadowedBy, { name: 'my-jobset', source: 'cluster' });
  assert.deepEqual(by.get('cluster/later-jobset')!.shadowedBy, { name: 'my-jobset', source: 'cluster' });
  assert.equal(by.get('cluster/broken')!.state, 'invalid');
  assert.match(by.get('cluster/broken')!.errors.join(), /ownerRef/);
  assert.deepEqual([by.get('cluster/old-thing')!.kind, by.get('cluster/old-thing')!.labels], ['ResourceInterface', null]);
  assert.deepEqual(r.winners.find((w) => w.root === 'JobSet.jobset.x-k8s.io'), { root: 'JobSet.jobset.x-k8s.io', version: 'v1alpha2', name: 'my-jobset', source: 'cluster' });
  assert.deepEqual(r.winners.find((w) => w.root === 'Thing.example.com')?.name, 'thing');
  assert.deepEqual(r.winners.find((w) => w.root === 'Deployment.apps')?.source, 'catalog');
  assert.deepEqual(r.labelMismatches.map((x) => [x.name, x.check.state]), [['thing', 'missing'], ['broken', 'missing'], ['later-jobset', 'mismatch']]);
  assert.match(r.labelMismatches[2].check.message, /run.ai\/karta-kind is "Job" but the root kind is JobSet.jobset.x-k8s.io\/v1alpha2/);
});
