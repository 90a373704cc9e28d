/**
 * Validation of the built-in kinds the simulator serves (the pkg/apis validation packages of kubernetes/kubernetes,
 * pure), for what a hostile client can get wrong: counts that must not be negative (replicas,
 * parallelism, completions, backoffLimit, …), Indexed Job limits, pod templates (containers, names,
 * resource quantities, requests against limits, extended resources), Service ports, ConfigMap and
 * Secret keys and size. Messages are the real ones; the values in them are printed as Go prints them.
 */

import type { KubeObject } from '../../store/object-store.ts';
import { isPlainObject } from '../../store/object-utils.ts';
import type { NumberLiterals } from '../json-scan.ts';
import { pathKey } from '../json-scan.ts';
import type { FieldError } from './field-errors.ts';
import { duplicate, invalidValue, notSupported, q, required, tooLong } from './field-errors.ts';
import { goNumber, goStringMap } from './go-format.ts';
import { isConfigMapKey, isDNS1123Label, isQualifiedName } from './names.ts';
import { validateAnnotations, validateLabels } from './object-meta.ts';
import type { Quantity } from './quantity.ts';
import { compareQuantities, isNotWholeForValidation, parseQuantity, quantityGoSyntax, quantityString, signOf } from './quantity.ts';

/** `corev1.MaxSecretSize`: data of a ConfigMap or Secret together. */
export const MAX_SECRET_SIZE = 1024 * 1024;
/** Indexed Jobs: `maxParallelismForIndexedJob`, `completionsSoftLimit`. */
export const MAX_INDEXED_PARALLELISM = 100_000;
export const MAX_INDEXED_COMPLETIONS = 100_000;

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj {
  return isPlainObject(v) ? v : {};
}

class Ctx {
  readonly errs: FieldError[] = [];
  constructor(private readonly numbers: NumberLiterals) {}
  /** `%v` of the int64 a number field decoded to. */
  num(segments: Array<string | number>, v: number): string {
    return goNumber(v, this.numbers.get(pathKey(segments)));
  }
  nonNegative(base: Array<string | number>, field: string, v: unknown): void {
    if (typeof v === 'number' && v < 0) this.errs.push(invalidValue(fmt([...base, field]), this.num([...base, field], v), 'must be greater than or equal to 0'));
  }
}

/** A field path as field.Path prints it: `spec.containers[0].resources.requests[nvidia.com/gpu]`. */
function fmt(segments: Array<string | number>): string {
  let s = '';
  for (const seg of segments) {
    if (typeof seg === 'number') s += `[${seg}]`;
    else if (seg.startsWith('[')) s += seg;
    else s += s ? `.${seg}` : seg;
  }
  return s;
}

/** A map key segment. */
function key(k: string): string {
  return `[${k}]`;
}

const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);

function isNativeResource(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/');
}

function isHugePage(name: string): boolean {
  return name.startsWith('hugepages-');
}

function isExtendedResource(name: string): boolean {
  if (isNativeResource(name) || name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}

function isOvercommitAllowed(name: string): boolean {
  return isNativeResource(name) && !isHugePage(name);
}

function isIntegerResource(name: string): boolean {
  return isExtendedResource(name) || ['pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers'].includes(name);
}

function containerResourceNameErrors(name: string, path: string): FieldError[] {
  const msgs = isQualifiedName(name);
  if (msgs.length > 0) return msgs.map((m) => invalidValue(path, q(name), m));
  if (!name.includes('/')) {
    if (!STANDARD_CONTAINER_RESOURCES.has(name) && !isHugePage(name)) return [invalidValue(path, q(name), 'must be a standard resource for containers')];
  } else if (!isNativeResource(name) && !isExtendedResource(name)) return [invalidValue(path, q(name), "doesn't follow extended resource name standard")];
  return [];
}

function quantityValueErrors(name: string, qty: Quantity, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (signOf(qty) < 0) errs.push(invalidValue(path, q(quantityString(qty)), 'must be greater than or equal to 0'));
  if (isIntegerResource(name) && isNotWholeForValidation(qty)) errs.push(invalidValue(path, quantityGoSyntax(qty), 'must be an integer'));
  return errs;
}

function parsedList(list: unknown): Map<string, Quantity> {
  const out = new Map<string, Quantity>();
  for (const [k, v] of Object.entries(obj(list)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const parsed = parseQuantity(typeof v === 'number' ? String(v) : String(v ?? '').trim());
    if (typeof parsed !== 'string') out.set(k, parsed);
  }
  return out;
}

/** ValidateContainerResourceRequirements. */
function validateResources(c: Ctx, resources: unknown, base: Array<string | number>): void {
  const r = obj(resources);
  const limPath = [...base, 'limits'];
  const reqPath = [...base, 'requests'];
  const limits = parsedList(r.limits);
  const requests = parsedList(r.requests);
  for (const [name, qty] of limits) {
    const p = fmt([...limPath, key(name)]);
    c.errs.push(...containerResourceNameErrors(name, p), ...quantityValueErrors(name, qty, p));
  }
  for (const [name, qty] of requests) {
    const p = fmt([...reqPath, key(name)]);
    c.errs.push(...containerResourceNameErrors(name, p), ...quantityValueErrors(name, qty, p));
    const limit = limits.get(name);
    if (limit) {
      const cmp = compareQuantities(qty, limit);
      if (cmp !== 0 && !isOvercommitAllowed(name)) c.errs.push(invalidValue(fmt(reqPath), q(quantityString(qty)), `must be equal to ${name} limit of ${quantityString(limit)}`));
      else if (cmp > 0) c.errs.push(invalidValue(fmt(reqPath), q(quantityString(qty)), `must be less than or equal to ${name} limit of ${quantityString(limit)}`));
    } else if (!isOvercommitAllowed(name)) c.errs.push(required(fmt(limPath), 'Limit must be set for non overcommitable resources'));
  }
}

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];

/**
 * Containers of a pod spec: the checks common to every container, then unique names (shared with
 * `names`). `ofPod`: the pod-only checks too (an image with surrounding whitespace is refused in a Pod,
 * not in a template, where some tools put a placeholder).
 */
function validateContainers(c: Ctx, list: unknown, base: Array<string | number>, requireOne: boolean, names: Set<string>, ofPod: boolean): void {
  const containers = Array.isArray(list) ? list : [];
  if (requireOne && containers.length === 0) c.errs.push(required(fmt(base)));
  containers.forEach((raw, i) => {
    const ct = obj(raw);
    const p = [...base, i];
    const name = typeof ct.name === 'string' ? ct.name : '';
    if (!name) c.errs.push(required(fmt([...p, 'name'])));
    else for (const m of isDNS1123Label(name)) c.errs.push(invalidValue(fmt([...p, 'name']), q(name), m));
    const image = typeof ct.image === 'string' ? ct.image : '';
    if (!image) c.errs.push(required(fmt([...p, 'image'])));
    else if (ofPod && image.trim() !== image) c.errs.push(invalidValue(fmt([...p, 'image']), q(image), 'must not have leading or trailing whitespace'));
    const pull = ct.imagePullPolicy;
    if (typeof pull === 'string' && pull !== '' && !PULL_POLICIES.includes(pull)) c.errs.push(notSupported(fmt([...p, 'imagePullPolicy']), q(pull), PULL_POLICIES));
    for (const [j, port] of (Array.isArray(ct.ports) ? ct.ports : []).entries()) {
      const cp = obj(port).containerPort;
      if (typeof cp === 'number' && (cp < 1 || cp > 65535)) c.errs.push(invalidValue(fmt([...p, 'ports', j, 'containerPort']), c.num([...p, 'ports', j, 'containerPort'], cp), 'must be between 1 and 65535, inclusive'));
    }
    validateResources(c, ct.resources, [...p, 'resources']);
    if (names.has(name)) c.errs.push(duplicate(fmt([...p, 'name']), q(name)));
    else if (name) names.add(name);
  });
}

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];

/** ValidatePodSpec, the parts hostile input reaches. */
function validatePodSpec(c: Ctx, specRaw: unknown, base: Array<string | number>, ofPod = false): void {
  const spec = obj(specRaw);
  const names = new Set<string>();
  validateContainers(c, spec.containers, [...base, 'containers'], true, names, ofPod);
  validateContainers(c, spec.initContainers, [...base, 'initContainers'], false, names, ofPod);
  const rp = spec.restartPolicy;
  if (typeof rp === 'string' && !RESTART_POLICIES.includes(rp)) c.errs.push(notSupported(fmt([...base, 'restartPolicy']), q(rp), RESTART_POLICIES));
  c.nonNegative(base, 'terminationGracePeriodSeconds', spec.terminationGracePeriodSeconds);
  const ads = spec.activeDeadlineSeconds;
  if (typeof ads === 'number' && ads < 1) c.errs.push(invalidValue(fmt([...base, 'activeDeadlineSeconds']), c.num([...base, 'activeDeadlineSeconds'], ads), 'must be between 1 and 2147483647, inclusive'));
}

/** A pod template's labels must match the selector of the controller that owns it. */
function validateSelectorMatches(c: Ctx, spec: Obj, base: Array<string | number>, requireSelector: boolean): void {
  const selector = spec.selector;
  if (!isPlainObject(selector)) {
    if (requireSelector) c.errs.push(required(fmt([...base, 'selector'])));
    return;
  }
  const matchLabels = obj(selector.matchLabels) as Record<string, string>;
  const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
  if (Object.keys(matchLabels).length === 0 && expressions.length === 0) {
    c.errs.push(invalidValue(fmt([...base, 'selector']), 'v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}', 'empty selector is invalid for deployment'));
    return;
  }
  const labels = obj(obj(obj(spec.template).metadata).labels) as Record<string, string>;
  if (Object.entries(matchLabels).some(([k, v]) => labels[k] !== v)) {
    c.errs.push(invalidValue(fmt([...base, 'template', 'metadata', 'labels']), goStringMap(labels), '`selector` does not match template `labels`'));
  }
}

/** ValidatePodTemplateSpec: the template's labels and annotations (at `<base>.labels`, as upstream names them), then its pod spec. */
function validatePodTemplate(c: Ctx, template: unknown, base: Array<string | number>): void {
  const meta = obj(obj(template).metadata);
  c.errs.push(...validateLabels(meta.labels, fmt([...base, 'labels'])), ...validateAnnotations(meta.annotations, fmt([...base, 'annotations'])));
  validatePodSpec(c, obj(template).spec, [...base, 'spec']);
}

const JOB_RESTART_POLICIES = ['OnFailure', 'Never'];

function validateJobSpec(c: Ctx, specRaw: unknown, base: Array<string | number>): void {
  const spec = obj(specRaw);
  for (const f of ['parallelism', 'completions', 'backoffLimit', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex', 'maxFailedIndexes']) c.nonNegative(base, f, spec[f]);
  const ads = spec.activeDeadlineSeconds;
  if (typeof ads === 'number' && ads <= 0) c.errs.push(invalidValue(fmt([...base, 'activeDeadlineSeconds']), c.num([...base, 'activeDeadlineSeconds'], ads), 'must be greater than or equal to 0'));
  if (spec.completionMode === 'Indexed') {
    if (spec.completions === undefined || spec.completions === null) c.errs.push(required(fmt([...base, 'completions']), 'when completion mode is Indexed'));
    if (typeof spec.completions === 'number' && spec.completions > MAX_INDEXED_COMPLETIONS && spec.backoffLimitPerIndex === undefined) {
      c.errs.push(invalidValue(fmt([...base, 'completions']), c.num([...base, 'completions'], spec.completions), `must be less than or equal to ${MAX_INDEXED_COMPLETIONS} when completion mode is Indexed`));
    }
    if (typeof spec.parallelism === 'number' && spec.parallelism > MAX_INDEXED_PARALLELISM) {
      c.errs.push(invalidValue(fmt([...base, 'parallelism']), c.num([...base, 'parallelism'], spec.parallelism), `must be less than or equal to ${MAX_INDEXED_PARALLELISM} when completion mode is Indexed`));
    }
  } else if (spec.completionMode !== undefined && spec.completionMode !== 'NonIndexed') {
    c.errs.push(notSupported(fmt([...base, 'completionMode']), q(String(spec.completionMode)), ['NonIndexed', 'Indexed']));
  }
  const template = obj(spec.template);
  const rp = obj(template.spec).restartPolicy ?? 'Always';
  if (!JOB_RESTART_POLICIES.includes(String(rp))) c.errs.push(notSupported(fmt([...base, 'template', 'spec', 'restartPolicy']), q(String(rp)), JOB_RESTART_POLICIES));
  validatePodTemplate(c, spec.template, [...base, 'template']);
}

function validateDataMaps(c: Ctx, o: KubeObject, fields: string[]): void {
  let size = 0;
  const seen = new Set<string>();
  for (const f of fields) {
    for (const [k, v] of Object.entries(obj(o[f]))) {
      for (const m of isConfigMapKey(k)) c.errs.push(invalidValue(fmt([f]), q(k), m));
      if (seen.has(k)) c.errs.push(invalidValue(fmt([f]), q(k), 'duplicate of key present in binaryData'));
      seen.add(k);
      size += typeof v === 'string' ? (f === 'data' && o.kind === 'ConfigMap' ? Buffer.byteLength(v) : Math.floor((v.length * 3) / 4)) : 0;
    }
  }
  if (size > MAX_SECRET_SIZE) c.errs.push(tooLong(fields[0], MAX_SECRET_SIZE));
}

/** The kind's own validation (create and update alike); metadata is checked apart. */
export function validateBuiltin(gk: string, o: KubeObject, numbers: NumberLiterals): FieldError[] {
  const c = new Ctx(numbers);
  const spec = obj(o.spec);
  switch (gk) {
    case '/Pod':
      validatePodSpec(c, o.spec, ['spec'], true);
      break;
    case 'apps/Deployment':
    case 'apps/ReplicaSet':
    case 'apps/StatefulSet':
      for (const f of ['replicas', 'minReadySeconds', 'revisionHistoryLimit']) c.nonNegative(['spec'], f, spec[f]);
      validateSelectorMatches(c, spec, ['spec'], true);
      validatePodTemplate(c, spec.template, ['spec', 'template']);
      break;
    case 'apps/DaemonSet':
      for (const f of ['minReadySeconds', 'revisionHistoryLimit']) c.nonNegative(['spec'], f, spec[f]);
      validateSelectorMatches(c, spec, ['spec'], true);
      validatePodTemplate(c, spec.template, ['spec', 'template']);
      break;
    case 'batch/Job':
      validateJobSpec(c, o.spec, ['spec']);
      break;
    case 'batch/CronJob': {
      if (!spec.schedule) c.errs.push(required('spec.schedule'));
      for (const f of ['startingDeadlineSeconds', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit']) c.nonNegative(['spec'], f, spec[f]);
      const name = o.metadata.name ?? '';
      if (Buffer.byteLength(name) > 52) c.errs.push(invalidValue('metadata.name', q(name), 'must be no more than 52 characters'));
      validateJobSpec(c, obj(spec.jobTemplate).spec, ['spec', 'jobTemplate', 'spec']);
      break;
    }
    case '/Service':
      for (const [i, port] of (Array.isArray(spec.ports) ? spec.ports : []).entries()) {
        const pt = obj(port).port;
        if (typeof pt === 'number' && (pt < 1 || pt > 65535)) c.errs.push(invalidValue(fmt(['spec', 'ports', i, 'port']), c.num(['spec', 'ports', i, 'port'], pt), 'must be between 1 and 65535, inclusive'));
      }
      break;
    case '/ConfigMap':
      validateDataMaps(c, o, ['data', 'binaryData']);
      break;
    case '/Secret':
      validateDataMaps(c, o, ['data']);
      // The tokens controller fills the rest; the service account must be named.
      if (o.type === 'kubernetes.io/service-account-token' && !o.metadata.annotations?.['kubernetes.io/service-account.name']) c.errs.push(required('metadata.annotations[kubernetes.io/service-account.name]'));
      break;
    case 'autoscaling/HorizontalPodAutoscaler': {
      const min = spec.minReplicas;
      const max = spec.maxReplicas;
      if (typeof min === 'number' && min < 1) c.errs.push(invalidValue('spec.minReplicas', c.num(['spec', 'minReplicas'], min), 'must be greater than or equal to 1'));
      if (typeof max === 'number' && max < 1) c.errs.push(invalidValue('spec.maxReplicas', c.num(['spec', 'maxReplicas'], max), 'must be greater than 0'));
      else if (typeof max === 'number' && typeof min === 'number' && max < min) c.errs.push(invalidValue('spec.maxReplicas', c.num(['spec', 'maxReplicas'], max), 'must be greater than or equal to `minReplicas`'));
      break;
    }
  }
  return c.errs;
}
