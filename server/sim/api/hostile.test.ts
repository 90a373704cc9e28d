/**
 * Hostile input: what the real API server refuses (or, where it accepts something surprising, accepts),
 * with its status code and message, checked against the simulated one. Every refused write must leave
 * the store and the watch history exactly as they were, and the server must answer normally afterwards
 * (the kind still lists; kubectl still gets it).
 */

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim } from '../index.ts';
import type { SimHandle } from '../index.ts';
import { MAX_REQUEST_BODY_BYTES } from './request-body.ts';
import { Kubectl, cleanupTempDirs, kubectlSkip, openWatch, raw } from './test-support.ts';

const NS = 'hostile';
const CMS = `/api/v1/namespaces/${NS}/configmaps`;
const PODS = `/api/v1/namespaces/${NS}/pods`;
const DEPLOYS = `/apis/apps/v1/namespaces/${NS}/deployments`;
const JOBS = `/apis/batch/v1/namespaces/${NS}/jobs`;
const SERVICES = `/api/v1/namespaces/${NS}/services`;
const JOBSETS = `/apis/jobset.x-k8s.io/v1alpha2/namespaces/${NS}/jobsets`;
const LWS = `/apis/leaderworkerset.x-k8s.io/v1/namespaces/${NS}/leaderworkersets`;
const WIDGETS = `/apis/hostile.example.com/v1/namespaces/${NS}/widgets`;
const NAMESPACES = '/api/v1/namespaces';

const MERGE = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const SMP = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';

/** A test CRD with a schema that uses every keyword the server validates. */
const WIDGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.hostile.example.com' },
  spec: {
    group: 'hostile.example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [{
      name: 'v1', served: true, storage: true,
      subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
      schema: {
        openAPIV3Schema: {
          type: 'object',
          properties: {
            apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' },
            spec: {
              type: 'object',
              required: ['size'],
              properties: {
                size: { type: 'integer', minimum: 1, maximum: 100 },
                replicas: { type: 'integer', format: 'int32' },
                mode: { type: 'string', enum: ['fast', 'slow'] },
                title: { type: 'string', maxLength: 10 },
                code: { type: 'string', pattern: '^[a-z]+$' },
                tags: { type: 'array', maxItems: 3, items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
                port: { 'x-kubernetes-int-or-string': true },
                labels: { type: 'object', additionalProperties: { type: 'string' } },
                blob: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                ratio: { type: 'number', exclusiveMaximum: true, maximum: 1 },
                note: { type: 'string', nullable: true },
              },
            },
            status: { type: 'object', properties: { replicas: { type: 'integer' }, phase: { type: 'string' } } },
          },
        },
      },
    }],
  },
};

function widget(name: string, spec: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'hostile.example.com/v1', kind: 'Widget', metadata: { name }, spec };
}

function deployment(name: string, spec: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
    spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }, ...spec },
  };
}

function podWithResources(name: string, resources: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox', resources }] } };
}

function jobset(name: string, replicas: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name },
    spec: { suspend: true, replicatedJobs: [{ name: 'w', replicas, template: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } } } }], ...extra },
  };
}

/** `{"a":{"a":…1…}}` nested `depth` levels (the outermost object is level 1). */
function nested(depth: number, open = '{"a":', close = '}', leaf = '1'): string {
  return `${open.repeat(depth)}${leaf}${close.repeat(depth)}`;
}

interface Case {
  name: string;
  method: string;
  path: string;
  body: unknown;
  contentType?: string;
  status: number;
  reason?: string;
  message: string | RegExp;
  /** Where to list afterwards (default: the collection of `path`). */
  list?: string;
  /** Run before the case (objects a patch needs). */
  setup?: () => Promise<void>;
}

describe('hostile input', () => {
  let sim: SimHandle;

  before(async () => {
    sim = await startSim({ controllers: false });
    assert.equal((await raw(sim, 'POST', NAMESPACES, { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } })).status, 201);
    assert.equal((await raw(sim, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: WIDGET_CRD })).status, 201);
    // The CRD controller registers the resource at once.
    assert.equal((await raw(sim, 'GET', WIDGETS)).status, 200);
  });

  after(async () => {
    await sim?.stop();
    cleanupTempDirs();
  });

  /** Sends a request that must fail, and checks the answer, that nothing changed, and that the kind still lists. */
  async function refused(c: Case): Promise<void> {
    if (c.setup) await c.setup();
    const rv = sim.store.resourceVersion();
    const r = await raw(sim, c.method, c.path, { body: c.body, contentType: c.contentType });
    assert.equal(r.status, c.status, `${c.name}: ${r.body.slice(0, 500)}`);
    assert.equal(r.headers['content-type'], 'application/json');
    const status = JSON.parse(r.body) as { kind: string; status: string; code: number; reason?: string; message: string; details?: { causes?: Array<{ field?: string }> } };
    assert.equal(status.kind, 'Status');
    assert.equal(status.status, 'Failure');
    assert.equal(status.code, c.status);
    assert.equal(status.reason, c.reason, `${c.name}: reason`);
    if (typeof c.message === 'string') assert.equal(status.message, c.message, c.name);
    else assert.match(status.message, c.message, c.name);
    if (c.status === 422 && c.reason === 'Invalid' && status.message.includes(' is invalid: ')) assert.ok(status.details?.causes?.length, `${c.name}: causes`);
    // Nothing stored, anywhere: no new resourceVersion, no event in the watch history.
    assert.equal(sim.store.resourceVersion(), rv, `${c.name}: the store changed`);
    assert.deepEqual(sim.store.historySince(Number(rv)), [], `${c.name}: the watch history changed`);
    const list = await raw(sim, 'GET', c.list ?? c.path.replace(/\?.*$/, '').replace(/\/(status|scale)$/, '').replace(/\/[^/]+$/, (m) => (c.method === 'POST' ? m : '')));
    assert.equal(list.status, 200, `${c.name}: list afterwards: ${list.body.slice(0, 300)}`);
    assert.match(String(JSON.parse(list.body).kind), /List$/);
  }

  /** Sends a request that the real server accepts although it looks hostile. */
  async function accepted(method: string, path: string, body: unknown, status = 201, contentType?: string): Promise<Record<string, unknown>> {
    const r = await raw(sim, method, path, { body, contentType });
    assert.equal(r.status, status, r.body.slice(0, 500));
    return JSON.parse(r.body) as Record<string, unknown>;
  }

  const created = (path: string, body: unknown) => async () => {
    const r = await raw(sim, 'POST', path, { body });
    assert.ok(r.status === 201 || r.status === 409, r.body.slice(0, 300));
  };

  const cases: Case[] = [
    // ------------------------------------------------ size and depth limits
    {
      name: 'a body over MaxRequestBodyBytes (3 MiB)',
      method: 'POST', path: CMS,
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'huge' }, data: { a: 'x'.repeat(MAX_REQUEST_BODY_BYTES) } }),
      status: 413, reason: 'RequestEntityTooLarge', message: 'Request entity too large: limit is 3145728',
    },
    {
      name: 'a patch over 3 MiB',
      method: 'PATCH', path: `${CMS}/target`, contentType: MERGE, setup: created(CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target' } }),
      body: JSON.stringify({ data: { a: 'x'.repeat(MAX_REQUEST_BODY_BYTES + 10) } }),
      status: 413, reason: 'RequestEntityTooLarge', message: 'Request entity too large: limit is 3145728', list: CMS,
    },
    {
      name: 'JSON nested 10001 deep (create)',
      method: 'POST', path: CMS,
      body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":${nested(10_000)}}`,
      status: 400, reason: 'BadRequest',
      message: 'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: invalid character \'{\' exceeded max depth ({"apiVersion":"v1","kind":"Con ...)',
    },
    {
      name: 'JSON arrays nested 10001 deep in a custom resource (PUT)',
      method: 'PUT', path: `${WIDGETS}/w-deep`, setup: created(WIDGETS, widget('w-deep', { size: 1 })),
      body: `{"apiVersion":"hostile.example.com/v1","kind":"Widget","metadata":{"name":"w-deep"},"spec":{"size":1,"blob":{"x":${nested(9_998, '[', ']', '0')}}}}`,
      status: 400, reason: 'BadRequest', message: /^the object provided is unrecognized \(must be of type Widget\): couldn't get version\/kind; json parse error: invalid character '\[' exceeded max depth \(\{"apiVersion":"hostile\.example \.\.\.\)$/, list: WIDGETS,
    },
    {
      name: 'YAML nested 10001 deep',
      method: 'POST', path: CMS, contentType: 'application/yaml',
      body: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml-deep\ndata: ${nested(10_001, '[', ']', '')}\n`,
      status: 400, reason: 'BadRequest', message: /^the object provided is unrecognized \(must be of type ConfigMap\): yaml: line 5: exceeded max depth of 10000 \(61706956657273696f6e3a2076310a6b696e643a20436f6e6669674d6170 \.\.\.\)$/,
    },
    {
      name: 'a merge patch nested 10001 deep',
      method: 'PATCH', path: `${CMS}/target`, contentType: MERGE, setup: created(CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target' } }),
      body: `{"data":${nested(10_000)}}`,
      status: 400, reason: 'BadRequest', message: "error decoding patch: invalid character '{' exceeded max depth", list: CMS,
    },
    {
      name: 'a JSON patch nested 10001 deep',
      method: 'PATCH', path: `${CMS}/target`, contentType: JSON_PATCH,
      body: `[{"op":"add","path":"/data","value":${nested(9_999, '[', ']', '0')}}]`,
      status: 400, reason: 'BadRequest', message: "error decoding patch: invalid character '[' exceeded max depth", list: CMS,
    },
    {
      name: 'server-side apply nested 10001 deep',
      method: 'PATCH', path: `${CMS}/target?fieldManager=hostile`, contentType: APPLY,
      body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"target"},"x":${nested(10_000)}}`,
      status: 400, reason: 'BadRequest', message: 'error decoding YAML: error converting YAML to JSON: yaml: exceeded max depth of 10000', list: CMS,
    },
    // ------------------------------------------------ typed fields of built-in kinds (decoding: 400)
    {
      name: 'replicas 1e15 on a Deployment (an int32)',
      method: 'POST', path: DEPLOYS, body: JSON.stringify(deployment('d1')).replace('"replicas":1', '"replicas":1e15'),
      status: 400, reason: 'BadRequest', message: 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 1e15 into Go struct field DeploymentSpec.spec.replicas of type int32',
    },
    {
      name: 'replicas 3000000000 (beyond int32)',
      method: 'POST', path: DEPLOYS, body: JSON.stringify(deployment('d2', { replicas: 3_000_000_000 })),
      status: 400, reason: 'BadRequest', message: 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32',
    },
    {
      name: 'fractional replicas',
      method: 'POST', path: DEPLOYS, body: JSON.stringify(deployment('d3', { replicas: 1.5 })),
      status: 400, reason: 'BadRequest', message: 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32',
    },
    {
      name: 'replicas "3" as a string',
      method: 'POST', path: DEPLOYS, body: JSON.stringify(deployment('d4', { replicas: '3' })),
      status: 400, reason: 'BadRequest', message: 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    },
    {
      name: 'a number where a label value (string) goes',
      method: 'POST', path: CMS, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'numlabel', labels: { a: 1 } } },
      status: 400, reason: 'BadRequest', message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string',
    },
    {
      name: 'a GPU quantity "abc"',
      method: 'POST', path: PODS, body: podWithResources('gpu-abc', { limits: { 'nvidia.com/gpu': 'abc' } }),
      status: 400, reason: 'BadRequest', message: "Pod in version \"v1\" cannot be handled as a Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    },
    {
      name: 'completions 3e9 on a Job',
      method: 'POST', path: JOBS,
      body: `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j1"},"spec":{"completions":3e9,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"i"}]}}}}`,
      status: 400, reason: 'BadRequest', message: 'Job in version "v1" cannot be handled as a Job: json: cannot unmarshal number 3e9 into Go struct field JobSpec.spec.completions of type int32',
    },
    // ------------------------------------------------ validation of built-in kinds (422)
    {
      name: 'negative replicas',
      method: 'POST', path: DEPLOYS, body: deployment('d5', { replicas: -1 }),
      status: 422, reason: 'Invalid', message: 'Deployment.apps "d5" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    },
    {
      name: 'negative parallelism and backoffLimit on a Job',
      method: 'POST', path: JOBS,
      body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j2' }, spec: { parallelism: -2, backoffLimit: -1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } } } },
      status: 422, reason: 'Invalid', message: 'Job.batch "j2" is invalid: [spec.parallelism: Invalid value: -2: must be greater than or equal to 0, spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0]',
    },
    {
      name: 'an Indexed Job with 200000 completions',
      method: 'POST', path: JOBS,
      body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j3' }, spec: { completionMode: 'Indexed', completions: 200_000, parallelism: 1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } } } },
      status: 422, reason: 'Invalid', message: 'Job.batch "j3" is invalid: spec.completions: Invalid value: 200000: must be less than or equal to 100000 when completion mode is Indexed',
    },
    {
      name: 'a GPU limit of -1',
      method: 'POST', path: PODS, body: podWithResources('gpu-neg', { limits: { 'nvidia.com/gpu': '-1' } }),
      status: 422, reason: 'Invalid', message: 'Pod "gpu-neg" is invalid: spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: "-1": must be greater than or equal to 0',
    },
    {
      name: 'a GPU limit of 0.5m',
      method: 'POST', path: PODS, body: podWithResources('gpu-milli', { limits: { 'nvidia.com/gpu': '0.5m' } }),
      status: 422, reason: 'Invalid', message: /^Pod "gpu-milli" is invalid: spec\.containers\[0\]\.resources\.limits\[nvidia\.com\/gpu\]: Invalid value: resource\.Quantity\{i:resource\.int64Amount\{value:5, scale:-4\}.*\}: must be an integer$/,
    },
    {
      name: 'a GPU request without a limit',
      method: 'POST', path: PODS, body: podWithResources('gpu-nolimit', { requests: { 'nvidia.com/gpu': '1' } }),
      status: 422, reason: 'Invalid', message: 'Pod "gpu-nolimit" is invalid: spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources',
    },
    {
      name: 'a GPU request that differs from the limit',
      method: 'POST', path: PODS, body: podWithResources('gpu-diff', { requests: { 'nvidia.com/gpu': '2' }, limits: { 'nvidia.com/gpu': '1' } }),
      status: 422, reason: 'Invalid', message: 'Pod "gpu-diff" is invalid: spec.containers[0].resources.requests: Invalid value: "2": must be equal to nvidia.com/gpu limit of 1',
    },
    {
      name: 'a cpu request above the limit',
      method: 'POST', path: PODS, body: podWithResources('cpu-over', { requests: { cpu: '2' }, limits: { cpu: '1500m' } }),
      status: 422, reason: 'Invalid', message: 'Pod "cpu-over" is invalid: spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1500m',
    },
    {
      name: 'a label value of 64 characters',
      method: 'POST', path: CMS, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'longlabel', labels: { app: 'v'.repeat(64) } } },
      status: 422, reason: 'Invalid', message: `ConfigMap "longlabel" is invalid: metadata.labels: Invalid value: "${'v'.repeat(64)}": must be no more than 63 characters`,
    },
    {
      name: 'a label key with two slashes',
      method: 'POST', path: CMS, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'badkey', labels: { 'a/b/c': 'x' } } },
      status: 422, reason: 'Invalid', message: /^ConfigMap "badkey" is invalid: metadata\.labels: Invalid value: "a\/b\/c": a qualified name must consist of alphanumeric characters/,
    },
    {
      name: 'annotations over 256 KiB in total',
      method: 'POST', path: CMS, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bigann', annotations: { a: 'x'.repeat(200_000), b: 'y'.repeat(70_000) } } },
      status: 422, reason: 'Invalid', message: 'ConfigMap "bigann" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes',
    },
    {
      name: 'a name of 254 characters',
      method: 'POST', path: CMS, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'n'.repeat(254) } },
      status: 422, reason: 'Invalid', message: `ConfigMap "${'n'.repeat(254)}" is invalid: metadata.name: Invalid value: "${'n'.repeat(254)}": must be no more than 253 characters`,
    },
    {
      name: 'a namespace name of 64 characters (a DNS label)',
      method: 'POST', path: NAMESPACES, body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n'.repeat(64) } },
      status: 422, reason: 'Invalid', message: `Namespace "${'n'.repeat(64)}" is invalid: metadata.name: Invalid value: "${'n'.repeat(64)}": must be no more than 63 characters`,
    },
    {
      name: 'a unicode name',
      method: 'POST', path: CMS, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'café-☕' } },
      status: 422, reason: 'Invalid', message: "ConfigMap \"café-☕\" is invalid: metadata.name: Invalid value: \"café-☕\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    },
    {
      name: 'a Service named like a domain (DNS-1035 label)',
      method: 'POST', path: SERVICES, body: { apiVersion: 'v1', kind: 'Service', metadata: { name: '1svc' }, spec: { ports: [{ port: 80 }] } },
      status: 422, reason: 'Invalid', message: "Service \"1svc\" is invalid: metadata.name: Invalid value: \"1svc\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    },
    {
      name: 'a Service port of 70000',
      method: 'POST', path: SERVICES, body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc' }, spec: { ports: [{ port: 70_000 }] } },
      status: 422, reason: 'Invalid', message: 'Service "svc" is invalid: spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
    },
    {
      name: 'ConfigMap data over 1 MiB',
      method: 'POST', path: CMS, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bigdata' }, data: { a: 'x'.repeat(1024 * 1024 + 1) } },
      status: 422, reason: 'Invalid', message: 'ConfigMap "bigdata" is invalid: data: Too long: may not be more than 1048576 bytes',
    },
    {
      name: 'a selector that does not match the template',
      method: 'POST', path: DEPLOYS, body: { ...deployment('d6'), spec: { ...(deployment('d6').spec as object), selector: { matchLabels: { app: 'other' } } } },
      status: 422, reason: 'Invalid', message: 'Deployment.apps "d6" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"d6"}: `selector` does not match template `labels`',
    },
    {
      name: 'two containers with one name, one without an image',
      method: 'POST', path: PODS, body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'twins' }, spec: { containers: [{ name: 'c', image: 'i' }, { name: 'c' }] } },
      status: 422, reason: 'Invalid', message: 'Pod "twins" is invalid: [spec.containers[1].image: Required value, spec.containers[1].name: Duplicate value: "c"]',
    },
    // ------------------------------------------------ patches and server-side apply
    {
      name: 'a merge patch that makes replicas negative',
      method: 'PATCH', path: `${DEPLOYS}/patched`, contentType: MERGE, setup: created(DEPLOYS, deployment('patched')),
      body: { spec: { replicas: -5 } },
      status: 422, reason: 'Invalid', message: 'Deployment.apps "patched" is invalid: spec.replicas: Invalid value: -5: must be greater than or equal to 0', list: DEPLOYS,
    },
    {
      name: 'a strategic merge patch that puts a string in replicas',
      method: 'PATCH', path: `${DEPLOYS}/patched`, contentType: SMP, body: { spec: { replicas: 'many' } },
      status: 422, reason: 'Invalid', message: ' "" is invalid: patch: Invalid value: "map[spec:map[replicas:many]]": json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32', list: DEPLOYS,
    },
    {
      name: 'a JSON patch that removes the containers',
      method: 'PATCH', path: `${DEPLOYS}/patched`, contentType: JSON_PATCH, body: [{ op: 'remove', path: '/spec/template/spec/containers' }],
      status: 422, reason: 'Invalid', message: 'Deployment.apps "patched" is invalid: spec.template.spec.containers: Required value', list: DEPLOYS,
    },
    {
      name: 'a JSON patch of 10001 operations',
      method: 'PATCH', path: `${DEPLOYS}/patched`, contentType: JSON_PATCH, body: Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/kind', value: 'Deployment' })),
      status: 413, reason: 'RequestEntityTooLarge', message: 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001', list: DEPLOYS,
    },
    {
      name: 'server-side apply with an invalid field',
      method: 'PATCH', path: `${JOBSETS}/applied?fieldManager=hostile`, contentType: APPLY, body: jobset('applied', -1),
      status: 422, reason: 'Invalid', message: 'JobSet.jobset.x-k8s.io "applied" is invalid: spec.replicatedJobs[0].replicas: Invalid value: -1: spec.replicatedJobs[0].replicas in body should be greater than or equal to 0', list: JOBSETS,
    },
    // ------------------------------------------------ custom resources against their schema
    {
      name: 'a JobSet with replicas as a string',
      method: 'POST', path: JOBSETS, body: jobset('js-str', '3'),
      status: 422, reason: 'Invalid', message: 'JobSet.jobset.x-k8s.io "js-str" is invalid: spec.replicatedJobs[0].replicas: Invalid value: "string": spec.replicatedJobs[0].replicas in body must be of type integer: "string"',
    },
    {
      name: 'a JobSet with two replicatedJobs of one name and an unknown startup order',
      method: 'POST', path: JOBSETS,
      body: { ...jobset('js-dup', 1), spec: { replicatedJobs: [{ name: 'a', template: {} }, { name: 'a', template: {} }], startupPolicy: { startupPolicyOrder: 'Sometimes' } } },
      status: 422, reason: 'Invalid', message: 'JobSet.jobset.x-k8s.io "js-dup" is invalid: [spec.startupPolicy.startupPolicyOrder: Unsupported value: "Sometimes": supported values: "AnyOrder", "InOrder", spec.replicatedJobs[1]: Duplicate value: map[string]interface {}{"name":"a"}]',
    },
    {
      name: 'a CR violating its CRD schema in every way',
      method: 'POST', path: WIDGETS,
      body: widget('w-bad', { size: 101, mode: 'turbo', title: 'much too long', code: 'ABC', tags: ['a', 'b', 'c', 'd'], port: true, labels: { a: 1 }, ratio: 1 }),
      status: 422, reason: 'Invalid',
      message: 'Widget.hostile.example.com "w-bad" is invalid: [spec.size: Invalid value: 101: spec.size in body should be less than or equal to 100, spec.mode: Unsupported value: "turbo": supported values: "fast", "slow", spec.title: Too long: may not be more than 10 bytes, spec.code: Invalid value: "ABC": spec.code in body should match \'^[a-z]+$\', spec.tags: Too many: 4: must have at most 3 items, spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean", spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer", spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1]',
    },
    {
      name: 'a CR without a required field, with a duplicate in a set',
      method: 'POST', path: WIDGETS, body: { apiVersion: 'hostile.example.com/v1', kind: 'Widget', metadata: { name: 'w-req' }, spec: { mode: 'fast', tags: ['x', 'x'] } },
      status: 422, reason: 'Invalid', message: 'Widget.hostile.example.com "w-req" is invalid: [spec.size: Required value, spec.tags[1]: Duplicate value: "x"]',
    },
    {
      name: 'an unknown field with fieldValidation=Strict',
      method: 'POST', path: `${WIDGETS}?fieldValidation=Strict`, body: widget('w-strict', { size: 1, bogus: true }),
      status: 400, reason: 'BadRequest', message: 'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.bogus"', list: WIDGETS,
    },
    {
      name: 'replicas 3000000000 behind a scale subresource',
      method: 'POST', path: LWS, body: { apiVersion: 'leaderworkerset.x-k8s.io/v1', kind: 'LeaderWorkerSet', metadata: { name: 'lws-big' }, spec: { replicas: 3_000_000_000 } },
      status: 422, reason: 'Invalid', message: 'LeaderWorkerSet.leaderworkerset.x-k8s.io "lws-big" is invalid: .spec.replicas: Invalid value: 3000000000: should be less than or equal to 2147483647',
    },
    {
      name: 'replicas 1e15 behind a scale subresource (a float64 to the server)',
      method: 'POST', path: LWS, body: '{"apiVersion":"leaderworkerset.x-k8s.io/v1","kind":"LeaderWorkerSet","metadata":{"name":"lws-float"},"spec":{"replicas":1e15}}',
      status: 422, reason: 'Invalid', message: 'LeaderWorkerSet.leaderworkerset.x-k8s.io "lws-float" is invalid: .spec.replicas: Invalid value: 0: .spec.replicas accessor error: 1e+15 is of the type float64, expected int64',
    },
    {
      name: 'a number beyond float64 in a custom resource',
      method: 'POST', path: WIDGETS, body: '{"apiVersion":"hostile.example.com/v1","kind":"Widget","metadata":{"name":"w-inf"},"spec":{"size":1,"blob":{"x":1e400}}}',
      status: 400, reason: 'BadRequest', message: 'Widget in version "v1" cannot be handled as a Widget: json: cannot unmarshal number 1e400 into Go value of type float64',
    },
    {
      name: 'a status update that violates the schema',
      method: 'PUT', path: `${WIDGETS}/w-status/status`, setup: created(WIDGETS, widget('w-status', { size: 1 })),
      body: async () => undefined,
      status: 422, reason: 'Invalid', message: 'Widget.hostile.example.com "w-status" is invalid: [status.replicas: Invalid value: "string": status.replicas in body must be of type integer: "string", .status.replicas: Invalid value: 0: .status.replicas accessor error: three is of the type string, expected int64]', list: WIDGETS,
    },
    {
      name: 'a Scale of 3e9 replicas',
      method: 'PUT', path: `${WIDGETS}/w-status/scale`, body: '{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"w-status"},"spec":{"replicas":3e9}}',
      status: 400, reason: 'BadRequest', message: 'Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal number 3e9 into Go struct field ScaleSpec.spec.replicas of type int32', list: WIDGETS,
    },
    {
      name: 'an object beyond what etcd stores (1.5 MiB)',
      method: 'POST', path: WIDGETS, body: widget('w-huge', { size: 1, blob: { a: 'x'.repeat(2 * 1024 * 1024) } }),
      status: 500, reason: undefined, message: 'etcdserver: request is too large',
    },
    // ------------------------------------------------ resourceVersion garbage
    {
      name: 'an update with resourceVersion "abc"',
      method: 'PUT', path: `${CMS}/target`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target', resourceVersion: 'abc' } },
      status: 500, reason: undefined, message: 'strconv.ParseUint: parsing "abc": invalid syntax', list: CMS,
    },
    {
      name: 'a merge patch with resourceVersion "-1"',
      method: 'PATCH', path: `${CMS}/target`, contentType: MERGE, body: { metadata: { resourceVersion: '-1' } },
      status: 500, reason: undefined, message: 'strconv.ParseUint: parsing "-1": invalid syntax', list: CMS,
    },
    {
      name: 'a create that sets resourceVersion',
      method: 'POST', path: CMS, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'withrv', resourceVersion: '12' } },
      status: 500, reason: undefined, message: 'resourceVersion should not be set on objects to be created',
    },
    {
      name: 'an update with a stale resourceVersion',
      method: 'PUT', path: `${CMS}/target`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target', resourceVersion: '1' }, data: { a: 'b' } },
      status: 409, reason: 'Conflict', message: 'Operation cannot be fulfilled on configmaps "target": the object has been modified; please apply your changes to the latest version and try again', list: CMS,
    },
  ];

  for (const c of cases) {
    it(`refuses ${c.name}`, async () => {
      if (typeof c.body === 'function') {
        // The status case: the object as stored, with a bad status.
        await c.setup?.();
        const current = JSON.parse((await raw(sim, 'GET', c.path.replace(/\/status$/, ''))).body) as Record<string, unknown>;
        await refused({ ...c, setup: undefined, body: { ...current, status: { replicas: 'three' } } });
        return;
      }
      await refused(c);
    });
  }

  it('accepts what the real server accepts although it looks hostile, and serves it back', async () => {
    // 10000 levels is the limit, not beyond it: stored, listed and watched like anything else.
    const deep = await accepted('POST', WIDGETS, `{"apiVersion":"hostile.example.com/v1","kind":"Widget","metadata":{"name":"w-10000"},"spec":{"size":1,"blob":{"x":${nested(9_996)}}}}`);
    assert.equal((deep.metadata as { name: string }).name, 'w-10000');
    const list = await raw(sim, 'GET', WIDGETS);
    assert.equal(list.status, 200);
    assert.ok((JSON.parse(list.body) as { items: unknown[] }).items.some((w) => (w as { metadata: { name: string } }).metadata.name === 'w-10000'));
    // Patches as deep as the decoder allows merge too (the merges do not recurse past the call stack).
    for (const [type, body] of [
      [MERGE, `{"spec":{"blob":{"m":${nested(9_990)}}}}`],
      [JSON_PATCH, `[{"op":"add","path":"/spec/blob/j","value":${nested(9_990)}}]`],
      [APPLY, `{"apiVersion":"hostile.example.com/v1","kind":"Widget","metadata":{"name":"w-10000"},"spec":{"size":1,"blob":{"s":${nested(9_990)}}}}`],
    ]) {
      const r = await raw(sim, 'PATCH', `${WIDGETS}/w-10000?fieldManager=deep`, { body, contentType: type });
      assert.equal(r.status, 200, `${type}: ${r.body.slice(0, 300)}`);
    }
    assert.deepEqual(Object.keys((JSON.parse((await raw(sim, 'GET', `${WIDGETS}/w-10000`)).body) as { spec: { blob: object } }).spec.blob).sort(), ['j', 'm', 's', 'x']);
    // The 5000-deep object: stored, and the kind still lists.
    await accepted('POST', WIDGETS, `{"apiVersion":"hostile.example.com/v1","kind":"Widget","metadata":{"name":"w-5000"},"spec":{"size":1,"blob":{"x":${nested(5_000)}}}}`);
    assert.equal((await raw(sim, 'GET', `${WIDGETS}/w-5000`)).status, 200);
    // A JobSet's replicas are an int32 with minimum 0 upstream, but int32 is not a format the server checks.
    const js = await accepted('POST', JOBSETS, '{"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":"js-1e15"},"spec":{"suspend":true,"replicatedJobs":[{"name":"w","replicas":1e15,"template":{"spec":{}}}]}}');
    assert.equal((js.spec as { replicatedJobs: Array<{ replicas: number }> }).replicatedJobs[0].replicas, 1e15);
    // A GPU quantity of 1e1000 parses (and its milli-value overflows to 0, so it "is an integer").
    await accepted('POST', PODS, podWithResources('gpu-1e1000', { limits: { 'nvidia.com/gpu': '1e1000' } }));
    // An unknown field without Strict: pruned, with a Warning header.
    const r = await raw(sim, 'POST', WIDGETS, { body: widget('w-warn', { size: 1, bogus: true }) });
    assert.equal(r.status, 201);
    assert.equal(r.headers.warning, '299 - "unknown field \\"spec.bogus\\""');
    assert.equal((JSON.parse(r.body) as { spec: Record<string, unknown> }).spec.bogus, undefined);
    // A null where the schema allows none is dropped, not refused.
    const nulls = await accepted('POST', WIDGETS, widget('w-null', { size: 1, mode: null, note: null }));
    assert.deepEqual(nulls.spec, { size: 1, note: null });
  });

  it('a failing write leaves the store and an open watch untouched, for every verb', async () => {
    await raw(sim, 'POST', CMS, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched' } } });
    const rv = sim.store.resourceVersion();
    const w = openWatch(sim, `${CMS}?watch=true&resourceVersion=${rv}`);
    assert.equal(await w.status, 200);
    const bad = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched', labels: { x: '-bad-' } } };
    const answers = [
      await raw(sim, 'POST', CMS, { body: { ...bad, metadata: { ...bad.metadata, name: 'new' } } }),
      await raw(sim, 'PUT', `${CMS}/watched`, { body: bad }),
      await raw(sim, 'PATCH', `${CMS}/watched`, { body: { metadata: { labels: { x: '-bad-' } } }, contentType: MERGE }),
      await raw(sim, 'PATCH', `${CMS}/watched`, { body: { metadata: { labels: { x: '-bad-' } } }, contentType: SMP }),
      await raw(sim, 'PATCH', `${CMS}/watched`, { body: [{ op: 'add', path: '/metadata/labels', value: { x: '-bad-' } }], contentType: JSON_PATCH }),
      await raw(sim, 'PATCH', `${CMS}/watched?fieldManager=m`, { body: bad, contentType: APPLY }),
      await raw(sim, 'PATCH', `${CMS}/fresh?fieldManager=m`, { body: { ...bad, metadata: { ...bad.metadata, name: 'fresh' } }, contentType: APPLY }),
      await raw(sim, 'POST', `${CMS}?dryRun=All`, { body: { ...bad, metadata: { ...bad.metadata, name: 'dry' } } }),
    ];
    for (const a of answers) assert.equal(a.status, 422, a.body);
    assert.equal(sim.store.resourceVersion(), rv);
    assert.deepEqual(sim.store.historySince(Number(rv)), []);
    // The next good write is the first thing the watch sees.
    assert.equal((await raw(sim, 'PATCH', `${CMS}/watched`, { body: { metadata: { labels: { x: 'good' } } }, contentType: MERGE })).status, 200);
    await w.waitFor(1);
    assert.equal(w.events.length, 1);
    assert.equal(w.events[0].type, 'MODIFIED');
    assert.deepEqual((w.events[0].object.metadata as { labels: unknown }).labels, { x: 'good' });
    w.close();
  });

  describe('with kubectl', { skip: kubectlSkip }, () => {
    let k: Kubectl;
    let dir: string;

    before(() => {
      k = new Kubectl(sim.kubeconfigPath);
      dir = mkdtempSync(join(tmpdir(), 'wmap-hostile-'));
    });

    after(() => {
      rmSync(dir, { recursive: true, force: true });
    });

    function file(name: string, text: string): string {
      const p = join(dir, name);
      writeFileSync(p, text);
      return p;
    }

    async function kubectlRefused(args: string[], stderr: RegExp, listKind: string): Promise<void> {
      const rv = sim.store.resourceVersion();
      const r = await k.run(args);
      assert.notEqual(r.code, 0, r.stdout);
      assert.match(r.stderr, stderr);
      assert.equal(sim.store.resourceVersion(), rv);
      // kubectl still gets the kind.
      await k.ok(['get', listKind, '-n', NS]);
    }

    it('apply of negative replicas: "The Deployment is invalid"', async () => {
      const f = file('neg.yaml', `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: k-neg\n  namespace: ${NS}\nspec:\n  replicas: -1\n  selector:\n    matchLabels: {app: k}\n  template:\n    metadata:\n      labels: {app: k}\n    spec:\n      containers: [{name: c, image: busybox}]\n`);
      await kubectlRefused(['apply', '-f', f], /The Deployment "k-neg" is invalid: spec\.replicas: Invalid value: -1: must be greater than or equal to 0/, 'deployments');
    });

    it('create of replicas 1e15: the decoder\'s BadRequest (kubectl sends it as an integer)', async () => {
      const f = file('huge.yaml', `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: k-huge\n  namespace: ${NS}\nspec:\n  replicas: 1e15\n  selector:\n    matchLabels: {app: k}\n  template:\n    metadata:\n      labels: {app: k}\n    spec:\n      containers: [{name: c, image: busybox}]\n`);
      await kubectlRefused(['create', '-f', f], /Error from server \(BadRequest\): error when creating ".*huge\.yaml": Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 1000000000000000 into Go struct field DeploymentSpec\.spec\.replicas of type int32/, 'deployments');
    });

    it('patch a ConfigMap with a label value too long (kubectl label checks it itself; patch does not)', async () => {
      await raw(sim, 'POST', CMS, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'k-cm2' } } });
      await kubectlRefused(['patch', 'configmap', 'k-cm2', '-n', NS, '--type', 'merge', '-p', JSON.stringify({ metadata: { labels: { app: 'v'.repeat(64) } } })], /The ConfigMap "k-cm2" is invalid: metadata\.labels: Invalid value: "v{64}": must be no more than 63 characters/, 'configmaps');
    });

    it('server-side apply of a JobSet violating its schema', async () => {
      const f = file('js.yaml', `apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: k-js\n  namespace: ${NS}\nspec:\n  replicatedJobs:\n  - name: w\n    replicas: -3\n    template: {spec: {}}\n`);
      await kubectlRefused(['apply', '--server-side', '-f', f], /The JobSet "k-js" is invalid: spec\.replicatedJobs\[0\]\.replicas: Invalid value: -3: spec\.replicatedJobs\[0\]\.replicas in body should be greater than or equal to 0/, 'jobsets');
    });

    it('apply with an unknown field: kubectl\'s strict validation gets the real error', async () => {
      const f = file('w.yaml', `apiVersion: hostile.example.com/v1\nkind: Widget\nmetadata:\n  name: k-w\n  namespace: ${NS}\nspec:\n  size: 1\n  bogus: 1\n`);
      await kubectlRefused(['apply', '-f', f], /Error from server \(BadRequest\): error when creating ".*w\.yaml": Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec\.bogus"/, 'widgets');
    });

    it('still lists every kind it was fed garbage for', async () => {
      for (const kind of ['configmaps', 'pods', 'deployments', 'jobs', 'services', 'jobsets', 'leaderworkersets']) {
        const out = await k.ok(['get', kind, '-n', NS, '-o', 'name']);
        assert.ok(typeof out === 'string');
      }
      // The table carries only metadata, so even the 10000-deep widget lists.
      const out = await k.ok(['get', 'widgets', '-n', NS]);
      assert.match(out, /w-5000/);
      assert.match(out, /w-10000/);
      assert.match(await k.ok(['get', 'widget', 'w-5000', '-n', NS, '-o', 'json']), /"name": "w-5000"/);
    });

    it('a list holding a 10000-deep object is two levels deeper: kubectl\'s own decoder refuses it, as with a real server', async () => {
      const r = await k.run(['get', 'widgets', '-n', NS, '-o', 'name']);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /invalid character '\{' exceeded max depth/);
    });
  });
});

describe('hostile input that passes validation: the issue\'s suspended JobSet with replicas 1e15', () => {
  let sim: SimHandle;

  before(async () => {
    sim = await startSim({ controllers: true });
  });

  after(async () => {
    await sim?.stop();
  });

  it('is stored, and the JobSet controller creates at most 10000 Jobs and says so, instead of running out of memory', async () => {
    const rss0 = process.memoryUsage().rss;
    const r = await raw(sim, 'POST', '/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets', {
      body: '{"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":"issue11"},"spec":{"suspend":true,"replicatedJobs":[{"name":"w","replicas":1e15,"template":{"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}}]}}',
    });
    assert.equal(r.status, 201, r.body);
    const deadline = Date.now() + 60_000;
    let event: { reason?: string; type?: string; message?: string } | undefined;
    while (Date.now() < deadline) {
      const events = JSON.parse((await raw(sim, 'GET', '/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dissue11')).body) as { items: Array<{ reason?: string; type?: string; message?: string }> };
      event = events.items.find((e) => e.reason === 'JobCreationFailed');
      if (event) break;
      await new Promise((res) => setTimeout(res, 200));
    }
    assert.ok(event, 'a JobCreationFailed event');
    assert.equal(event.type, 'Warning');
    assert.match(event.message ?? '', /already has 10000 of them/);
    const jobs = JSON.parse((await raw(sim, 'GET', '/apis/batch/v1/namespaces/default/jobs?limit=1')).body) as { metadata: { remainingItemCount?: number }; items: unknown[] };
    assert.equal(jobs.items.length + (jobs.metadata.remainingItemCount ?? 0), 10_000);
    // Bounded: a few hundred MB at most for 10000 Jobs, where the unbounded controller grew ~70 MB/s until it died.
    assert.ok(process.memoryUsage().rss - rss0 < 1024 * 1024 * 1024);
    // The server still answers: the JobSet reads back, suspended.
    const js = JSON.parse((await raw(sim, 'GET', '/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/issue11')).body) as { spec: { suspend: boolean } };
    assert.equal(js.spec.suspend, true);
  });
});
