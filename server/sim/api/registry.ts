/**
 * Resource descriptors: everything the API layer needs to know about a kind (names, scope, versions,
 * subresources, printer columns, field selectors, patch and update rules). Built-ins are static;
 * CustomResourceDefinitions add and remove descriptors at run time.
 */

import type { KubeObject } from '../store/object-store.ts';

export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

export interface ScaleSpec {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface ResourceDescriptor {
  group: string;
  /** Served versions, the preferred (storage) one first. */
  versions: string[];
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  /** Subresources served: `status`, `scale`, `log` (the simulated kubelet's container logs), `proxy` … */
  subresources: string[];
  /** Built-in kinds accept strategic-merge patches and have hand-written table printers. */
  builtin: boolean;
  /** PUT without resourceVersion: allowed for most built-ins, 422 for CRs. */
  allowUnconditionalUpdate: boolean;
  generation: boolean;
  /** CR printer columns per version (additionalPrinterColumns). */
  columns?: Record<string, PrinterColumn[]>;
  /** Field selectors beyond metadata.name/metadata.namespace: field → value extractor. */
  fields?: Record<string, (obj: KubeObject) => string>;
  /** CR `selectableFields` JSONPaths, per version. */
  selectableFields?: Record<string, string[]>;
  scale?: ScaleSpec;
  /** Name of the CRD that defines this resource. */
  crd?: string;
  /**
   * A second API over another kind's storage (events.k8s.io Events are the core Events): lookups, lists and
   * watches read `group/kind`'s objects and `present` shows each one in this API's shape.
   */
  view?: { group: string; kind: string; present: (stored: KubeObject) => KubeObject };
  /** Verbs served, when not all of them (a view is read-only). */
  verbs?: string[];
  /** A create-only review (TokenReview, SubjectAccessReview, …): answered from the request, never stored. */
  review?: boolean;
}

export function gvKey(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

export class Registry {
  private readonly byResource = new Map<string, ResourceDescriptor>();
  private readonly byKind = new Map<string, ResourceDescriptor>();
  private readonly listeners = new Set<() => void>();
  /** Bumped on every change, so discovery and OpenAPI hashes change with content. */
  generation = 1;

  add(d: ResourceDescriptor): void {
    const old = this.byKind.get(`${d.group}/${d.kind}`);
    if (old) this.removeDescriptor(old);
    for (const v of d.versions) this.byResource.set(`${d.group}/${v}/${d.plural}`, d);
    this.byKind.set(`${d.group}/${d.kind}`, d);
    this.changed();
  }

  /** Removes the resources a CRD defined. */
  removeCrd(crdName: string): void {
    for (const d of [...this.byKind.values()]) if (d.crd === crdName) this.removeDescriptor(d);
    this.changed();
  }

  private removeDescriptor(d: ResourceDescriptor): void {
    for (const [k, v] of this.byResource) if (v === d) this.byResource.delete(k);
    this.byKind.delete(`${d.group}/${d.kind}`);
  }

  private changed(): void {
    this.generation++;
    for (const l of this.listeners) l();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  resolve(group: string, version: string, plural: string): ResourceDescriptor | undefined {
    return this.byResource.get(`${group}/${version}/${plural}`);
  }

  byGroupKind(group: string, kind: string): ResourceDescriptor | undefined {
    return this.byKind.get(`${group}/${kind}`);
  }

  all(): ResourceDescriptor[] {
    return [...this.byKind.values()];
  }

  /** API groups with their served versions (preferred first), core group excluded, in a stable order. */
  groups(): Array<{ name: string; versions: string[] }> {
    const groups = new Map<string, string[]>();
    for (const d of this.byKind.values()) {
      if (!d.group) continue;
      const vs = groups.get(d.group) ?? [];
      for (const v of d.versions) if (!vs.includes(v)) vs.push(v);
      groups.set(d.group, vs);
    }
    const order = (g: string) => (g.includes('.') && !g.endsWith('.k8s.io') ? 1 : 0);
    return [...groups.entries()]
      .map(([name, versions]) => ({ name, versions: sortVersions(versions) }))
      .sort((a, b) => order(a.name) - order(b.name) || a.name.localeCompare(b.name));
  }

  /** Resources served in one group-version, by plural. */
  resourcesIn(group: string, version: string): ResourceDescriptor[] {
    return this.all()
      .filter((d) => d.group === group && d.versions.includes(version))
      .sort((a, b) => a.plural.localeCompare(b.plural));
  }
}

/** Kubernetes version priority: GA > beta > alpha, higher numbers first. */
export function sortVersions(versions: string[]): string[] {
  const rank = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [0, 0, 0];
    const level = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
    return [level, Number(m[1]), Number(m[3] ?? 0)];
  };
  return [...versions].sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    return rb[0] - ra[0] || rb[1] - ra[1] || rb[2] - ra[2];
  });
}
