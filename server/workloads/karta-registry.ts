/**
 * What each cluster has in the way of definitions: whether the `kartas.run.ai` CRD is installed and
 * whether its schema is the one we ship, the registered Karta and ResourceInterface objects, which
 * definition serves each root kind (a cluster's own over the catalog's: which catalog definition a
 * cluster definition overrides), and Kartas whose `run.ai/karta-*` labels do not match their root
 * kind. The listing is pure (`describeClusterDefinitions`, over a DefinitionSet — the live index's,
 * or one built from a one-shot read); `readClusterDefinitions` is the small reader for one cluster.
 *
 * The public surface of the registry: registering (karta-registry-write.ts), the CRD
 * (karta-registry-crd.ts) and the labels (karta-registry-labels.ts) are re-exported from here.
 */
import type { KubeObject } from '../engine/index.ts';
import { DefinitionSet, entryFromClusterObject, type DefinitionEntry } from './definitions.ts';
import { messageOf, readKartaCrd, statusOf, type KartaCrdReport, type KartaReader } from './karta-registry-crd.ts';
import { checkKartaLabels, rootKindOf, type LabelCheck, type RootKind } from './karta-registry-labels.ts';

export {
  KARTA_CRD_NAME, KARTA_CRD_PATH, KARTA_GROUP, KARTA_VERSION, RESOURCE_INTERFACE_CRD_NAME,
  crdSchema, kartaCrdFile, kartaCrdReport, normalizeSchema, readKartaCrd, servedKartaVersions, shippedKartaCrd, unknownFields, unreadableCrdReport, withSchemaDefaults,
  type KartaCrdReport, type KartaCrdState, type KartaReader, type SchemaNode,
} from './karta-registry-crd.ts';
export { KARTA_LABELS, checkKartaLabels, expectedKartaLabels, rootKindOf, type LabelCheck, type LabelFinding, type RootKind } from './karta-registry-labels.ts';
export {
  KARTAS_PATH, kartaName, kartaPath, mayInstallCrd, planCrdInstall, planRegistration, prepareCrd, registerDefinition, registerWith, runCrdInstall, runRegistration, selfAccess, waitForKartaApi, yamlDiff,
  type Actor, type CrdContext, type CrdInstallPlan, type CrdStep, type KartaClient, type RegisterAnswer, type RegisterOptions, type RegistrationOutcome, type RegistrationPlan,
} from './karta-registry-write.ts';

const RESOURCE_INTERFACES_PATH = '/apis/optimization.nvidia.com/v1alpha1/resourceinterfaces';
const KARTA_LIST_PATH = '/apis/run.ai/v1alpha1/kartas';

/** One read of a cluster's definitions. */
export interface ClusterDefinitionsRead {
  cluster: string;
  crd: KartaCrdReport;
  /** Whether optimization.nvidia.com/v1alpha1 ResourceInterface (the older kind) is served. */
  resourceInterfaceServed: boolean;
  /** Karta objects; null when they could not be listed (the reason is in `problems`). */
  kartas: KubeObject[] | null;
  resourceInterfaces: KubeObject[] | null;
  /** What could not be read, for people. */
  problems: string[];
}

async function listItems(reader: KartaReader, path: string, apiVersion: string, kind: string): Promise<{ items: KubeObject[] | null; served: boolean; problem: string | null }> {
  try {
    const list = await reader.getJson<{ items?: KubeObject[] }>(path);
    // Items of a list may leave out their apiVersion and kind.
    return { items: (list.items ?? []).map((o) => ({ ...o, apiVersion: o.apiVersion ?? apiVersion, kind: o.kind ?? kind })), served: true, problem: null };
  } catch (e) {
    if (statusOf(e) === 404) return { items: [], served: false, problem: null };
    return { items: null, served: true, problem: `cannot list ${kind} objects: ${messageOf(e)}` };
  }
}

/** Reads what one cluster has: its Karta CRD, its Karta and ResourceInterface objects. */
export async function readClusterDefinitions(cluster: string, reader: KartaReader): Promise<ClusterDefinitionsRead> {
  const problems: string[] = [];
  let crd: KartaCrdReport;
  try {
    crd = (await readKartaCrd(reader)).report;
  } catch (e) {
    crd = { state: 'unknown', servedVersions: [], storageVersion: null, established: null, resourceVersion: null, missingFields: [], extraFields: [], differences: [], summary: `the kartas.run.ai CRD could not be read: ${messageOf(e)}` };
    problems.push(crd.summary);
  }
  const kartas = crd.state === 'missing' ? { items: [], served: false, problem: null } : await listItems(reader, KARTA_LIST_PATH, 'run.ai/v1alpha1', 'Karta');
  const ris = await listItems(reader, RESOURCE_INTERFACES_PATH, 'optimization.nvidia.com/v1alpha1', 'ResourceInterface');
  for (const p of [kartas.problem, ris.problem]) if (p) problems.push(p);
  return { cluster, crd, resourceInterfaceServed: ris.served, kartas: kartas.items, resourceInterfaces: ris.items, problems };
}

export interface DefinitionListing {
  name: string;
  source: 'catalog' | 'cluster';
  /** Karta or ResourceInterface. */
  kind: string;
  /** The root component's kind; null when the definition names none. */
  root: RootKind | null;
  /** `serves`: used for its root kind and version here; `shadowed`: another one is; `invalid`: it has errors and is used for nothing. */
  state: 'serves' | 'shadowed' | 'invalid';
  shadowedBy: { name: string; source: string } | null;
  /** Catalog definitions this cluster definition overrides (same root kind and version). */
  overrides: string[];
  errors: string[];
  /** The run.ai/karta-* labels (a cluster's Kartas only). */
  labels: LabelCheck | null;
  components: number;
  /** Of a cluster definition. */
  createdAt: string | null;
}

export interface ClusterRegistry {
  cluster: string;
  crd: KartaCrdReport;
  resourceInterfaceServed: boolean;
  /** The cluster's own definitions (oldest first), then the catalog's. */
  definitions: DefinitionListing[];
  /** For each root kind and version (`JobSet.jobset.x-k8s.io`, `v1alpha2`): the definition that wins. */
  winners: Array<{ root: string; version: string; name: string; source: string }>;
  /** The cluster's Kartas whose labels are missing or disagree with their root kind. */
  labelMismatches: Array<{ name: string; check: LabelCheck }>;
  problems: string[];
}

/** `JobSet.jobset.x-k8s.io` (kubectl's resource.group form); the core group adds nothing. */
export function rootText(root: RootKind | null): string {
  return root ? `${root.kind}${root.group ? `.${root.group}` : ''}` : '(no root kind)';
}

function listing(cluster: string, set: DefinitionSet, e: DefinitionEntry, catalog: DefinitionEntry[]): DefinitionListing {
  const doc = e.document as KubeObject | null;
  const root = rootKindOf(doc);
  const kind = e.source === 'catalog' ? 'Karta' : String(doc?.kind ?? 'Karta');
  const shadow = e.compiled ? set.shadowedBy(cluster, e.compiled) : null;
  const overrides = e.source === 'cluster' && e.compiled && !shadow
    ? catalog.filter((c) => c.compiled && set.shadowedBy(cluster, c.compiled) === e.compiled).map((c) => c.name)
    : [];
  const created = typeof doc?.metadata?.creationTimestamp === 'string' ? doc.metadata.creationTimestamp : e.createdAt ? new Date(e.createdAt).toISOString() : null;
  return {
    name: e.name,
    source: e.source,
    kind,
    root,
    state: !e.compiled ? 'invalid' : shadow ? 'shadowed' : 'serves',
    shadowedBy: shadow ? { name: shadow.name, source: shadow.source } : null,
    overrides,
    errors: e.errors.map((x) => x.message),
    labels: e.source === 'cluster' && kind === 'Karta' ? checkKartaLabels(doc) : null,
    components: e.compiled?.components.length ?? 0,
    createdAt: e.source === 'cluster' ? created : null,
  };
}

/**
 * The listing of one cluster's definitions from a DefinitionSet that holds them (the live index's
 * `definitions`, or one built by `clusterRegistry`). Pure.
 */
export function describeClusterDefinitions(input: { cluster: string; crd: KartaCrdReport; resourceInterfaceServed?: boolean; definitions: DefinitionSet; problems?: string[] }): ClusterRegistry {
  const { cluster, definitions: set } = input;
  const catalog = set.all().filter((e) => e.source === 'catalog');
  const own = set.clusterEntries(cluster);
  const definitions = [...own, ...catalog].map((e) => listing(cluster, set, e, catalog));
  const winners: ClusterRegistry['winners'] = [];
  for (const [gk, list] of [...set.effective(cluster)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const seen = new Set<string>();
    for (const d of list) {
      if (seen.has(d.rootKind.version)) continue;
      seen.add(d.rootKind.version);
      const [group, kind] = [gk.slice(0, gk.lastIndexOf('/')), gk.slice(gk.lastIndexOf('/') + 1)];
      winners.push({ root: rootText({ group, kind, version: d.rootKind.version }), version: d.rootKind.version, name: d.name, source: d.source });
    }
  }
  const labelMismatches = definitions.filter((d) => d.labels && d.labels.state !== 'ok').map((d) => ({ name: d.name, check: d.labels! }));
  return { cluster, crd: input.crd, resourceInterfaceServed: input.resourceInterfaceServed ?? false, definitions, winners, labelMismatches, problems: input.problems ?? [] };
}

/** The listing of a one-shot read, against the catalog. Pure. */
export function clusterRegistry(read: ClusterDefinitionsRead, catalog: DefinitionEntry[]): ClusterRegistry {
  const set = new DefinitionSet(catalog);
  for (const o of [...(read.kartas ?? []), ...(read.resourceInterfaces ?? [])]) {
    set.setClusterDefinition(read.cluster, String(o.metadata?.uid ?? `${String(o.kind)}/${String(o.metadata?.name)}`), entryFromClusterObject(read.cluster, o));
  }
  return describeClusterDefinitions({ cluster: read.cluster, crd: read.crd, resourceInterfaceServed: read.resourceInterfaceServed, definitions: set, problems: read.problems });
}

