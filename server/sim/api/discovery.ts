/**
 * Discovery and OpenAPI documents (pure): legacy `/api` `/apis` `/apis/g/v`, aggregated
 * `apidiscovery.k8s.io/v2`, and the minimal OpenAPI v3 that lets `kubectl apply -f` validate
 * server-side (a PATCH operation per kind with a `fieldValidation` query parameter).
 */

import { createHash } from 'node:crypto';
import type { Registry, ResourceDescriptor } from './registry.ts';
import { gvKey } from './registry.ts';

export const AGGREGATED_CONTENT_TYPE = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

export const VERSION_INFO = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.4',
  gitCommit: '59526cd4867447956156ae3a602fcbac10a2c335',
  gitTreeState: 'clean',
  buildDate: '2025-04-22T16:03:51Z',
  goVersion: 'go1.23.6',
  compiler: 'gc',
  platform: 'linux/amd64',
};

function verbs(d: ResourceDescriptor): string[] {
  return d.verbs ?? ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
}

function subVerbs(sub: string): string[] {
  if (sub === 'log') return ['get'];
  if (sub === 'token') return ['create'];
  if (sub === 'finalize') return ['update'];
  if (sub === 'proxy') return ['create', 'delete', 'get', 'patch', 'update'];
  return ['get', 'patch', 'update'];
}

function subKind(d: ResourceDescriptor, sub: string): { group: string; version: string; kind: string } {
  if (sub === 'scale') return { group: 'autoscaling', version: 'v1', kind: 'Scale' };
  if (sub === 'log') return { group: '', version: 'v1', kind: 'Pod' };
  if (sub === 'proxy') return { group: '', version: 'v1', kind: `${d.kind}ProxyOptions` };
  if (sub === 'token') return { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' };
  return { group: d.group, version: d.versions[0], kind: d.kind };
}

export function legacyCoreVersions(serverAddress: string): unknown {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function groupEntry(g: { name: string; versions: string[] }) {
  return {
    name: g.name,
    versions: g.versions.map((v) => ({ groupVersion: `${g.name}/${v}`, version: v })),
    preferredVersion: { groupVersion: `${g.name}/${g.versions[0]}`, version: g.versions[0] },
  };
}

export function legacyGroupList(reg: Registry): unknown {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: reg.groups().map(groupEntry) };
}

/** `/apis/{group}`, or undefined when no such group is served. */
export function apiGroup(reg: Registry, name: string): unknown | undefined {
  const g = reg.groups().find((x) => x.name === name);
  return g ? { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(g) } : undefined;
}

export function resourceList(reg: Registry, group: string, version: string): unknown | undefined {
  const ds = reg.resourcesIn(group, version);
  if (ds.length === 0) return undefined;
  const resources: unknown[] = [];
  for (const d of ds) {
    const r: Record<string, unknown> = { name: d.plural, singularName: d.singular, namespaced: d.namespaced, kind: d.kind, verbs: verbs(d) };
    if (d.shortNames.length) r.shortNames = d.shortNames;
    if (d.categories.length) r.categories = d.categories;
    resources.push(r);
    for (const sub of d.subresources) {
      const k = subKind(d, sub);
      const entry: Record<string, unknown> = { name: `${d.plural}/${sub}`, singularName: '', namespaced: d.namespaced, kind: k.kind, verbs: subVerbs(sub) };
      if (sub === 'scale' || sub === 'token') {
        entry.group = k.group;
        entry.version = k.version;
      }
      resources.push(entry);
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gvKey(group, version), resources };
}

function aggregatedResource(d: ResourceDescriptor, version: string): unknown {
  const r: Record<string, unknown> = {
    resource: d.plural,
    responseKind: { group: d.group, version, kind: d.kind },
    scope: d.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: d.singular,
    verbs: verbs(d),
  };
  if (d.shortNames.length) r.shortNames = d.shortNames;
  if (d.categories.length) r.categories = d.categories;
  if (d.subresources.length) {
    r.subresources = d.subresources.map((sub) => {
      const k = subKind(d, sub);
      return { subresource: sub, responseKind: sub === 'scale' || sub === 'log' || sub === 'proxy' || sub === 'token' ? k : { group: d.group, version, kind: d.kind }, verbs: subVerbs(sub) };
    });
  }
  return r;
}

/** `/api` (core) or `/apis` (groups) in the aggregated format; the first version of a group is preferred. */
export function aggregatedDiscovery(reg: Registry, core: boolean): unknown {
  const items: unknown[] = [];
  if (core) {
    const ds = reg.resourcesIn('', 'v1');
    items.push({ metadata: { creationTimestamp: null }, versions: [{ version: 'v1', resources: ds.map((d) => aggregatedResource(d, 'v1')), freshness: 'Current' }] });
  } else {
    for (const g of reg.groups()) {
      items.push({
        metadata: { name: g.name, creationTimestamp: null },
        versions: g.versions.map((v) => ({ version: v, resources: reg.resourcesIn(g.name, v).map((d) => aggregatedResource(d, v)), freshness: 'Current' })),
      });
    }
  }
  return { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items };
}

function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

/** Every served group-version, core first. */
export function servedGroupVersions(reg: Registry): Array<{ group: string; version: string }> {
  const out: Array<{ group: string; version: string }> = [{ group: '', version: 'v1' }];
  for (const g of reg.groups()) for (const v of g.versions) out.push({ group: g.name, version: v });
  return out;
}

export function openApiGroupVersionDoc(reg: Registry, group: string, version: string): unknown | undefined {
  const ds = reg.resourcesIn(group, version);
  if (ds.length === 0) return undefined;
  const paths: Record<string, unknown> = {};
  const prefix = group ? `/apis/${group}/${version}` : `/api/${version}`;
  const param = { name: 'fieldValidation', in: 'query', description: 'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields.', schema: { type: 'string', uniqueItems: true } };
  for (const d of ds) {
    const p = d.namespaced ? `${prefix}/namespaces/{namespace}/${d.plural}/{name}` : `${prefix}/${d.plural}/{name}`;
    const gvk = { group: d.group, version, kind: d.kind };
    const op = (verb: string) => ({
      operationId: `${verb}${d.kind}`,
      'x-kubernetes-action': verb,
      'x-kubernetes-group-version-kind': gvk,
      parameters: [param],
      responses: { '200': { description: 'OK' } },
    });
    paths[p] = { patch: op('patch'), put: op('put') };
    const collection = d.namespaced ? `${prefix}/namespaces/{namespace}/${d.plural}` : `${prefix}/${d.plural}`;
    paths[collection] = { post: op('post') };
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1.32.4' }, paths, components: { schemas: {} } };
}

function hashOf(doc: unknown): string {
  return createHash('sha512').update(JSON.stringify(doc)).digest('hex').slice(0, 128).toUpperCase();
}

/** `/openapi/v3`: an index whose hashes change with the documents (kubectl keeps an HTTP cache). */
export function openApiIndex(reg: Registry): unknown {
  const paths: Record<string, unknown> = {};
  for (const { group, version } of servedGroupVersions(reg)) {
    const doc = openApiGroupVersionDoc(reg, group, version);
    if (!doc) continue;
    const p = gvPath(group, version);
    paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${hashOf(doc)}` };
  }
  return { paths };
}
