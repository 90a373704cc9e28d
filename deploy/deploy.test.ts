/**
 * The kustomize deployment (deploy/):
 * - its read-only ClusterRole covers every kind the server watches for the catalog (the live
 *   index's own list of wanted kinds, named as the simulated cluster's discovery names them), what
 *   it reads on demand and for utilization, and grants no write verb; the writes overlay adds the
 *   write verbs on every catalog root kind, impersonation and --allow-writes;
 * - the Deployment's probes, resources and security context;
 * - real `kubectl apply -k deploy/` and `kubectl apply -k deploy/overlays/writes` against the
 *   simulated cluster succeed (and a second apply changes nothing), and what the service account may
 *   then do is what the roles say.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { discover, loadClusterConfigs, type ServedResource } from '../server/cluster/index.ts';
import { catalogDefinitions, loadCatalog } from '../server/catalog/index.ts';
import { startSim, type SimHandle } from '../server/sim/index.ts';
import { LiveWorkloads } from '../server/workloads/index.ts';
import { DEPLOY, Kubectl, allows, kubectlSkip, kustomizationObjects, yamlDocs, type Manifest, type PolicyRule } from './test-support.ts';

/**
 * Kinds the server watches that no definition names: CRDs (to notice new kinds) and owners of pods it
 * meets at run time (deploy/in-cluster.test.ts finds them: no kind the server watches is forbidden).
 */
const ALSO_WATCHED = ['apiextensions.k8s.io/CustomResourceDefinition', 'apps/DaemonSet', 'apps.nvidia.com/NIMCache'];
const READ = ['get', 'list', 'watch'];

/** A resource's plural as CRDs and built-ins name it: the lower-cased kind + s, es after s or x (milvuses). */
const plural = (kind: string) => `${kind.toLowerCase()}${/(s|x)$/i.test(kind) ? 'es' : 's'}`;

const base = kustomizationObjects(join(DEPLOY, 'base'));
const reader = base.find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'workload-map-reader') as Manifest & { rules: PolicyRule[] };
const deployment = base.find((o) => o.kind === 'Deployment') as Manifest & { spec: { template: { spec: PodSpec } } };

interface Probe { httpGet?: { path: string; port: string | number; httpHeaders?: Array<{ name: string; value: string }> } }
interface Container {
  name: string;
  image: string;
  args?: string[];
  env?: Array<{ name: string; value?: string }>;
  ports?: Array<{ name?: string; containerPort: number }>;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean; runAsNonRoot?: boolean; capabilities?: { drop?: string[] } };
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}
interface PodSpec { serviceAccountName?: string; securityContext?: { runAsNonRoot?: boolean; runAsUser?: number }; containers: Container[]; volumes?: Array<{ name: string; emptyDir?: unknown }> }

/** The `group/Kind`s the live index watches for the catalog (its own code decides), plus ALSO_WATCHED. */
function watchedKinds(): string[] {
  const live = new LiveWorkloads({ clusters: [], catalog: LiveWorkloads.catalogEntries(loadCatalog()) });
  return [...new Set([...live.wantedKinds('any').keys(), ...ALSO_WATCHED])];
}

describe('the read-only ClusterRole', () => {
  let sim: SimHandle;
  let served: ServedResource[];

  before(async () => {
    // Discovery of a cluster that serves every framework's CRD names each kind's resource.
    sim = await startSim({ controllers: false });
    served = (await discover(loadClusterConfigs({ kubeconfig: sim.kubeconfigPath })[0].kc)).resources;
  });
  after(async () => {
    await sim?.stop();
  });

  it('can get, list and watch every kind the server watches for the catalog', () => {
    const kinds = watchedKinds();
    assert.ok(kinds.length > 20, `only ${kinds.length} kinds`);
    const missing: string[] = [];
    for (const gk of kinds) {
      const [group, kind] = gk.split('/');
      // A kind the simulated cluster has no CRD for (PodMonitor) is named as CRDs name their plurals.
      const resource = served.find((s) => s.group === group && s.kind === kind)?.resource ?? plural(kind);
      for (const verb of READ) if (!allows(reader.rules, { group, resource, verb })) missing.push(`${verb} ${resource}${group ? `.${group}` : ''}`);
    }
    assert.deepEqual(missing, [], `deploy/base/clusterrole.yaml lacks (the server watches these kinds): ${missing.join(', ')}`);
  });

  it('can read what the server reads on demand and for utilization, and review tokens and access', () => {
    const need: Array<[string, string, string, string?]> = [
      ['', 'events', 'list'], ['', 'pods/log', 'get'], ['', 'services', 'list'], ['', 'pods/proxy', 'get'],
      // The Prometheus client POSTs its queries through the service proxy (services/proxy create).
      ['', 'services/proxy', 'get', 'prometheus-k8s:web'], ['', 'services/proxy', 'create', 'prometheus-k8s:web'],
      ['authentication.k8s.io', 'tokenreviews', 'create'], ['authorization.k8s.io', 'subjectaccessreviews', 'create'],
    ];
    for (const [group, resource, verb, name] of need) assert.ok(allows(reader.rules, { group, resource, verb, name }), `${verb} ${resource} ${group} ${name ?? ''}`);
    // The service proxy is open to the usual Prometheus services only, never to any service.
    assert.equal(allows(reader.rules, { group: '', resource: 'services/proxy', verb: 'create', name: 'kubernetes-dashboard:443' }), false);
    assert.equal(allows(reader.rules, { group: '', resource: 'services/proxy', verb: 'get', name: 'vault:8200' }), false);
  });

  it('grants no write verb, no impersonation, no secrets and no wildcards; the base has no other role', () => {
    const exempt = (r: PolicyRule, verb: string) =>
      verb === 'create' && ((r.apiGroups?.[0] === 'authentication.k8s.io' && r.resources?.join() === 'tokenreviews') || (r.apiGroups?.[0] === 'authorization.k8s.io' && r.resources?.join() === 'subjectaccessreviews') || (r.resources?.join() === 'services/proxy' && (r.resourceNames?.length ?? 0) > 0));
    for (const r of reader.rules) {
      for (const v of r.verbs) assert.ok(READ.includes(v) || exempt(r, v), `verb ${v} on ${r.resources?.join(',')} in ${r.apiGroups?.join(',')}`);
      assert.ok(!r.verbs.includes('*') && !(r.resources ?? []).includes('*') && !(r.apiGroups ?? []).includes('*'), 'no wildcards');
      assert.ok(!(r.resources ?? []).includes('secrets') && !(r.resources ?? []).includes('configmaps'), 'no secrets or config maps');
      assert.equal(r.nonResourceURLs, undefined);
    }
    const roles = base.filter((o) => /Role$/.test(o.kind));
    assert.deepEqual(roles.map((o) => `${o.kind}/${o.metadata.name}`), ['ClusterRole/workload-map-reader']);
    const bindings = base.filter((o) => /RoleBinding$/.test(o.kind)) as Array<Manifest & { roleRef: { name: string }; subjects: Array<{ kind: string; name: string; namespace?: string }> }>;
    assert.deepEqual(bindings.map((b) => [b.roleRef.name, b.subjects]), [['workload-map-reader', [{ kind: 'ServiceAccount', name: 'workload-map', namespace: 'workload-map' }]]]);
  });
});

describe('the writes overlay', () => {
  const writes = kustomizationObjects(join(DEPLOY, 'overlays', 'writes'));
  const writer = writes.find((o) => o.metadata.name === 'workload-map-writer' && o.kind === 'ClusterRole') as Manifest & { rules: PolicyRule[] };
  const impersonator = writes.find((o) => o.metadata.name === 'workload-map-impersonator' && o.kind === 'ClusterRole') as Manifest & { rules: PolicyRule[] };

  it('may patch, update and delete every catalog root kind, and register definitions', () => {
    const missing: string[] = [];
    for (const d of catalogDefinitions()) {
      for (const verb of ['patch', 'update', 'delete']) if (!allows(writer.rules, { group: d.rootKind.group, resource: plural(d.rootKind.kind), verb })) missing.push(`${verb} ${plural(d.rootKind.kind)}.${d.rootKind.group}`);
    }
    assert.deepEqual(missing, []);
    for (const verb of ['create', 'update']) assert.ok(allows(writer.rules, { group: 'run.ai', resource: 'kartas', verb }));
    assert.ok(allows(writer.rules, { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', verb: 'update', name: 'kartas.run.ai' }));
    assert.equal(allows(writer.rules, { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', verb: 'update', name: 'other.example.com' }), false);
    for (const r of writer.rules) assert.ok(!(r.resources ?? []).includes('secrets') && !r.verbs.includes('*') && !(r.resources ?? []).includes('*'));
  });

  it('impersonates users, groups, service accounts and uids (what an OIDC or proxy sign-in is acted as)', () => {
    for (const [group, resource] of [['', 'users'], ['', 'groups'], ['', 'serviceaccounts'], ['authentication.k8s.io', 'uids']]) assert.ok(allows(impersonator.rules, { group, resource, verb: 'impersonate' }), resource);
  });
});

describe('the Deployment', () => {
  const spec = deployment.spec.template.spec;
  const c = spec.containers[0];

  it('probes /healthz (startup, liveness) and /readyz (readiness) on the app port', () => {
    const port = c.ports?.find((p) => p.name === 'http');
    assert.equal(port?.containerPort, 3000);
    assert.equal(c.livenessProbe?.httpGet?.path, '/healthz');
    assert.equal(c.startupProbe?.httpGet?.path, '/healthz');
    assert.equal(c.readinessProbe?.httpGet?.path, '/readyz');
    for (const p of [c.livenessProbe, c.readinessProbe, c.startupProbe]) {
      assert.equal(p?.httpGet?.port, 'http');
    }
    assert.deepEqual(c.args, ['--host', '0.0.0.0', '--port', '3000']);
    assert.ok(!c.args?.includes('--allow-writes'));
  });

  it('runs as its service account, non-root, read-only root filesystem, no capabilities, with requests and limits', () => {
    assert.equal(spec.serviceAccountName, 'workload-map');
    assert.equal(spec.securityContext?.runAsNonRoot, true);
    assert.ok((spec.securityContext?.runAsUser ?? 0) > 0);
    assert.equal(c.securityContext?.readOnlyRootFilesystem, true);
    assert.equal(c.securityContext?.allowPrivilegeEscalation, false);
    assert.deepEqual(c.securityContext?.capabilities?.drop, ['ALL']);
    for (const k of ['cpu', 'memory']) assert.ok(c.resources?.requests?.[k] && c.resources?.limits?.[k], k);
    // Where it writes: .wmap/ (quarantines), Next's cache, the temp dir; each an emptyDir.
    const mounts = new Map((c.volumeMounts ?? []).map((m) => [m.mountPath, m.name]));
    for (const path of ['/app/.wmap', '/app/.next/cache', '/tmp']) assert.ok(spec.volumes?.find((v) => v.name === mounts.get(path))?.emptyDir !== undefined, path);
    const hosts = c.env?.find((e) => e.name === 'WMAP_ALLOWED_HOSTS')?.value ?? '';
    assert.ok(hosts.split(',').includes('workload-map.workload-map.svc:80'), hosts);
  });
});

describe('kubectl apply -k against the simulated cluster', { skip: kubectlSkip, timeout: 180_000 }, () => {
  let sim: SimHandle;
  let k: Kubectl;
  let asSa: Kubectl;

  before(async () => {
    // Without the demo identities: their own workload-map service account and roles would mask these.
    sim = await startSim({ scenario: 'demo', identities: false, seed: 7 });
    k = new Kubectl(sim.kubeconfigPath);
  });
  after(async () => {
    await sim?.stop();
  });

  it('deploy/ applies with kubectl\'s default validation, and applying it again changes nothing', async () => {
    assert.equal(sim.store.get('v1', 'Namespace', undefined, 'workload-map'), undefined, 'the namespace must come from the manifests');
    const first = await k.ok(['apply', '-k', 'deploy/']);
    for (const line of ['namespace/workload-map created', 'serviceaccount/workload-map created', 'clusterrole.rbac.authorization.k8s.io/workload-map-reader created', 'clusterrolebinding.rbac.authorization.k8s.io/workload-map-reader created', 'service/workload-map created', 'deployment.apps/workload-map created', 'customresourcedefinition.apiextensions.k8s.io/kartas.run.ai']) {
      assert.ok(first.includes(line), `${line} in:\n${first}`);
    }
    const again = await k.ok(['apply', '-k', 'deploy/']);
    const lines = again.trim().split('\n');
    assert.equal(lines.length, 7, again);
    assert.ok(lines.every((l) => l.endsWith(' unchanged')), again);
    const dep = JSON.parse(await k.ok(['get', 'deployment', 'workload-map', '-n', 'workload-map', '-o', 'json'])) as { spec: { template: { spec: PodSpec } } };
    assert.equal(dep.spec.template.spec.containers[0].image, 'workload-map:0.1.0');
    // The token the pod would get: TokenRequest for the service account (as the kubelet asks for it).
    const token = (await k.ok(['create', 'token', 'workload-map', '-n', 'workload-map'])).trim();
    asSa = new Kubectl(sim.kubeconfigFor(token));
  });

  it('the service account may then read what the server reads and write nothing', async () => {
    const can = async (...args: string[]) => (await asSa.run(['auth', 'can-i', ...args])).stdout.trim();
    assert.equal(await can('list', 'pods', '-A'), 'yes');
    assert.equal(await can('watch', 'jobsets.jobset.x-k8s.io', '-A'), 'yes');
    assert.equal(await can('watch', 'nodes'), 'yes');
    assert.equal(await can('create', 'tokenreviews.authentication.k8s.io'), 'yes');
    assert.equal(await can('get', 'services/prometheus-k8s:web', '--subresource=proxy', '-n', 'monitoring'), 'yes');
    assert.equal(await can('patch', 'jobsets.jobset.x-k8s.io', '-n', 'team-llm'), 'no');
    assert.equal(await can('delete', 'pods', '-A'), 'no');
    assert.equal(await can('get', 'secrets', '-A'), 'no');
    assert.equal(await can('impersonate', 'users'), 'no');
    // And the real lists work with that token.
    const pods = JSON.parse(await asSa.ok(['get', 'pods', '-A', '-o', 'json'])) as { items: unknown[] };
    assert.ok(pods.items.length > 10);
  });

  it('deploy/overlays/writes applies on top, adding the write roles, impersonation and --allow-writes', async () => {
    const out = await k.ok(['apply', '-k', 'deploy/overlays/writes']);
    for (const line of ['clusterrole.rbac.authorization.k8s.io/workload-map-writer created', 'clusterrolebinding.rbac.authorization.k8s.io/workload-map-writer created', 'clusterrole.rbac.authorization.k8s.io/workload-map-impersonator created', 'deployment.apps/workload-map configured', 'clusterrole.rbac.authorization.k8s.io/workload-map-reader unchanged']) {
      assert.ok(out.includes(line), `${line} in:\n${out}`);
    }
    const dep = JSON.parse(await k.ok(['get', 'deployment', 'workload-map', '-n', 'workload-map', '-o', 'json'])) as { spec: { template: { spec: PodSpec } } };
    assert.deepEqual(dep.spec.template.spec.containers[0].args, ['--host', '0.0.0.0', '--port', '3000', '--allow-writes']);
    const can = async (...args: string[]) => (await asSa.run(['auth', 'can-i', ...args])).stdout.trim();
    assert.equal(await can('patch', 'jobsets.jobset.x-k8s.io', '-n', 'team-llm'), 'yes');
    assert.equal(await can('create', 'kartas.run.ai'), 'yes');
    assert.equal(await can('impersonate', 'users'), 'yes');
    assert.equal(await can('get', 'secrets', '-A'), 'no');
    // kubectl kustomize (the build kubectl applied) agrees with the files this test reads.
    const built = parseAllDocuments(await k.ok(['kustomize', 'deploy/overlays/writes'])).map((d) => d.toJS() as Manifest);
    assert.deepEqual(built.map((o) => `${o.kind}/${o.metadata.name}`).sort(), kustomizationObjects(join(DEPLOY, 'overlays', 'writes')).map((o) => `${o.kind}/${o.metadata.name}`).sort());
  });
});

// The CRD the deployment installs is the one the product compares clusters against.
it('deploy/ ships the Karta CRD', () => {
  assert.ok(base.some((o) => o.kind === 'CustomResourceDefinition' && o.metadata.name === 'kartas.run.ai'));
  assert.equal(yamlDocs(join(DEPLOY, 'crds', 'kartas.run.ai.yaml'))[0].metadata.name, 'kartas.run.ai');
});
