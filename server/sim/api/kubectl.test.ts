/**
 * Conformance: the real kubectl (1.32, /usr/bin/kubectl) against the simulated API server.
 * One simulator for the file; every kubectl gets a fresh discovery cache dir.
 */

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startSim } from '../index.ts';
import type { SimHandle } from '../index.ts';
import type { KubeObject } from '../store/object-store.ts';
import { Kubectl, cleanupTempDirs, eventually, kubeconfigFor, kubectlSkip } from './test-support.ts';

const RESTRICTED = 'restricted-token-for-tests';
const NOPODS = 'no-pods-token-for-tests';

function pod(ns: string, name: string, extra: Partial<KubeObject> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, labels: { app: 'web' } },
    spec: { containers: [{ name: 'main', image: 'busybox' }], nodeName: 'node-1' },
    status: { phase: 'Running', podIP: '10.0.0.9', containerStatuses: [{ name: 'main', ready: true, restartCount: 2, state: { running: {} } }] },
    ...extra,
  };
}

describe('kubectl against the simulated cluster', { skip: kubectlSkip }, () => {
  let sim: SimHandle;
  let k: Kubectl;

  before(async () => {
    sim = await startSim({
      // Objects stay exactly as the tests write them (no scheduler, kubelet or controllers).
      controllers: false,
      tokens: [
        { token: RESTRICTED, user: 'alice', namespaces: ['team-a', 'team-b'], readOnly: true },
        { token: NOPODS, user: 'bob', deny: [{ resources: ['pods'], verbs: ['list', 'watch'] }] },
      ],
    });
    k = new Kubectl(sim.kubeconfigPath);
    const s = sim.store;
    for (const ns of ['team-a', 'team-b']) s.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns }, status: { phase: 'Active' } });
    s.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: { 'node-role.kubernetes.io/worker': '' } }, status: { conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { kubeletVersion: 'v1.32.4' }, capacity: { 'nvidia.com/gpu': '8' } } });
    s.create(pod('team-b', 'trainer-0'));
    s.create(pod('team-a', 'api-0'));
    s.create(pod('team-a', 'api-1', { status: { phase: 'Pending' }, spec: { containers: [{ name: 'main', image: 'busybox' }] } }));
  });

  after(async () => {
    await sim?.stop();
    cleanupTempDirs();
  });

  it('reports server version 1.32 so the dispatcher runs kubectl 1.32', async () => {
    const out = await k.ok(['version', '-o', 'json']);
    const v = JSON.parse(out) as { serverVersion: { major: string; minor: string; gitVersion: string } };
    assert.equal(v.serverVersion.minor, '32');
    assert.match(v.serverVersion.gitVersion, /^v1\.32\./);
  });

  it('api-resources lists built-ins and every framework CRD with short names and scope', async () => {
    const out = await k.ok(['api-resources', '--no-headers']);
    const rows = out.trim().split('\n').map((l) => l.trim().split(/\s+/));
    const find = (name: string, apiVersion: string) => rows.find((r) => r[0] === name && r.includes(apiVersion));
    assert.ok(find('pods', 'v1'));
    assert.ok(find('deployments', 'apps/v1'));
    assert.ok(find('customresourcedefinitions', 'apiextensions.k8s.io/v1'));
    for (const [name, gv] of [
      ['jobsets', 'jobset.x-k8s.io/v1alpha2'], ['pytorchjobs', 'kubeflow.org/v1'], ['mpijobs', 'kubeflow.org/v2beta1'],
      ['rayclusters', 'ray.io/v1'], ['rayjobs', 'ray.io/v1'], ['rayservices', 'ray.io/v1'],
      ['inferenceservices', 'serving.kserve.io/v1beta1'], ['revisions', 'serving.knative.dev/v1'], ['routes', 'serving.knative.dev/v1'],
      ['nimservices', 'apps.nvidia.com/v1alpha1'], ['nimcaches', 'apps.nvidia.com/v1alpha1'], ['leaderworkersets', 'leaderworkerset.x-k8s.io/v1'],
      ['milvuses', 'milvus.io/v1beta1'], ['podcliquesets', 'grove.io/v1alpha1'], ['podcliques', 'grove.io/v1alpha1'],
      ['podcliquescalinggroups', 'grove.io/v1alpha1'], ['podgangs', 'scheduler.grove.io/v1alpha1'],
      ['dynamographdeployments', 'nvidia.com/v1beta1'], ['dynamocomponentdeployments', 'nvidia.com/v1alpha1'],
    ]) assert.ok(find(name, gv), `${name} ${gv} missing`);
    assert.deepEqual(find('kartas', 'run.ai/v1alpha1'), ['kartas', 'krt', 'run.ai/v1alpha1', 'false', 'Karta']);
    assert.deepEqual(find('resourceinterfaces', 'optimization.nvidia.com/v1alpha1'), ['resourceinterfaces', 'ri', 'optimization.nvidia.com/v1alpha1', 'false', 'ResourceInterface']);
    assert.deepEqual(find('inferenceservices', 'serving.kserve.io/v1beta1')?.slice(0, 2), ['inferenceservices', 'isvc']);
  });

  it('gets every listable kind across all namespaces without errors', async () => {
    const names = (await k.ok(['api-resources', '--verbs=list', '-o', 'name'])).trim().split('\n');
    assert.ok(names.length > 40);
    const r = await k.run(['get', names.join(','), '-A']);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /error/i);
    assert.match(r.stdout, /pod\/api-0/);
  });

  it('prints the built-in pod columns, sorted by namespace and name, with -A and labels', async () => {
    const out = await k.ok(['get', 'pods', '-A', '--show-labels']);
    const lines = out.trim().split('\n');
    assert.match(lines[0], /^NAMESPACE\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+LABELS$/);
    assert.deepEqual(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 2).join('/')), ['team-a/api-0', 'team-a/api-1', 'team-b/trainer-0']);
    assert.match(lines[1], /api-0\s+1\/1\s+Running\s+2\s+\S+\s+app=web/);
    assert.match(lines[2], /api-1\s+0\/1\s+Pending\s+0/);
    const wide = await k.ok(['get', 'pods', '-n', 'team-a', '-o', 'wide']);
    assert.match(wide.split('\n')[0], /IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES/);
    assert.match(wide, /10\.0\.0\.9\s+node-1/);
    const nodes = await k.ok(['get', 'nodes']);
    assert.match(nodes, /node-1\s+Ready\s+worker\s+\S+\s+v1\.32\.4/);
  });

  it('-o yaml and -o json return the full object', async () => {
    const json = JSON.parse(await k.ok(['get', 'pod', 'api-0', '-n', 'team-a', '-o', 'json'])) as KubeObject;
    const stored = sim.store.get('v1', 'Pod', 'team-a', 'api-0')!;
    assert.equal(json.apiVersion, 'v1');
    assert.equal(json.kind, 'Pod');
    assert.equal(json.metadata.uid, stored.metadata.uid);
    assert.equal(json.metadata.resourceVersion, stored.metadata.resourceVersion);
    assert.match(json.metadata.creationTimestamp!, /Z$/);
    const yaml = await k.ok(['get', 'pod', 'api-0', '-n', 'team-a', '-o', 'yaml']);
    assert.match(yaml, /^apiVersion: v1\nkind: Pod\n/);
    assert.match(yaml, new RegExp(`uid: ${stored.metadata.uid}`));
    const list = JSON.parse(await k.ok(['get', 'pods', '-A', '-o', 'json'])) as { kind: string; items: KubeObject[] };
    assert.equal(list.kind, 'List');
    assert.equal(list.items.length, 3);
  });

  it('selects by labels (set-based, != matching missing keys) and by fields; unknown fields are 400', async () => {
    sim.store.create({ ...pod('team-a', 'legacy-0'), metadata: { name: 'legacy-0', namespace: 'team-a', labels: { app: 'web', legacy: 'yes', tier: 'x' } } });
    const out = await k.ok(['get', 'pods', '-n', 'team-a', '-l', 'app in (web,db),tier!=x,!legacy', '-o', 'name']);
    assert.deepEqual(out.trim().split('\n'), ['pod/api-0', 'pod/api-1']);
    const running = await k.ok(['get', 'pods', '-A', '--field-selector', 'status.phase=Running,spec.nodeName=node-1', '-o', 'name']);
    assert.deepEqual(running.trim().split('\n'), ['pod/api-0', 'pod/legacy-0', 'pod/trainer-0']);
    const bad = await k.run(['get', 'pods', '--field-selector', 'spec.foo=1']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /field label not supported: spec\.foo/);
    sim.store.delete('v1', 'Pod', 'team-a', 'legacy-0');
  });

  it('pages with --chunk-size and prints every object once', async () => {
    for (let i = 0; i < 5; i++) sim.store.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `page-${i}`, namespace: 'team-b' }, data: { i: String(i) } });
    const out = await k.ok(['get', 'configmaps', '-n', 'team-b', '--chunk-size=2', '-o', 'name']);
    assert.deepEqual(out.trim().split('\n'), [0, 1, 2, 3, 4].map((i) => `configmap/page-${i}`));
    const table = await k.ok(['get', 'configmaps', '-n', 'team-b', '--chunk-size=2']);
    assert.equal(table.trim().split('\n').length, 6);
  });

  it('missing objects are NotFound with the real message', async () => {
    const r = await k.run(['get', 'pod', 'nope', '-n', 'team-a']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim(), 'Error from server (NotFound): pods "nope" not found');
  });

  it('get -w prints the initial rows once, then each change', async () => {
    const child = k.spawn(['get', 'pods', '-n', 'team-a', '-w']);
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    try {
      await eventually(() => out.includes('api-1'), 8000, 'initial rows');
      const before = sim.store.get('v1', 'Pod', 'team-a', 'api-1')!;
      sim.store.updateStatus({ ...structuredClone(before), status: { phase: 'Running', containerStatuses: [{ name: 'main', ready: true, restartCount: 0, state: { running: {} } }] } });
      await eventually(() => /api-1\s+1\/1\s+Running/.test(out), 8000, 'the change');
      const lines = out.trim().split('\n');
      assert.equal(lines.filter((l) => /^api-0\s/.test(l)).length, 1, 'no duplicated initial rows');
    } finally {
      child.kill();
    }
  });

  it('apply creates, strategic-merges changes (other containers survive), then reports unchanged', async () => {
    const manifest = (imageB: string) => JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'two', namespace: 'team-a' },
      spec: { containers: [{ name: 'a', image: 'busybox:1' }, { name: 'b', image: imageB, env: [{ name: 'X', value: '1' }] }] },
    });
    assert.match(await k.ok(['apply', '-f', '-'], manifest('busybox:1')), /pod\/two created/);
    assert.match(await k.ok(['apply', '-f', '-'], manifest('busybox:2')), /pod\/two configured/);
    const live = sim.store.get('v1', 'Pod', 'team-a', 'two')!;
    assert.deepEqual((live.spec as { containers: Array<{ name: string; image: string }> }).containers.map((c) => `${c.name}=${c.image}`), ['a=busybox:1', 'b=busybox:2']);
    const rv = live.metadata.resourceVersion;
    assert.match(await k.ok(['apply', '-f', '-'], manifest('busybox:2')), /pod\/two unchanged/);
    assert.equal(sim.store.get('v1', 'Pod', 'team-a', 'two')!.metadata.resourceVersion, rv);
  });

  it('apply of a custom resource creates and merge-patches it', async () => {
    const js = (suspend: boolean) => JSON.stringify({ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'train', namespace: 'team-a' }, spec: { suspend, replicatedJobs: [{ name: 'w', replicas: 2, template: {} }] } });
    assert.match(await k.ok(['apply', '-f', '-'], js(false)), /jobset\.jobset\.x-k8s\.io\/train created/);
    assert.match(await k.ok(['apply', '-f', '-'], js(true)), /configured/);
    const live = sim.store.get('jobset.x-k8s.io/v1alpha2', 'JobSet', 'team-a', 'train')!;
    assert.equal((live.spec as { suspend: boolean }).suspend, true);
    assert.equal(live.metadata.generation, 2);
    const table = await k.ok(['get', 'jobsets', '-A']);
    assert.match(table.split('\n')[0], /^NAMESPACE\s+NAME\s+TERMINALSTATE\s+RESTARTS\s+COMPLETED\s+SUSPENDED\s+AGE$/);
    assert.match(table, /team-a\s+train\s+true\s+\S+/);
  });

  it('apply --server-side creates and updates with a managedFields entry', async () => {
    const cm = (v: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa', namespace: 'team-a' }, data: { v } });
    assert.match(await k.ok(['apply', '--server-side', '-f', '-'], cm('1')), /serverside-applied/);
    await k.ok(['apply', '--server-side', '-f', '-'], cm('2'));
    const live = sim.store.get('v1', 'ConfigMap', 'team-a', 'ssa')!;
    assert.deepEqual(live.data, { v: '2' });
    assert.ok((live.metadata.managedFields as Array<{ manager: string; operation: string }>).some((f) => f.manager === 'kubectl' && f.operation === 'Apply'));
  });

  it('label and annotate patch metadata; a stale --resource-version is a Conflict', async () => {
    assert.match(await k.ok(['label', 'pod', 'api-0', '-n', 'team-a', 'tier=frontend']), /labeled/);
    assert.match(await k.ok(['annotate', 'pod', 'api-0', '-n', 'team-a', 'owner=ml-team']), /annotated/);
    let live = sim.store.get('v1', 'Pod', 'team-a', 'api-0')!;
    assert.equal(live.metadata.labels!.tier, 'frontend');
    assert.equal(live.metadata.annotations!.owner, 'ml-team');
    await k.ok(['label', 'pod', 'api-0', '-n', 'team-a', 'tier-']);
    live = sim.store.get('v1', 'Pod', 'team-a', 'api-0')!;
    assert.equal(live.metadata.labels!.tier, undefined);
    const r = await k.run(['label', 'pod', 'api-0', '-n', 'team-a', 'x=1', '--resource-version=1']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Conflict.*the object has been modified/);
  });

  it('delete removes objects and cascades to owned ones', async () => {
    const s = sim.store;
    const d = s.create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'team-a' }, spec: { replicas: 1 } });
    const rs = s.create({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web-1', namespace: 'team-a', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: d.metadata.uid!, controller: true }] }, spec: { replicas: 1 } });
    s.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1-abcde', namespace: 'team-a', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: rs.metadata.uid!, controller: true }] }, spec: { containers: [] } });
    assert.match(await k.ok(['delete', 'deployment', 'web', '-n', 'team-a']), /deployment.apps "web" deleted/);
    await eventually(() => !s.get('v1', 'Pod', 'team-a', 'web-1-abcde'), 3000, 'garbage collection');
    assert.equal(s.get('apps/v1', 'ReplicaSet', 'team-a', 'web-1'), undefined);
    // A pod on a node terminates gracefully; the delete waits for it to go.
    assert.match(await k.ok(['delete', 'pod', 'two', '-n', 'team-a']), /pod "two" deleted/);
  });

  it('a CRD applied by kubectl is served at once, with its printer columns', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
        versions: [{
          name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
            { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
            { name: 'Color', type: 'string', jsonPath: '.spec.color', priority: 1 },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
        }],
      },
    };
    const cr = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'team-a' }, spec: { size: 3, color: 'red' } };
    assert.match(await k.ok(['apply', '-f', '-'], JSON.stringify(crd)), /created/);
    assert.match(await k.ok(['apply', '-f', '-'], JSON.stringify(cr)), /widget.example.com\/w1 created/);
    await k.ok(['wait', '--for', 'condition=Established', 'crd/widgets.example.com', '--timeout=10s']);
    const table = await k.ok(['get', 'wd', '-n', 'team-a']);
    assert.match(table.split('\n')[0], /^NAME\s+SIZE\s+PHASE\s+AGE$/);
    // A missing value is a null cell, which kubectl prints blank.
    assert.match(table, /w1\s+3\s+\d+s/);
    const wide = await k.ok(['get', 'widgets', '-A', '-o', 'wide']);
    assert.match(wide.split('\n')[0], /NAMESPACE\s+NAME\s+SIZE\s+PHASE\s+COLOR\s+AGE/);
    assert.match(await k.ok(['api-resources', '--api-group=example.com']), /widgets\s+wd\s+example.com\/v1\s+true\s+Widget/);
    // The status subresource keeps spec and status apart.
    const live = sim.store.get('example.com/v1', 'Widget', 'team-a', 'w1')!;
    sim.store.updateStatus({ ...structuredClone(live), status: { phase: 'Ready' } });
    assert.match(await k.ok(['get', 'widget', 'w1', '-n', 'team-a']), /w1\s+3\s+Ready/);
    assert.match(await k.ok(['delete', 'crd', 'widgets.example.com']), /deleted/);
    await eventually(async () => (await k.run(['get', 'widgets', '-A'])).code !== 0, 5000, 'widgets to disappear');
  });

  it('a token limited to two namespaces is Forbidden elsewhere, with the real message', async () => {
    const alice = new Kubectl(kubeconfigFor(sim, RESTRICTED));
    assert.match(await alice.ok(['get', 'pods', '-n', 'team-a']), /api-0/);
    const all = await alice.run(['get', 'pods', '-A']);
    assert.notEqual(all.code, 0);
    assert.match(all.stderr, /Error from server \(Forbidden\): pods is forbidden: User "alice" cannot list resource "pods" in API group "" at the cluster scope/);
    const other = await alice.run(['get', 'configmaps', '-n', 'default']);
    assert.match(other.stderr, /configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"/);
    const write = await alice.run(['label', 'pod', 'api-0', '-n', 'team-a', 'x=y']);
    assert.match(write.stderr, /pods "api-0" is forbidden: User "alice" cannot patch resource "pods" in API group "" in the namespace "team-a"/);
    const bob = new Kubectl(kubeconfigFor(sim, NOPODS));
    assert.match((await bob.run(['get', 'pods', '-n', 'team-a'])).stderr, /Forbidden.*cannot list resource "pods"/);
    assert.match(await bob.ok(['get', 'configmaps', '-n', 'team-b', '-o', 'name']), /page-0/);
  });

  it('generator commands that send protobuf work for namespaces, configmaps, secrets and service accounts', async () => {
    assert.match(await k.ok(['create', 'namespace', 'made-by-kubectl']), /namespace\/made-by-kubectl created/);
    assert.equal((sim.store.get('v1', 'Namespace', undefined, 'made-by-kubectl')!.status as { phase: string }).phase, 'Active');
    await k.ok(['create', 'configmap', 'gen-cm', '-n', 'made-by-kubectl', '--from-literal=a=1', '--from-literal=b=two']);
    assert.deepEqual(sim.store.get('v1', 'ConfigMap', 'made-by-kubectl', 'gen-cm')!.data, { a: '1', b: 'two' });
    await k.ok(['create', 'secret', 'generic', 'gen-secret', '-n', 'made-by-kubectl', '--from-literal=token=s3cr3t']);
    const secret = sim.store.get('v1', 'Secret', 'made-by-kubectl', 'gen-secret')!;
    assert.equal(Buffer.from((secret.data as { token: string }).token, 'base64').toString(), 's3cr3t');
    assert.equal(secret.type, 'Opaque');
    await k.ok(['create', 'serviceaccount', 'gen-sa', '-n', 'made-by-kubectl']);
    assert.ok(sim.store.get('v1', 'ServiceAccount', 'made-by-kubectl', 'gen-sa'));
    // Kinds with pod specs are not decoded: a clean 415.
    const r = await k.run(['create', 'deployment', 'd', '--image=nginx', '-n', 'made-by-kubectl']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /the body of the request was in an unknown format/);
  });

  it('an unknown token is Unauthorized', async () => {
    const r = await new Kubectl(kubeconfigFor(sim, 'not-a-token')).run(['get', 'pods']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Unauthorized|provide credentials/);
  });
});
