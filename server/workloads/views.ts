/** Read models for the API: row pages, workload details, definition listings. Pure over the index. */
import { workloadUsageOf } from './usage-join.ts';
import { stringify } from 'yaml';
import type { DefinitionDetail, DefinitionItem, OwnedObject, TreePod, ValidateResult, WorkloadDetail, WorkloadPage } from '../../contract/index.ts';
import { compileDefinition, isPod, loadDefinitionsFromText, ownerRefsOf, sumAmounts, type KubeObject } from '../engine/index.ts';
import type { DefinitionEntry } from './definitions.ts';
import { runQuery, type RowQuery } from '../../lib/rows/index.ts';
import type { WorkloadRow } from './row.ts';
import { ALL_ROWS, type RowScope } from './row-access.ts';
import type { WorkloadIndex } from './workload-index.ts';

/** One page of the rows a query selects, with the totals of all of them (not just the page). */
export function pageOfRows(index: WorkloadIndex, query: RowQuery, limit: number, offset: number, now: number, scope: RowScope = ALL_ROWS): WorkloadPage {
  const all = index.allRows();
  const r = runQuery(scope === ALL_ROWS ? all : all.filter((row) => scope.test(row)), query, now);
  return { total: r.rows.length, rows: r.rows.slice(offset, offset + limit), totals: r.totals };
}


/**
 * The row a page or API path names: `Kind.group` exactly (the row id), or a bare kind (any case)
 * when exactly one row of that name has a kind of that name — an old link, or one typed by hand.
 */
export function findRow(index: WorkloadIndex, cluster: string, namespace: string, kind: string, name: string): WorkloadRow | null {
  const ns = namespace === '_' ? '' : namespace;
  const exact = index.row(`${cluster}/${ns || '_'}/${kind}/${name}`);
  if (exact) return exact;
  if (kind.includes('.')) return null;
  const k = kind.toLowerCase();
  const found = index.allRows().filter((r) => r.cluster === cluster && r.namespace === ns && r.name === name && r.kind.toLowerCase() === k);
  return found.length === 1 ? found[0] : null;
}

export function workloadDetail(index: WorkloadIndex, cluster: string, namespace: string, kind: string, name: string): WorkloadDetail | null {
  const row = findRow(index, cluster, namespace, kind, name);
  const at = row ? index.rootOfRow(row.id) : undefined;
  if (!row || !at) return null;
  const r = index.resolve(at.cluster, at.uid);
  if (!r) return null;
  const entry = index.definitions.all().find((d) => d.name === r.tree.definition.name && d.source === r.tree.definition.source && (d.cluster === null || d.cluster === cluster));
  const { owned, truncated } = ownedObjects(r.object, r.owned, [...r.tree.pods, ...r.tree.unmatchedPods]);
  const usage = workloadUsageOf(r.tree, index.holdersOf(row.id), index.usage(at.cluster).snapshot);
  return { row, tree: r.tree, object: r.object, definition: { name: r.tree.definition.name, source: r.tree.definition.source, yaml: entry ? stringify(entry.document) : '' }, owned, ownedTruncated: truncated, usage };
}

/** Objects listed on a workload's page at most (a 10,000-pod workload stays a readable page). */
export const OWNED_LIMIT = 2000;

/** The root and what it owns as a flat tree (owner uids), pods with their GPUs from the tree. */
function ownedObjects(root: KubeObject, owned: readonly KubeObject[], pods: readonly TreePod[]): { owned: OwnedObject[]; truncated: number } {
  const podByUid = new Map(pods.map((p) => [p.uid, p]));
  const all = [root, ...owned];
  const uids = new Set(all.map((o) => String(o.metadata?.uid ?? '')));
  const out: OwnedObject[] = [];
  for (const o of all.slice(0, OWNED_LIMIT)) {
    const uid = String(o.metadata?.uid ?? '');
    const refs = ownerRefsOf(o);
    const ownerRef = o === root ? undefined : (refs.find((x) => x.controller === true && uids.has(String(x.uid))) ?? refs.find((x) => uids.has(String(x.uid))));
    const p = isPod(o) ? podByUid.get(uid) : undefined;
    out.push({
      uid,
      owner: ownerRef ? String(ownerRef.uid) : null,
      apiVersion: String(o.apiVersion ?? ''),
      kind: String(o.kind ?? ''),
      namespace: String(o.metadata?.namespace ?? ''),
      name: String(o.metadata?.name ?? ''),
      pod: isPod(o) ? { phase: p?.phase ?? 'Unknown', node: p?.node ?? null, gpus: p ? sumAmounts(p.gpus) : 0, allocated: p?.allocated ?? false } : null,
    });
  }
  return { owned: out, truncated: Math.max(0, all.length - OWNED_LIMIT) };
}

/** Which definition served a row: cluster definitions count per cluster, catalog ones across clusters. */
function servedKey(source: string, name: string, cluster: string | null): string {
  return `${source}\u0000${name}\u0000${source === 'cluster' ? (cluster ?? '') : ''}`;
}

function workloadCounts(index: WorkloadIndex): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of index.allRows()) {
    const key = servedKey(r.definition.source, r.definition.name, r.cluster);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

type EntryLike = Pick<DefinitionEntry, 'name' | 'source' | 'cluster' | 'loaded' | 'errors'> & { compiled?: DefinitionEntry['compiled'] };

function itemOf(e: EntryLike, counts: Map<string, number>, index?: WorkloadIndex): DefinitionItem {
  const sd = e.loaded.definition?.spec.structureDefinition;
  const k = sd?.rootComponent.kind ?? {};
  const comps = sd ? [sd.rootComponent, ...(sd.childComponents ?? [])] : [];
  // Where the definition applies: its own cluster, or (a catalog entry) every connected cluster.
  const clusters = !index ? [] : e.cluster !== null ? [e.cluster] : index.clusterNames();
  const shadowedBy: DefinitionItem['shadowedBy'] = [];
  const quarantined: DefinitionItem['quarantined'] = [];
  let failing = 0;
  let example: DefinitionItem['failing']['example'] = null;
  for (const c of clusters) {
    if (e.compiled) {
      const by = index!.definitions.shadowedBy(c, e.compiled);
      if (by) shadowedBy.push({ cluster: c, name: by.name, source: by.source });
    }
    const h = index!.health.status(c, e);
    failing += h.failing;
    example ??= h.example;
    if (h.quarantined) quarantined.push({ cluster: c, ...h.quarantined });
  }
  const status: DefinitionItem['status'] =
    e.errors.length > 0 ? 'invalid' : quarantined.length > 0 ? 'quarantined' : failing > 0 ? 'failing' : shadowedBy.length > 0 && shadowedBy.length === clusters.length ? 'shadowed' : 'valid';
  return {
    name: e.name,
    source: e.source,
    cluster: e.cluster,
    kind: k.kind ?? '',
    apiVersion: k.group ? `${k.group}/${k.version ?? ''}` : (k.version ?? ''),
    valid: status === 'valid' || status === 'shadowed',
    errors: e.errors,
    workloads: counts.get(servedKey(e.source, e.name, e.cluster)) ?? 0,
    components: comps.map((c) => {
      const s = c.specDefinition;
      return { name: c.name, parent: c.ownerRef ?? null, kind: c.kind?.kind ?? '', hasPodDefinition: !!(s && (s.podTemplateSpecPath || s.podSpecPath || s.fragmentedPodSpecDefinition)) };
    }),
    status,
    shadowedBy,
    failing: { workloads: failing, example },
    quarantined,
  };
}

export function definitionItems(index: WorkloadIndex): DefinitionItem[] {
  const counts = workloadCounts(index);
  return index.definitions.all().map((e) => itemOf(e, counts, index));
}

export function definitionDetail(index: WorkloadIndex, name: string, source?: string, cluster?: string): DefinitionDetail | null {
  const e = index.definitions.all().find((d) => d.name === name && (!source || d.source === source) && (!cluster || d.cluster === cluster));
  if (!e) return null;
  return { ...itemOf(e, workloadCounts(index), index), yaml: stringify(e.document ?? {}) };
}

/** Validates definition text without storing it. */
export function validateDefinitionText(text: string): ValidateResult {
  const { definitions, errors } = loadDefinitionsFromText(text, 'request body', 'file');
  const items = definitions.map((d) => {
    const errs = d.errors.length > 0 ? d.errors : compileDefinition(d).errors;
    return itemOf({ name: d.name, source: 'catalog', cluster: null, loaded: d, errors: errs }, new Map());
  });
  const valid = errors.length === 0 && items.length > 0 && items.every((i) => i.valid);
  return { valid, definitions: items, errors };
}
