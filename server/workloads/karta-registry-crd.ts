/**
 * The `kartas.run.ai` CRD: the one the product ships (deploy/crds/kartas.run.ai.yaml, upstream's
 * run.ai/v1alpha1 schema) and how a cluster's compares with it. Comparison ignores descriptions (ours
 * are our own words; upstream's or a newer chart's must still count as the same CRD) and metadata; it
 * looks at what changes behaviour: scope, names, served versions, printer columns, the status
 * subresource and the schema (fields, types, required, list types, defaults, CEL rules).
 *
 * Also the two things the API server does to a Karta with that schema that a registration must know
 * about before sending it: defaults it fills in, and unknown fields it drops (or refuses, with strict
 * field validation) — a field the cluster's CRD does not know is a field the definition loses.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { KubeObject } from '../engine/index.ts';

export const KARTA_GROUP = 'run.ai';
export const KARTA_VERSION = 'v1alpha1';
export const KARTA_CRD_NAME = 'kartas.run.ai';
export const CRD_API = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
export const KARTA_CRD_PATH = `${CRD_API}/${KARTA_CRD_NAME}`;
export const RESOURCE_INTERFACE_CRD_NAME = 'resourceinterfaces.optimization.nvidia.com';

/** An OpenAPI v3 schema node as CRDs write them. */
export type SchemaNode = Record<string, unknown>;

/** deploy/crds/kartas.run.ai.yaml (WMAP_KARTA_CRD overrides it, for packaging and tests). */
export function kartaCrdFile(): string {
  if (process.env.WMAP_KARTA_CRD) return resolve(process.env.WMAP_KARTA_CRD);
  const fromModule = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'deploy', 'crds', 'kartas.run.ai.yaml');
  return existsSync(fromModule) ? fromModule : resolve(process.cwd(), 'deploy', 'crds', 'kartas.run.ai.yaml');
}

let shipped: { file: string; crd: KubeObject } | null = null;

/** The CRD the product ships, as an object (a fresh copy: callers may change it). */
export function shippedKartaCrd(): KubeObject {
  const file = kartaCrdFile();
  if (!shipped || shipped.file !== file) shipped = { file, crd: parse(readFileSync(file, 'utf8')) as KubeObject };
  return structuredClone(shipped.crd);
}

interface CrdVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  schema?: { openAPIV3Schema?: SchemaNode };
  additionalPrinterColumns?: Array<Record<string, unknown>>;
  subresources?: { status?: unknown; scale?: unknown };
}

interface CrdSpec {
  group?: string;
  scope?: string;
  names?: { kind?: string; plural?: string; singular?: string; listKind?: string; shortNames?: string[] };
  versions?: CrdVersion[];
}

function specOf(crd: KubeObject): CrdSpec {
  return (crd.spec && typeof crd.spec === 'object' ? crd.spec : {}) as CrdSpec;
}

function versionOf(crd: KubeObject, version: string): CrdVersion | undefined {
  return (specOf(crd).versions ?? []).find((v) => v.name === version);
}

/** The openAPIV3Schema a CRD has for a version (undefined when it does not have that version). */
export function crdSchema(crd: KubeObject, version = KARTA_VERSION): SchemaNode | undefined {
  return versionOf(crd, version)?.schema?.openAPIV3Schema;
}

/** What a cluster's Karta CRD is, compared with ours. `unknown`: the user may not read CRDs. */
export type KartaCrdState = 'missing' | 'older' | 'different' | 'current' | 'unknown';

export interface KartaCrdReport {
  state: KartaCrdState;
  /** Versions the cluster serves (from the CRD, or from discovery when the CRD cannot be read). */
  servedVersions: string[];
  storageVersion: string | null;
  /** The Established condition; null when not known. */
  established: boolean | null;
  /** Of the CRD object, for an upgrade's precondition; null when missing or unreadable. */
  resourceVersion: string | null;
  /** Schema fields ours has and the cluster's lacks (`spec.…podSelector.componentTypeSelector.matchLabels`). */
  missingFields: string[];
  /** Schema fields the cluster's has and ours lacks. */
  extraFields: string[];
  /** Everything else that differs, one line each (scope, columns, a field's type or constraints). */
  differences: string[];
  /** One line for people. */
  summary: string;
}

/** A schema without descriptions, `required` sorted: what two CRDs must agree on. */
export function normalizeSchema(node: unknown): unknown {
  if (!node || typeof node !== 'object' || Array.isArray(node)) return node;
  const out: SchemaNode = {};
  for (const [k, v] of Object.entries(node as SchemaNode).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (k === 'description') continue;
    if (k === 'properties' && v && typeof v === 'object') out[k] = Object.fromEntries(Object.entries(v as SchemaNode).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([p, s]) => [p, normalizeSchema(s)]));
    else if ((k === 'items' || k === 'additionalProperties') && v && typeof v === 'object') out[k] = normalizeSchema(v);
    else if (k === 'required' && Array.isArray(v)) out[k] = [...(v as string[])].sort();
    else out[k] = v;
  }
  return out;
}

/** Every field path of a schema (`a.b`, list items as `a[]`, map values as `a{}`), with the node's own constraints. */
function schemaFields(node: SchemaNode, path: string, out: Map<string, string>): Map<string, string> {
  const { properties, items, additionalProperties, ...own } = normalizeSchema(node) as SchemaNode;
  out.set(path, JSON.stringify(own));
  for (const [name, child] of Object.entries((properties ?? {}) as Record<string, SchemaNode>)) schemaFields(child, path ? `${path}.${name}` : name, out);
  if (items && typeof items === 'object') schemaFields(items as SchemaNode, `${path}[]`, out);
  if (additionalProperties && typeof additionalProperties === 'object') schemaFields(additionalProperties as SchemaNode, `${path}{}`, out);
  return out;
}

function columnsOf(v: CrdVersion | undefined): string {
  return JSON.stringify((v?.additionalPrinterColumns ?? []).map((c) => [c.name, c.type, c.jsonPath, c.priority ?? 0, c.format ?? ''].join(' ')));
}

function establishedOf(crd: KubeObject): boolean | null {
  const conds = (crd.status as { conditions?: Array<{ type?: string; status?: string }> } | undefined)?.conditions;
  if (!Array.isArray(conds)) return null;
  const c = conds.find((x) => x.type === 'Established');
  return c ? c.status === 'True' : null;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * How the cluster's CRD (null: not installed) compares with the one we ship: `current` when they
 * agree on everything but descriptions; `older` when the cluster's knows a strict subset of our
 * fields (an earlier Karta release: the missing fields are listed); `different` otherwise.
 */
export function kartaCrdReport(installed: KubeObject | null, ours: KubeObject = shippedKartaCrd()): KartaCrdReport {
  const empty = { servedVersions: [], storageVersion: null, established: null, resourceVersion: null, missingFields: [], extraFields: [], differences: [] };
  if (!installed) return { ...empty, state: 'missing', summary: `the ${KARTA_CRD_NAME} CRD is not installed` };
  const spec = specOf(installed);
  const mine = specOf(ours);
  const served = (spec.versions ?? []).filter((v) => v.served !== false).map((v) => String(v.name));
  const storage = (spec.versions ?? []).find((v) => v.storage)?.name ?? null;
  const differences: string[] = [];
  if (spec.scope !== mine.scope) differences.push(`scope is ${spec.scope ?? 'unset'}, not ${mine.scope}`);
  for (const key of ['kind', 'plural', 'singular', 'listKind'] as const) {
    if ((spec.names?.[key] ?? '') !== (mine.names?.[key] ?? '')) differences.push(`names.${key} is "${spec.names?.[key] ?? ''}", not "${mine.names?.[key] ?? ''}"`);
  }
  const shortNames = [...(spec.names?.shortNames ?? [])].sort().join(',');
  if (shortNames !== [...(mine.names?.shortNames ?? [])].sort().join(',')) differences.push(`short names are [${shortNames}], not [${(mine.names?.shortNames ?? []).join(',')}]`);
  const theirs = versionOf(installed, KARTA_VERSION);
  const our = versionOf(ours, KARTA_VERSION);
  let missingFields: string[] = [];
  let extraFields: string[] = [];
  // Constraints of a field both schemas have (a type, `required`, a default) that differ.
  const fieldDifferences: string[] = [];
  // A schema that spells out a Karta's structure (not one that accepts anything) can be an earlier release of ours.
  let kartaShaped = false;
  if (!theirs || theirs.served === false) {
    differences.push(`does not serve ${KARTA_VERSION} (serves ${served.join(', ') || 'nothing'})`);
  } else {
    if (columnsOf(theirs) !== columnsOf(our)) differences.push('printer columns differ');
    if (!theirs.subresources?.status) differences.push('has no status subresource');
    const a = schemaFields((theirs.schema?.openAPIV3Schema ?? {}) as SchemaNode, '', new Map());
    const b = schemaFields((our?.schema?.openAPIV3Schema ?? {}) as SchemaNode, '', new Map());
    // A field whose parent is missing too is named once, by its topmost missing parent.
    const topmost = (paths: string[]) => paths.filter((p) => !paths.some((q) => q !== p && (p.startsWith(`${q}.`) || p.startsWith(`${q}[]`) || p.startsWith(`${q}{}`))));
    kartaShaped = a.has('spec.structureDefinition.rootComponent.name');
    missingFields = topmost([...b.keys()].filter((p) => !a.has(p)));
    extraFields = topmost([...a.keys()].filter((p) => !b.has(p)));
    for (const [p, own] of a) if (b.has(p) && b.get(p) !== own) fieldDifferences.push(`${p || '(root)'}: ${own} in the cluster's, ${b.get(p)} in ours`);
  }
  const base = { servedVersions: served, storageVersion: storage, established: establishedOf(installed), resourceVersion: installed.metadata?.resourceVersion ?? null, missingFields, extraFields, differences: [...differences, ...fieldDifferences] };
  if (missingFields.length === 0 && extraFields.length === 0 && base.differences.length === 0) return { ...base, state: 'current', summary: `${KARTA_CRD_NAME} ${KARTA_VERSION} is installed, the schema Workload Map ships` };
  // An earlier release knows fewer fields (and may constrain the ones it has differently): upgradable.
  if (kartaShaped && differences.length === 0 && extraFields.length === 0 && missingFields.length > 0) {
    return { ...base, state: 'older', summary: `${KARTA_CRD_NAME} is an older schema than Workload Map ships: it lacks ${plural(missingFields.length, 'field')} (${missingFields.join(', ')})` };
  }
  const what = [
    ...differences,
    ...(missingFields.length ? [`lacks ${missingFields.join(', ')}`] : []),
    ...(extraFields.length ? [`has ${extraFields.join(', ')}, which ours has not`] : []),
    ...(fieldDifferences.length ? [plural(fieldDifferences.length, 'field differs', 'fields differ')] : []),
  ];
  return { ...base, state: 'different', summary: `${KARTA_CRD_NAME} differs from the schema Workload Map ships: ${what.join('; ')}` };
}

/** The report when the CRD cannot be read (forbidden): what discovery says is served. */
export function unreadableCrdReport(servedVersions: string[], reason: string): KartaCrdReport {
  const served = servedVersions.length > 0;
  return {
    state: served ? 'unknown' : 'missing',
    servedVersions,
    storageVersion: null,
    established: served ? true : null,
    resourceVersion: null,
    missingFields: [],
    extraFields: [],
    differences: [],
    summary: served ? `${KARTA_GROUP}/${servedVersions.join(', ')} is served; its schema cannot be compared (${reason})` : `${KARTA_GROUP} is not served (the ${KARTA_CRD_NAME} CRD is not installed); the CRD itself cannot be read (${reason})`,
  };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The value as the API server stores it: `default`s of the schema filled in where a field is absent
 * inside an object that is present (the apiextensions defaulting rule). Pure: returns a copy.
 */
export function withSchemaDefaults(schema: SchemaNode | undefined, value: unknown): unknown {
  if (!schema) return value;
  if (Array.isArray(value)) return schema.items && typeof schema.items === 'object' ? value.map((v) => withSchemaDefaults(schema.items as SchemaNode, v)) : value;
  if (!isPlainObject(value)) return value;
  const props = (schema.properties ?? {}) as Record<string, SchemaNode>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const child = props[k] ?? (isPlainObject(schema.additionalProperties) ? (schema.additionalProperties as SchemaNode) : undefined);
    out[k] = withSchemaDefaults(child, v);
  }
  for (const [k, child] of Object.entries(props)) if (!(k in out) && child.default !== undefined) out[k] = structuredClone(child.default);
  return out;
}

/**
 * Fields of `value` the schema does not know, which the API server would drop (pruning) or refuse
 * (strict field validation): `spec.structureDefinition.rootComponent.statusDefinition.statusMappings.running[0].byExpression.language`.
 * The root's apiVersion, kind and metadata are the server's own business and not checked.
 */
export function unknownFields(schema: SchemaNode | undefined, value: unknown, path = ''): string[] {
  if (!schema || schema['x-kubernetes-preserve-unknown-fields'] === true) return [];
  if (Array.isArray(value)) {
    const items = schema.items as SchemaNode | undefined;
    return items ? value.flatMap((v, i) => unknownFields(items, v, `${path}[${i}]`)) : [];
  }
  if (!isPlainObject(value)) return [];
  const props = schema.properties as Record<string, SchemaNode> | undefined;
  const extra = schema.additionalProperties;
  const out: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (path === '' && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
    const at = path ? `${path}.${k}` : k;
    const child = props?.[k] ?? (isPlainObject(extra) ? (extra as SchemaNode) : undefined);
    if (child) out.push(...unknownFields(child, v, at));
    // A schema with neither properties nor additionalProperties is an opaque object only when it says so.
    else if (extra !== true) out.push(at);
  }
  return out;
}

/** What the registry reads and writes with: a ClusterClient (`ClusterConnection.as(who)`) or a stand-in. */
export interface KartaReader {
  getJson<T>(path: string): Promise<T>;
}

/** An API error's HTTP status, when the thrown value has one (ApiError does). */
export function statusOf(e: unknown): number | undefined {
  const s = (e as { status?: unknown } | null)?.status;
  return typeof s === 'number' ? s : undefined;
}

export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * The cluster's Karta CRD and how it compares: read directly, or — for users who may not read CRDs
 * (they are cluster-scoped; many users have no such rights) — what discovery says is served.
 */
export async function readKartaCrd(reader: KartaReader, ours: KubeObject = shippedKartaCrd()): Promise<{ crd: KubeObject | null; report: KartaCrdReport }> {
  try {
    const crd = await reader.getJson<KubeObject>(KARTA_CRD_PATH);
    return { crd, report: kartaCrdReport(crd, ours) };
  } catch (e) {
    const status = statusOf(e);
    if (status === 404) return { crd: null, report: kartaCrdReport(null, ours) };
    if (status !== 403 && status !== 401) throw e;
    return { crd: null, report: unreadableCrdReport(await servedKartaVersions(reader), `reading customresourcedefinitions is forbidden: ${messageOf(e)}`) };
  }
}

/**
 * The versions of run.ai that serve `kartas`, by discovery (which every authenticated user may read).
 * The group holds other kinds too (Run:ai's projects and departments), so each version is asked.
 */
export async function servedKartaVersions(reader: KartaReader): Promise<string[]> {
  let versions: string[];
  try {
    const group = await reader.getJson<{ versions?: Array<{ version?: string }> }>(`/apis/${KARTA_GROUP}`);
    versions = (group.versions ?? []).map((v) => String(v.version));
  } catch (d) {
    if (statusOf(d) === 404) return [];
    throw d;
  }
  const out: string[] = [];
  for (const v of versions) {
    try {
      const list = await reader.getJson<{ resources?: Array<{ name?: string }> }>(`/apis/${KARTA_GROUP}/${v}`);
      if ((list.resources ?? []).some((r) => r.name === 'kartas')) out.push(v);
    } catch (d) {
      if (statusOf(d) !== 404) throw d;
    }
  }
  return out;
}
