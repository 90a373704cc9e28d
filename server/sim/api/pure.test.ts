/** Unit tests of the API layer's pure modules: selectors, patches, tables, JSONPath, CRDs, access rules. */

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../store/object-store.ts';
import { authorize } from './access.ts';
import { builtinResources } from './builtins.ts';
import { descriptorFromCrd, validateCrd } from './crd.ts';
import { crd, frameworkCrds } from '../crds/index.ts';
import { parseFaultSpec, validateFaults } from './faults.ts';
import { PROTOBUF_MAGIC, ProtobufError, decodeProtobufObject } from './protobuf.ts';
import { evaluateJsonPath } from './jsonpath-lite.ts';
import { PatchError, applyJsonPatch, applyMergePatch, strategicMerge } from './patch.ts';
import { Registry, sortVersions } from './registry.ts';
import { parseApiPath, wantsTable } from './request.ts';
import { SelectorError, matchFields, matchLabels, parseFieldSelector, parseLabelSelector } from './selectors.ts';
import { buildTable, podStatusReason } from './table.ts';

describe('label selectors', () => {
  const sel = (s: string, labels?: Record<string, string>) => matchLabels(parseLabelSelector(s), labels);
  it('parses every operator', () => {
    assert.deepEqual(parseLabelSelector('a=b, c==d,e!=f,g in (h, i),j notin (k),l,!m,n>3,o<4').map((r) => r.op), ['eq', 'eq', 'neq', 'in', 'notin', 'exists', 'notexists', 'gt', 'lt']);
    assert.deepEqual(parseLabelSelector('x in (foo,,baz)')[0].values, ['foo', '', 'baz']);
    assert.deepEqual(parseLabelSelector(''), []);
  });
  it('matches as apimachinery: != and notin match objects without the key', () => {
    assert.equal(sel('tier!=x', {}), true);
    assert.equal(sel('tier notin (x)', undefined), true);
    assert.equal(sel('tier!=x', { tier: 'x' }), false);
    assert.equal(sel('app in (a,b),!legacy', { app: 'b' }), true);
    assert.equal(sel('app in (a,b),!legacy', { app: 'b', legacy: '' }), false);
    assert.equal(sel('n>3', { n: '4' }), true);
    assert.equal(sel('n>3', { n: 'x' }), false);
    assert.equal(sel('app.kubernetes.io/name=x', { 'app.kubernetes.io/name': 'x' }), true);
  });
  it('rejects bad syntax', () => {
    assert.throws(() => parseLabelSelector('a=b=c'), SelectorError);
    assert.throws(() => parseLabelSelector('a in b'), SelectorError);
    assert.throws(() => parseLabelSelector('-a=b'), SelectorError);
  });
});

describe('field selectors', () => {
  it('parses = == != and escapes', () => {
    const reqs = parseFieldSelector('metadata.name=a\\,b,status.phase!=Failed,spec.nodeName==');
    assert.deepEqual(reqs, [
      { field: 'metadata.name', op: 'eq', value: 'a,b' },
      { field: 'status.phase', op: 'neq', value: 'Failed' },
      { field: 'spec.nodeName', op: 'eq', value: '' },
    ]);
    const values: Record<string, string> = { 'metadata.name': 'a,b', 'status.phase': 'Running', 'spec.nodeName': '' };
    assert.equal(matchFields(reqs, (f) => values[f]), true);
    assert.throws(() => parseFieldSelector('nonsense'), SelectorError);
  });
});

describe('patches', () => {
  it('JSON patch: every op, test failures are 422, bad documents 400', () => {
    const doc = { a: { b: [1, 2] }, c: 'x' };
    const out = applyJsonPatch(doc, [
      { op: 'add', path: '/a/b/-', value: 3 },
      { op: 'replace', path: '/c', value: 'y' },
      { op: 'copy', from: '/c', path: '/d' },
      { op: 'move', from: '/d', path: '/e' },
      { op: 'remove', path: '/a/b/0' },
      { op: 'test', path: '/e', value: 'y' },
      { op: 'add', path: '/f~1g', value: true },
    ]);
    assert.deepEqual(out, { a: { b: [2, 3] }, c: 'y', e: 'y', 'f/g': true });
    assert.deepEqual(doc, { a: { b: [1, 2] }, c: 'x' }, 'input untouched');
    assert.throws(() => applyJsonPatch(doc, [{ op: 'test', path: '/c', value: 'z' }]), (e: unknown) => e instanceof PatchError && e.status === 422);
    assert.throws(() => applyJsonPatch(doc, [{ op: 'remove', path: '/nope' }]), (e: unknown) => e instanceof PatchError && e.status === 422);
    assert.throws(() => applyJsonPatch(doc, { op: 'add' }), (e: unknown) => e instanceof PatchError && e.status === 400);
  });

  it('merge patch replaces lists and deletes with null', () => {
    assert.deepEqual(applyMergePatch({ a: 1, l: [1, 2], m: { x: 1, y: 2 } }, { a: null, l: [3], m: { y: null, z: 3 } }), { l: [3], m: { x: 1, z: 3 } });
  });

  it('strategic merge: merge keys, $setElementOrder, $patch delete/replace, primitive lists', () => {
    const pod = {
      metadata: { finalizers: ['a'], labels: { x: '1' } },
      spec: {
        containers: [
          { name: 'a', image: 'i:1', ports: [{ containerPort: 80, name: 'http' }], env: [{ name: 'A', value: '1' }] },
          { name: 'b', image: 'i:1' },
        ],
        tolerations: [{ key: 'k' }],
      },
    };
    const out = strategicMerge(pod, {
      metadata: { finalizers: ['b'], labels: { x: null } },
      spec: {
        '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }],
        containers: [{ name: 'b', image: 'i:2' }, { name: 'a', env: [{ name: 'B', value: '2' }], ports: [{ containerPort: 80, protocol: 'TCP' }] }],
        tolerations: [{ key: 'other' }],
      },
    }) as typeof pod;
    assert.deepEqual(out.metadata, { finalizers: ['a', 'b'], labels: {} });
    assert.deepEqual(out.spec.containers.map((c) => `${c.name}=${c.image}`), ['b=i:2', 'a=i:1']);
    const a = out.spec.containers[1];
    assert.deepEqual(a.env, [{ name: 'A', value: '1' }, { name: 'B', value: '2' }]);
    assert.deepEqual(a.ports, [{ containerPort: 80, name: 'http', protocol: 'TCP' }]);
    assert.deepEqual(out.spec.tolerations, [{ key: 'other' }], 'lists without a strategy are replaced');
    const removed = strategicMerge(pod, { spec: { containers: [{ name: 'b', $patch: 'delete' }] } }) as typeof pod;
    assert.deepEqual(removed.spec.containers.map((c) => c.name), ['a']);
    const replaced = strategicMerge(pod, { spec: { containers: [{ name: 'z', image: 'z' }, { $patch: 'replace' }] } }) as typeof pod;
    assert.deepEqual(replaced.spec.containers, [{ name: 'z', image: 'z' }]);
    const prim = strategicMerge({ metadata: { finalizers: ['a', 'b'] } }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } });
    assert.deepEqual(prim, { metadata: { finalizers: ['b'] } });
    const svc = strategicMerge({ spec: { ports: [{ port: 80, name: 'http' }, { port: 443 }] } }, { spec: { ports: [{ port: 443, name: 'https' }] } });
    assert.deepEqual(svc, { spec: { ports: [{ port: 80, name: 'http' }, { port: 443, name: 'https' }] } }, 'service ports merge by port');
  });
});

describe('tables', () => {
  it('derives the pod STATUS column', () => {
    const p = (status: unknown, meta: Record<string, unknown> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', ...meta }, spec: { containers: [{}], initContainers: [{}] }, status: status as Record<string, unknown> });
    assert.equal(podStatusReason(p({ phase: 'Pending', containerStatuses: [{ state: { waiting: { reason: 'ContainerCreating' } } }] })), 'ContainerCreating');
    assert.equal(podStatusReason(p({ phase: 'Pending', initContainerStatuses: [{ state: { running: {} } }] })), 'Init:0/1');
    assert.equal(podStatusReason(p({ phase: 'Failed', containerStatuses: [{ state: { terminated: { exitCode: 1, reason: 'Error' } } }] })), 'Error');
    assert.equal(podStatusReason(p({ phase: 'Running', containerStatuses: [{ ready: true, state: { running: {} } }] }, { deletionTimestamp: '2026-01-01T00:00:00Z' })), 'Terminating');
    assert.equal(podStatusReason(p({ phase: 'Failed', reason: 'Evicted' })), 'Evicted');
  });

  it('CR tables: Name, printer columns by type, default Age, row metadata', () => {
    const d = descriptorFromCrd(crd({ group: 'x.io', kind: 'W', plural: 'ws', versions: [{ name: 'v1', columns: [
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'Started', type: 'date', jsonPath: '.status.startTime' },
    ] }] }))!;
    const now = Date.parse('2026-01-01T01:00:00Z');
    const obj: KubeObject = { apiVersion: 'x.io/v1', kind: 'W', metadata: { name: 'w', namespace: 'n', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: { replicas: 2.7 }, status: { conditions: [{ type: 'Ready', status: 'True' }], startTime: '2026-01-01T00:59:00Z' } };
    const t = buildTable(d, [obj], { version: 'v1', now, resourceVersion: '5' });
    assert.deepEqual(t.columnDefinitions.map((c) => c.name), ['Name', 'Replicas', 'Ready', 'Started']);
    assert.deepEqual(t.rows[0].cells, ['w', 2, 'True', '60s']);
    assert.deepEqual(t.rows[0].object, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata });
    assert.equal(t.metadata.resourceVersion, '5');
    const plain = descriptorFromCrd(crd({ group: 'x.io', kind: 'V', plural: 'vs', versions: [{ name: 'v1' }] }))!;
    const t2 = buildTable(plain, [obj], { version: 'v1', now, includeObject: 'None' });
    assert.deepEqual(t2.columnDefinitions.map((c) => c.name), ['Name', 'Age']);
    assert.deepEqual(t2.rows[0], { cells: ['w', '60m'] });
  });
});

describe('JSONPath subset', () => {
  const obj = { metadata: { labels: { 'serving.knative.dev/configuration': 'c' } }, status: { conditions: [{ type: 'A', status: 'True' }, { type: 'B', status: 'False' }], list: [1, 2, 3] } };
  it('supports the forms printer columns use', () => {
    assert.deepEqual(evaluateJsonPath(obj, '.status.conditions[-1:].type'), ['B']);
    assert.deepEqual(evaluateJsonPath(obj, '.status.conditions[?(@.type=="A")].status'), ['True']);
    assert.deepEqual(evaluateJsonPath(obj, ".status.conditions[?(@.type=='B')].status"), ['False']);
    assert.deepEqual(evaluateJsonPath(obj, ".metadata.labels['serving\\.knative\\.dev/configuration']"), ['c']);
    assert.deepEqual(evaluateJsonPath(obj, '.status.list[*]'), [1, 2, 3]);
    assert.deepEqual(evaluateJsonPath(obj, '.status.list[0]'), [1]);
    assert.deepEqual(evaluateJsonPath(obj, '.status.missing.deeper'), []);
  });
});

describe('CRDs and the registry', () => {
  it('validates names and storage versions like apiextensions', () => {
    const good = crd({ group: 'a.io', kind: 'Thing', plural: 'things', versions: [{ name: 'v1' }] });
    assert.equal(validateCrd(good), undefined);
    const badName = structuredClone(good);
    badName.metadata.name = 'wrong.a.io';
    assert.match(validateCrd(badName)!.message, /must be spec.names.plural\+"\."\+spec.group/);
    const twoStorage = crd({ group: 'a.io', kind: 'Thing', plural: 'things', versions: [{ name: 'v1', storage: true }, { name: 'v2', storage: true }] });
    assert.match(validateCrd(twoStorage)!.message, /exactly one version marked as storage version/);
  });

  it('every framework CRD is valid; Dynamo serves v1beta1 first and v1alpha1', () => {
    const reg = new Registry();
    for (const c of frameworkCrds()) {
      assert.equal(validateCrd(c), undefined, c.metadata.name);
      reg.add(descriptorFromCrd(c)!);
    }
    assert.deepEqual(reg.byGroupKind('nvidia.com', 'DynamoGraphDeployment')!.versions, ['v1beta1', 'v1alpha1']);
    assert.equal(reg.resolve('run.ai', 'v1alpha1', 'kartas')!.namespaced, false);
    assert.equal(reg.resolve('ray.io', 'v1alpha1', 'rayclusters')!.kind, 'RayCluster');
    assert.deepEqual(sortVersions(['v1alpha1', 'v2', 'v1beta2', 'v1', 'v1beta1']), ['v2', 'v1', 'v1beta2', 'v1beta1', 'v1alpha1']);
  });
});

describe('requests and access', () => {
  it('parses API paths, namespace edge cases included', () => {
    assert.deepEqual(parseApiPath('/api/v1/namespaces/x'), { type: 'resource', path: { group: '', version: 'v1', resource: 'namespaces', name: 'x', subresource: undefined }, legacyWatch: false });
    assert.deepEqual(parseApiPath('/api/v1/namespaces/x/status'), { type: 'resource', path: { group: '', version: 'v1', resource: 'namespaces', name: 'x', subresource: 'status' }, legacyWatch: false });
    assert.deepEqual(parseApiPath('/apis/apps/v1/namespaces/x/deployments/d/scale'), { type: 'resource', path: { group: 'apps', version: 'v1', namespace: 'x', resource: 'deployments', name: 'd', subresource: 'scale' }, legacyWatch: false });
    assert.equal(parseApiPath('/apis/apps').type, 'group');
    assert.equal(wantsTable('application/json;as=Table;v=v1;g=meta.k8s.io,application/json'), true);
    assert.equal(wantsTable('application/json, */*;q=0.8'), false);
  });

  it('authorizes like RBAC and words denials like the real authorizer', () => {
    const rule = { token: 't', user: 'alice', namespaces: ['a'], deny: [{ resources: ['secrets'] }] };
    assert.equal(authorize(rule, { verb: 'list', group: '', resource: 'pods', namespace: 'a', namespaced: true }), undefined);
    assert.equal(authorize(rule, { verb: 'get', group: '', resource: 'namespaces', name: 'a', namespaced: false }), undefined);
    assert.equal(authorize(rule, { verb: 'list', group: 'apps', resource: 'deployments', namespaced: true })!.message, 'deployments.apps is forbidden: User "alice" cannot list resource "deployments" in API group "apps" at the cluster scope');
    assert.equal(authorize(rule, { verb: 'get', group: '', resource: 'secrets', name: 's', namespace: 'a', namespaced: true })!.message, 'secrets "s" is forbidden: User "alice" cannot get resource "secrets" in API group "" in the namespace "a"');
    assert.equal(authorize({ token: 'r', readOnly: true, user: 'r' }, { verb: 'delete', group: '', resource: 'pods', name: 'p', namespace: 'a', namespaced: true })!.code, 403);
  });

  it('fault specs from the command line', () => {
    assert.deepEqual(parseFaultSpec('errorRate=0.1,errorCodes=429|503,watchGone,watchDropMode=reset'), { errorRate: 0.1, errorCodes: [429, 503], watchGone: true, watchDropMode: 'reset' });
    assert.throws(() => parseFaultSpec('latencyMs=-1'), /non-negative/);
  });

  it('fault settings are checked', () => {
    assert.deepEqual(validateFaults({ errorRate: 0.5, latencyMs: 10 }), { errorRate: 0.5, latencyMs: 10 });
    assert.throws(() => validateFaults({ errorRate: 2 }), /between 0 and 1/);
    assert.throws(() => validateFaults({ bogus: 1 }), /unknown fault setting/);
  });

  it('built-in kinds have unique plurals and the usual short names', () => {
    const b = builtinResources();
    const keys = b.map((d) => `${d.group}/${d.plural}`);
    assert.equal(new Set(keys).size, keys.length);
    assert.deepEqual(b.find((d) => d.plural === 'pods')!.shortNames, ['po']);
  });
});

describe('protobuf bodies', () => {
  const ld = (no: number, b: Buffer) => Buffer.concat([Buffer.from([(no << 3) | 2, b.length]), b]);
  const s = (no: number, v: string) => ld(no, Buffer.from(v));
  const entry = (no: number, k: string, v: string) => ld(no, Buffer.concat([s(1, k), s(2, v)]));
  const envelope = (apiVersion: string, kind: string, raw: Buffer) => Buffer.concat([PROTOBUF_MAGIC, ld(1, Buffer.concat([s(1, apiVersion), s(2, kind)])), ld(2, raw)]);

  it('decodes the kinds the kubectl generators send', () => {
    const meta = ld(1, Buffer.concat([s(1, 'cm'), s(3, 'ns'), entry(11, 'app', 'x')]));
    const cm = decodeProtobufObject(envelope('v1', 'ConfigMap', Buffer.concat([meta, entry(2, 'a', '1'), entry(2, 'b', '2')])));
    assert.deepEqual(cm, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns', labels: { app: 'x' } }, data: { a: '1', b: '2' } });
    const secret = decodeProtobufObject(envelope('v1', 'Secret', Buffer.concat([meta, entry(2, 'k', 'v'), s(3, 'Opaque')])));
    assert.deepEqual(secret.data, { k: Buffer.from('v').toString('base64') });
    const ns = decodeProtobufObject(envelope('v1', 'Namespace', ld(1, s(1, 'team'))));
    assert.deepEqual(ns.metadata, { name: 'team' });
    assert.throws(() => decodeProtobufObject(envelope('apps/v1', 'Deployment', meta)), ProtobufError);
  });
});
