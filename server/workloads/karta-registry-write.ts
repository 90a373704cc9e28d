/**
 * Registering a definition in a cluster: a `run.ai/v1alpha1 Karta` created or updated through the
 * same write path as the workload actions — planned from the document and the live object (a YAML
 * diff), dry-run on the server first, then written with optimistic concurrency (a create cannot
 * overwrite; an update is a PUT carrying the previewed resourceVersion), every attempt audited, and
 * sent as the user (the client is `ClusterConnection.as(who)`). The `kartas.run.ai` CRD the product
 * ships can be installed the same way when a cluster lacks it (or upgraded when it has an older one).
 *
 * A definition is validated with our own validator before anything is sent, and checked against the
 * cluster's CRD schema: a field that CRD does not know would be dropped by the API server, and a
 * definition silently missing a field is wrong, so that is an error here rather than a surprise later.
 *
 * The indexing labels `run.ai/karta-group|version|kind` are set from the root kind: KAI Scheduler
 * selects definitions by them and, without the Karta operator (which stamps the same values), nothing
 * else would set them.
 */
import { createHash } from 'node:crypto';
import { createTwoFilesPatch } from 'diff';
import { stringify } from 'yaml';
import { checkDefinition, compileDefinition, engineError, KARTA_API_VERSION, type EngineError, type KubeObject } from '../engine/index.ts';
import type { DryRun } from './actions.ts';
import { recordAudit } from './audit-trail.ts';
import {
  CRD_API, crdSchema, KARTA_CRD_NAME, KARTA_CRD_PATH, KARTA_GROUP, KARTA_VERSION, messageOf, readKartaCrd, shippedKartaCrd, statusOf, unknownFields, withSchemaDefaults,
  type KartaCrdReport, type KartaReader,
} from './karta-registry-crd.ts';
import { expectedKartaLabels, rootKindOf } from './karta-registry-labels.ts';

/** What registration sends with: a ClusterClient (`ClusterConnection.as(who)`), or a stand-in in tests. */
export interface KartaClient extends KartaReader {
  postJson(path: string, body: unknown): Promise<unknown>;
  putJson(path: string, body: unknown, dryRun?: boolean): Promise<unknown>;
}

/** Who acts, for the audit log: a user and how they signed in, or (CLI) a description of the identity. */
export type Actor = string | { user: string; via: string };

export const KARTAS_PATH = `/apis/${KARTA_GROUP}/${KARTA_VERSION}/kartas`;

export function kartaPath(name: string): string {
  return `${KARTAS_PATH}/${encodeURIComponent(name)}`;
}

/** Kubernetes names of cluster-scoped custom resources: DNS subdomains. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export interface RegistrationPlan {
  cluster: string;
  name: string;
  action: 'create' | 'update';
  /** The live Karta; null when there is none. */
  before: KubeObject | null;
  /** The object sent: POST for a create, PUT (with `before`'s resourceVersion) for an update. */
  after: KubeObject;
  /** Unified diff of the Karta as YAML (server bookkeeping and status left out). */
  diff: string;
  /** The live Karta already says what the document says (defaults the server fills in counted as said). */
  noChange: boolean;
  /** Validation and schema errors, with the field path: nothing is sent while there are any. */
  errors: EngineError[];
  /** Findings that do not stop the registration (labels replaced, a namespace ignored). */
  warnings: string[];
  summary: string;
  /** Of `before` ('' for a create): the precondition of the update. */
  resourceVersion: string;
  /** What is sent, as a JSON patch of the live object (for the audit log): a create adds the whole object; an update tests the resourceVersion and replaces it. */
  patch: Array<{ op: string; path: string; value: unknown }>;
}

export interface RegistrationOutcome {
  result: 'planned' | 'dry-run' | 'applied' | 'unchanged' | 'conflict' | 'refused' | 'invalid';
  /** kubectl's words: `karta.run.ai/NAME created`, `… configured (server dry run)`, `… unchanged`. */
  message: string;
  /** The diff of what the server made of it (its dry run or the write), or the plan's diff. */
  diff: string;
  /** What the server answered with (the stored or dry-run object); null when nothing was sent. */
  object: KubeObject | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A Karta as people compare it: what the definition says, not the server's bookkeeping or status. */
function comparable(o: KubeObject | null): Record<string, unknown> | null {
  if (!o) return null;
  const m = (o.metadata ?? {}) as Record<string, unknown>;
  const metadata: Record<string, unknown> = { name: m.name };
  if (isObject(m.labels) && Object.keys(m.labels).length) metadata.labels = m.labels;
  const annotations = isObject(m.annotations) ? Object.fromEntries(Object.entries(m.annotations).filter(([k]) => k !== 'kubectl.kubernetes.io/last-applied-configuration')) : {};
  if (Object.keys(annotations).length) metadata.annotations = annotations;
  return { apiVersion: o.apiVersion, kind: o.kind, metadata, spec: o.spec };
}

/** Deep equality of JSON values, key order ignored. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const ka = Object.keys(a).filter((k) => a[k] !== undefined);
  const kb = Object.keys(b).filter((k) => b[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => same(a[k], b[k]));
}

/** Unified diff of two objects as YAML; `before` null: a create (every line added). */
export function yamlDiff(label: string, before: unknown, after: unknown): string {
  const text = (o: unknown) => (o === null || o === undefined ? '' : stringify(o, { lineWidth: 0 }));
  return createTwoFilesPatch(`${label} (${before ? 'live' : 'absent'})`, `${label} (after)`, text(before), text(after), undefined, undefined, { context: 3 });
}

/**
 * The diff of an update: against the document as written, or with the schema's defaults filled in —
 * whichever is shorter. A server that stores defaults (kube-apiserver) would otherwise show its own
 * defaults as removed on every update; one that does not would show them as added.
 */
function updateDiff(name: string, now: unknown, wanted: unknown, defaulted: unknown): string {
  const plain = yamlDiff(kartaName(name), now, wanted);
  if (!now) return plain;
  const filled = yamlDiff(kartaName(name), now, defaulted);
  return filled.length < plain.length ? filled : plain;
}

/** kubectl's name of a Karta in its output. */
export function kartaName(name: string): string {
  return `karta.${KARTA_GROUP}/${name}`;
}

/**
 * Plans registering `document` (a Karta, as parsed from YAML) against the live Karta of that name
 * (`existing`, null when there is none). `crd`: the cluster's Karta CRD, whose schema decides which
 * fields the server keeps (default: the one we ship, e.g. when it is about to be installed).
 */
export function planRegistration(existing: KubeObject | null, document: unknown, options: { cluster: string; crd?: KubeObject | null; origin?: string }): RegistrationPlan {
  const errors: EngineError[] = [];
  const warnings: string[] = [];
  const doc = isObject(document) ? document : {};
  const meta = isObject(doc.metadata) ? doc.metadata : {};
  const name = typeof meta.name === 'string' ? meta.name : '';
  const origin = options.origin ?? (name ? `definition "${name}"` : 'the definition');
  if (doc.apiVersion !== KARTA_API_VERSION || doc.kind !== 'Karta') {
    const got = `${String(doc.apiVersion ?? '(no apiVersion)')} ${String(doc.kind ?? '(no kind)')}`;
    errors.push(engineError('register.kind', `only ${KARTA_API_VERSION} Karta definitions can be registered, this is ${got}${doc.kind === 'ResourceInterface' ? ' (the same spec works as a Karta: change apiVersion and kind)' : ''}`, 'kind'));
  }
  if (!name) errors.push(engineError('register.name', 'metadata.name is required to register a definition', 'metadata.name'));
  else if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) errors.push(engineError('register.name', `metadata.name "${name}" is not a valid name: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters`, 'metadata.name'));
  if (errors.length === 0) {
    const loaded = checkDefinition(doc, 'file', origin);
    errors.push(...(loaded.errors.length > 0 ? loaded.errors : compileDefinition(loaded).errors));
  }
  const crd = options.crd ?? shippedKartaCrd();
  const schema = crdSchema(crd);
  const theirs = options.crd ? "the cluster's" : 'the';
  for (const path of unknownFields(schema, doc)) {
    errors.push(engineError('register.unknown-field', `${path}: ${theirs} ${KARTA_CRD_NAME} CRD has no such field, so the API server would drop it`, path));
  }
  if (typeof meta.namespace === 'string' && meta.namespace) warnings.push(`Karta is cluster-scoped: metadata.namespace "${meta.namespace}" is ignored`);

  const root = rootKindOf(doc);
  const labels: Record<string, string> = { ...(isObject(meta.labels) ? (meta.labels as Record<string, string>) : {}) };
  if (root) {
    for (const [k, v] of Object.entries(expectedKartaLabels(root))) {
      if (k in labels && labels[k] !== v) warnings.push(`label ${k} is "${labels[k]}" but the root kind says "${v}": registered with "${v}" (KAI Scheduler selects definitions by these labels)`);
      labels[k] = v;
    }
  }
  const annotations = isObject(meta.annotations) ? (meta.annotations as Record<string, string>) : {};
  const liveMeta = (existing?.metadata ?? {}) as Record<string, unknown>;
  const metadata: Record<string, unknown> = existing
    ? (() => {
        // An update keeps what others put on the object (finalizers, the operator's annotations) and sets ours on top.
        const { managedFields: _m, ...kept } = liveMeta;
        return { ...kept, labels: { ...((liveMeta.labels as Record<string, string>) ?? {}), ...labels }, annotations: { ...((liveMeta.annotations as Record<string, string>) ?? {}), ...annotations } };
      })()
    : { name, labels, ...(Object.keys(annotations).length ? { annotations } : {}) };
  if (existing && Object.keys(metadata.annotations as object).length === 0) delete metadata.annotations;
  const after: KubeObject = { apiVersion: KARTA_API_VERSION, kind: 'Karta', metadata: metadata as KubeObject['metadata'], spec: doc.spec };

  const resourceVersion = String(existing?.metadata?.resourceVersion ?? '');
  const now = comparable(existing);
  const wanted = comparable(after);
  // The server fills in the schema's defaults (a conditionsDefinition's field names): a live object
  // that has them says the same as a document that leaves them out.
  const defaulted = comparable({ ...after, spec: (withSchemaDefaults(schema, { spec: after.spec }) as { spec: unknown }).spec });
  const noChange = existing !== null && (same(now, wanted) || same(now, defaulted));
  const rk = root ? `${root.kind}${root.group ? `.${root.group}` : ''}/${root.version}` : 'an unknown root kind';
  const summary = existing
    ? noChange ? `Karta ${name} in cluster ${options.cluster} already says this (${rk})` : `update Karta ${name} (${rk}) in cluster ${options.cluster}, resourceVersion ${resourceVersion}`
    : `create Karta ${name} (${rk}) in cluster ${options.cluster}`;
  const patch = existing
    ? [{ op: 'test', path: '/metadata/resourceVersion', value: resourceVersion }, { op: 'replace', path: '', value: after }]
    : [{ op: 'add', path: '', value: after }];
  return {
    cluster: options.cluster,
    name,
    action: existing ? 'update' : 'create',
    before: existing,
    after,
    diff: noChange ? '' : updateDiff(name, now, wanted, defaulted),
    noChange,
    errors,
    warnings,
    summary,
    resourceVersion,
    patch,
  };
}

/** 409 on a create (it exists now) or an update (the resourceVersion moved on). */
function isConflict(e: unknown): boolean {
  return statusOf(e) === 409;
}

function audit(who: Actor, cluster: string, action: string, object: { apiVersion: string; kind: string; name: string }, summary: string, patch: RegistrationPlan['patch'], dryRun: DryRun, o: Omit<RegistrationOutcome, 'object'>): void {
  const identity = typeof who === 'string' ? { who, via: 'cli' } : { who: who.user, via: who.via };
  recordAudit({ ...identity, cluster, action, object: { ...object, namespace: '' }, summary, sent: { patch }, dryRun, result: o.result, message: o.message });
}

/** Strict field validation: an unknown field is refused by the server instead of silently dropped. */
const STRICT = 'fieldValidation=Strict';

/**
 * Runs a registration plan: nothing more with `client`; a server dry run with `server`; with `none`
 * the dry run first, then the write. A server dry run of an update that comes back as the live object
 * (the server's defaults made the document what is there) is `unchanged`, and nothing is written.
 */
export async function runRegistration(plan: RegistrationPlan, client: KartaClient, dryRun: DryRun, who: Actor): Promise<RegistrationOutcome> {
  const label = kartaName(plan.name);
  const verb = plan.action === 'create' ? 'created' : 'configured';
  const record = (o: RegistrationOutcome): RegistrationOutcome => {
    audit(who, plan.cluster, 'register', { apiVersion: KARTA_API_VERSION, kind: 'Karta', name: plan.name }, plan.summary, plan.patch, dryRun, o);
    return o;
  };
  if (plan.errors.length > 0) return record({ result: 'invalid', message: plan.errors.map((e) => e.message).join('; '), diff: '', object: null });
  if (plan.noChange) return record({ result: 'unchanged', message: `${label} unchanged`, diff: '', object: plan.before });
  if (dryRun === 'client') return record({ result: 'planned', message: `${label} ${verb} (dry run)`, diff: plan.diff, object: null });
  const send = async (dry: boolean): Promise<KubeObject> => {
    const query = `?${STRICT}${dry ? '&dryRun=All' : ''}`;
    const answer = plan.action === 'create' ? await client.postJson(`${KARTAS_PATH}${query}`, plan.after) : await client.putJson(`${kartaPath(plan.name)}?${STRICT}`, plan.after, dry);
    return answer as KubeObject;
  };
  for (const dry of dryRun === 'server' ? [true] : [true, false]) {
    let answer: KubeObject;
    try {
      answer = await send(dry);
    } catch (e) {
      const status = statusOf(e);
      if (isConflict(e)) {
        const message = plan.action === 'create'
          ? `${label} was created by someone else since you looked: look at it and apply again`
          : `Karta ${plan.name} changed since you looked (resourceVersion ${plan.resourceVersion}): look at the new diff and apply again`;
        return record({ result: 'conflict', message, diff: '', object: null });
      }
      const why = status === 404 && plan.action === 'create' ? `the cluster does not serve ${KARTA_GROUP}/${KARTA_VERSION} kartas (is the ${KARTA_CRD_NAME} CRD installed?)` : messageOf(e);
      return record({ result: 'refused', message: `${dry ? 'the server dry run' : 'the API server'} refused ${label}: ${why}`, diff: '', object: null });
    }
    const diff = yamlDiff(label, comparable(plan.before), comparable(answer));
    if (dry && plan.before && same(comparable(plan.before), comparable(answer))) return record({ result: 'unchanged', message: `${label} unchanged`, diff: '', object: plan.before });
    if (dry && dryRun === 'server') return record({ result: 'dry-run', message: `${label} ${verb} (server dry run)`, diff, object: answer });
    if (!dry) return record({ result: 'applied', message: `${label} ${verb}`, diff, object: answer });
  }
  return record({ result: 'refused', message: 'nothing was sent', diff: '', object: null });
}

export interface CrdInstallPlan {
  cluster: string;
  action: 'create' | 'update' | 'none';
  report: KartaCrdReport;
  before: KubeObject | null;
  after: KubeObject | null;
  diff: string;
  summary: string;
  /** Why it cannot be done (a CRD that is not ours to replace, one that cannot be read). */
  errors: EngineError[];
  resourceVersion: string;
  /** For the audit log: the CRD sent is named by its file and digest rather than copied (it is some 50 KB). */
  patch: RegistrationPlan['patch'];
}

/** The shipped CRD as the audit log names it. */
function shippedRef(crd: KubeObject): { file: string; sha256: string } {
  return { file: 'deploy/crds/kartas.run.ai.yaml', sha256: createHash('sha256').update(JSON.stringify(crd.spec)).digest('hex') };
}

/** A CRD as compared in diffs: no status, no server bookkeeping. */
function comparableCrd(o: KubeObject | null): Record<string, unknown> | null {
  if (!o) return null;
  const m = (o.metadata ?? {}) as Record<string, unknown>;
  return { apiVersion: o.apiVersion, kind: o.kind, metadata: { name: m.name, ...(isObject(m.labels) ? { labels: m.labels } : {}) }, spec: o.spec };
}

/**
 * Plans installing the CRD we ship: a create when the cluster has none, an update (keeping the
 * object's metadata, with its resourceVersion as the precondition) when it has an older one; nothing
 * when it is current. A CRD that differs otherwise (a newer or a foreign one) is left alone.
 */
export function planCrdInstall(installed: KubeObject | null, report: KartaCrdReport, options: { cluster: string }): CrdInstallPlan {
  const ours = shippedKartaCrd();
  const base = { cluster: options.cluster, report, before: installed, errors: [] as EngineError[], resourceVersion: String(installed?.metadata?.resourceVersion ?? '') };
  if (report.state === 'current') return { ...base, action: 'none', after: installed, diff: '', summary: report.summary, patch: [] };
  if (report.state === 'missing' && !installed) {
    return { ...base, action: 'create', after: ours, diff: yamlDiff(`customresourcedefinition/${KARTA_CRD_NAME}`, null, comparableCrd(ours)), summary: `install the ${KARTA_CRD_NAME} CRD (${KARTA_GROUP}/${KARTA_VERSION} Karta) in cluster ${options.cluster}`, patch: [{ op: 'add', path: '', value: shippedRef(ours) }] };
  }
  if (report.state === 'older' && installed) {
    const { managedFields: _m, ...metadata } = (installed.metadata ?? {}) as Record<string, unknown>;
    const after: KubeObject = { apiVersion: ours.apiVersion, kind: ours.kind, metadata: metadata as KubeObject['metadata'], spec: ours.spec };
    return {
      ...base, action: 'update', after,
      diff: yamlDiff(`customresourcedefinition/${KARTA_CRD_NAME}`, comparableCrd(installed), comparableCrd(after)),
      summary: `upgrade the ${KARTA_CRD_NAME} CRD in cluster ${options.cluster} to the schema Workload Map ships (adds ${report.missingFields.join(', ')})`,
      patch: [{ op: 'test', path: '/metadata/resourceVersion', value: base.resourceVersion }, { op: 'replace', path: '/spec', value: shippedRef(ours) }],
    };
  }
  const why = report.state === 'unknown' ? `the ${KARTA_CRD_NAME} CRD cannot be read, so it is not changed (${report.summary})` : `the cluster's ${KARTA_CRD_NAME} CRD is not one Workload Map ships or an older release of it, so it is left alone: ${report.summary}`;
  return { ...base, action: 'none', after: null, diff: '', summary: why, errors: [engineError('register.crd', why, 'spec')], patch: [] };
}

/** Runs a CRD install plan, as runRegistration runs a registration: dry run first, then the write. */
export async function runCrdInstall(plan: CrdInstallPlan, client: KartaClient, dryRun: DryRun, who: Actor): Promise<RegistrationOutcome> {
  const label = `customresourcedefinition.apiextensions.k8s.io/${KARTA_CRD_NAME}`;
  const record = (o: RegistrationOutcome): RegistrationOutcome => {
    audit(who, plan.cluster, 'install-crd', { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: KARTA_CRD_NAME }, plan.summary, plan.patch, dryRun, o);
    return o;
  };
  if (plan.errors.length > 0) return record({ result: 'invalid', message: plan.errors.map((e) => e.message).join('; '), diff: '', object: null });
  if (plan.action === 'none' || !plan.after) return record({ result: 'unchanged', message: `${label} unchanged`, diff: '', object: plan.before });
  const verb = plan.action === 'create' ? 'created' : 'configured';
  if (dryRun === 'client') return record({ result: 'planned', message: `${label} ${verb} (dry run)`, diff: plan.diff, object: null });
  for (const dry of dryRun === 'server' ? [true] : [true, false]) {
    try {
      const answer = (plan.action === 'create' ? await client.postJson(`${CRD_API}${dry ? '?dryRun=All' : ''}`, plan.after) : await client.putJson(KARTA_CRD_PATH, plan.after, dry)) as KubeObject;
      if (dry && dryRun === 'server') return record({ result: 'dry-run', message: `${label} ${verb} (server dry run)`, diff: plan.diff, object: answer });
      if (!dry) return record({ result: 'applied', message: `${label} ${verb}`, diff: plan.diff, object: answer });
    } catch (e) {
      if (isConflict(e)) return record({ result: 'conflict', message: `the ${KARTA_CRD_NAME} CRD ${plan.action === 'create' ? 'was installed by someone else' : 'changed'} since you looked: look again`, diff: '', object: null });
      return record({ result: 'refused', message: `${dry ? 'the server dry run' : 'the API server'} refused ${label}: ${messageOf(e)}`, diff: '', object: null });
    }
  }
  return record({ result: 'refused', message: 'nothing was sent', diff: '', object: null });
}

/** A SelfSubjectAccessReview: may the client's identity do `verb` on the resource? */
export async function selfAccess(client: KartaClient, attrs: { verb: string; group: string; resource: string; name?: string }): Promise<{ allowed: boolean; reason: string }> {
  try {
    const answer = (await client.postJson('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: attrs } })) as { status?: { allowed?: boolean; denied?: boolean; reason?: string; evaluationError?: string } };
    const allowed = answer.status?.allowed === true;
    const what = `${attrs.verb} ${attrs.resource}${attrs.group ? `.${attrs.group}` : ''}${attrs.name ? ` ${attrs.name}` : ''}`;
    return { allowed, reason: allowed ? `may ${what}` : `may not ${what}${answer.status?.reason ? `: ${answer.status.reason}` : ''}` };
  } catch (e) {
    return { allowed: false, reason: `could not ask the API server whether this is allowed: ${messageOf(e)}` };
  }
}

/** Whether the identity may install (create) the Karta CRD. */
export function mayInstallCrd(client: KartaClient): Promise<{ allowed: boolean; reason: string }> {
  return selfAccess(client, { verb: 'create', group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' });
}

/** Waits until the cluster serves kartas (a CRD just created is established asynchronously). */
export async function waitForKartaApi(reader: KartaReader, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const list = await reader.getJson<{ resources?: Array<{ name?: string }> }>(`/apis/${KARTA_GROUP}/${KARTA_VERSION}`);
      if ((list.resources ?? []).some((r) => r.name === 'kartas')) return true;
    } catch (e) {
      if (statusOf(e) !== 404) throw e;
    }
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface RegisterOptions {
  cluster: string;
  dryRun: DryRun;
  who: Actor;
  /** Install (or upgrade an older) CRD first when needed, if the identity may. */
  installCrd?: boolean;
  /**
   * What the preview showed: the live Karta's resourceVersion ('' = there was none). The write is
   * refused as a conflict when the cluster moved on, before anything is sent.
   */
  seenResourceVersion?: string;
  origin?: string;
}

export interface RegisterAnswer {
  crd: KartaCrdReport;
  /** The CRD step, when one was needed and asked for. */
  crdInstall: { plan: CrdInstallPlan; outcome: RegistrationOutcome } | null;
  plan: RegistrationPlan | null;
  outcome: RegistrationOutcome;
  /** Notes for people (the CRD state, what a dry run could not check). */
  notes: string[];
}

/** The cluster's CRD as registration sees it. */
export interface CrdContext {
  /** The CRD object whose schema decides which fields survive (ours when it is about to be installed); null when unreadable. */
  crd: KubeObject | null;
  report: KartaCrdReport;
  /** The CRD exists only in a dry run: the server cannot check a Karta of it yet. */
  pending: boolean;
}

export interface CrdStep {
  context: CrdContext;
  /** The install, when one was needed and asked for. */
  install: { plan: CrdInstallPlan; outcome: RegistrationOutcome } | null;
  /** Why registering cannot go on (the CRD missing and not installed, installing it refused). */
  refusal: { result: RegistrationOutcome['result']; message: string } | null;
  notes: string[];
}

const DONE = new Set<RegistrationOutcome['result']>(['applied', 'dry-run', 'planned', 'unchanged']);

/**
 * The CRD step of a registration: reads the cluster's Karta CRD and, when it is missing or older
 * and `installCrd` is set, installs ours (after an access review: `create customresourcedefinitions`)
 * with the same dry-run mode, waiting until the API serves kartas.
 */
export async function prepareCrd(client: KartaClient, options: Pick<RegisterOptions, 'cluster' | 'dryRun' | 'who' | 'installCrd'>): Promise<CrdStep> {
  const notes: string[] = [];
  let { crd, report } = await readKartaCrd(client);
  const step = (refusal: CrdStep['refusal'], install: CrdStep['install'] = null, pending = false): CrdStep => ({ context: { crd, report, pending }, install, refusal, notes });
  const needed = report.state === 'missing' || report.state === 'older';
  if (needed && options.installCrd) {
    const access = await mayInstallCrd(client);
    if (!access.allowed) return step({ result: 'refused', message: `the ${KARTA_CRD_NAME} CRD ${report.state === 'missing' ? 'is not installed' : 'is older than Workload Map ships'} and installing it is not allowed: ${access.reason}` });
    const plan = planCrdInstall(crd, report, { cluster: options.cluster });
    const outcome = await runCrdInstall(plan, client, options.dryRun, options.who);
    const install = { plan, outcome };
    if (!DONE.has(outcome.result)) return step({ result: outcome.result, message: outcome.message }, install);
    if (outcome.result === 'applied') {
      if (!(await waitForKartaApi(client))) return step({ result: 'refused', message: `the ${KARTA_CRD_NAME} CRD was installed but ${KARTA_GROUP}/${KARTA_VERSION} is not served yet: try again in a moment` }, install);
      ({ crd, report } = await readKartaCrd(client));
      return step(null, install);
    }
    // A dry run: Kartas are checked against the CRD as it would be.
    const pending = report.state === 'missing';
    crd = plan.after;
    return step(null, install, pending);
  }
  if (report.state === 'missing') return step({ result: 'refused', message: `the ${KARTA_CRD_NAME} CRD is not installed in cluster ${options.cluster}: install it first (wmap apply --install-crd, or kubectl apply -f deploy/crds/kartas.run.ai.yaml)` });
  if (report.state !== 'current') notes.push(report.state === 'older' ? `${report.summary}; installing the CRD again upgrades it` : report.summary);
  return step(null);
}

/**
 * The Karta step: reads the live Karta of the document's name, plans against the cluster's CRD and
 * runs the plan (a `seenResourceVersion` that is no longer the live one is a conflict, sent nowhere).
 */
export async function registerWith(client: KartaClient, document: unknown, context: CrdContext, options: RegisterOptions): Promise<{ plan: RegistrationPlan | null; outcome: RegistrationOutcome; notes: string[] }> {
  const notes: string[] = [];
  const doc = isObject(document) ? document : {};
  const name = isObject(doc.metadata) && typeof doc.metadata.name === 'string' ? doc.metadata.name : '';
  let existing: KubeObject | null = null;
  if (name && !context.pending && (doc.apiVersion === KARTA_API_VERSION && doc.kind === 'Karta')) {
    try {
      existing = await client.getJson<KubeObject>(kartaPath(name));
    } catch (e) {
      if (statusOf(e) !== 404) return { plan: null, outcome: { result: 'refused', message: `reading Karta ${name} failed: ${messageOf(e)}`, diff: '', object: null }, notes };
    }
  }
  // A cluster whose CRD cannot be read is checked against the schema we ship (its server checks the rest).
  const plan = planRegistration(existing, document, { cluster: options.cluster, crd: context.report.state === 'unknown' ? null : context.crd, origin: options.origin });
  if (options.seenResourceVersion !== undefined && plan.errors.length === 0 && options.seenResourceVersion !== plan.resourceVersion) {
    const message = `Karta ${name} changed since you looked (you saw ${options.seenResourceVersion ? `resourceVersion ${options.seenResourceVersion}` : 'none'}, it is now ${plan.resourceVersion ? `resourceVersion ${plan.resourceVersion}` : 'gone'}): review the new diff and apply again`;
    audit(options.who, options.cluster, 'register', { apiVersion: KARTA_API_VERSION, kind: 'Karta', name }, plan.summary, plan.patch, options.dryRun, { result: 'conflict', message, diff: '' });
    return { plan, outcome: { result: 'conflict', message, diff: '', object: null }, notes };
  }
  if (context.pending && options.dryRun === 'server') {
    notes.push(`the server could not check Karta ${name}: the ${KARTA_CRD_NAME} CRD is not installed yet (this was a dry run)`);
    return { plan, outcome: await runRegistration(plan, client, 'client', options.who), notes };
  }
  return { plan, outcome: await runRegistration(plan, client, options.dryRun, options.who), notes };
}

/**
 * Registers one definition: the CRD step (prepareCrd), then the Karta step (registerWith). What an
 * API route calls, with `connection.as(user)` as the client; the CLI runs the two steps itself, the
 * CRD once for all the documents of a file.
 */
export async function registerDefinition(client: KartaClient, document: unknown, options: RegisterOptions): Promise<RegisterAnswer> {
  const crdStep = await prepareCrd(client, options);
  if (crdStep.refusal) return { crd: crdStep.context.report, crdInstall: crdStep.install, plan: null, outcome: { ...crdStep.refusal, diff: '', object: null }, notes: crdStep.notes };
  const { plan, outcome, notes } = await registerWith(client, document, crdStep.context, options);
  return { crd: crdStep.context.report, crdInstall: crdStep.install, plan, outcome, notes: [...crdStep.notes, ...notes] };
}
