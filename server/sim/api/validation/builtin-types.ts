/**
 * The Go types behind the built-in kinds the simulator serves, as far as decoding needs them (pure):
 * which fields are int32, int64, bool, string, maps, lists, resource.Quantity or IntOrString, and the
 * Go struct that holds each field. The real server decodes a body into these types before anything
 * else, so a string in `spec.replicas`, `1e15` in an int32 or `abc` as a quantity is a 400 BadRequest
 * with the decoder's message (sigs.k8s.io/json: "json: cannot unmarshal number 1e15 into Go struct
 * field DeploymentSpec.spec.replicas of type int32"). Fields not listed are not checked (and, unlike
 * the real decoder, not dropped).
 */

import { isPlainObject } from '../../store/object-utils.ts';
import type { NumberLiterals } from '../json-scan.ts';
import { pathKey } from '../json-scan.ts';
import { jsonKindOf } from './go-format.ts';
import { parseQuantity } from './quantity.ts';

export type GoType =
  | { t: 'int32' | 'int64' | 'bool' | 'string' | 'float64' | 'quantity' | 'intOrString' | 'bytes' | 'any' }
  | { t: 'struct'; name: string; fields: () => Record<string, GoType> }
  | { t: 'slice'; of: GoType }
  | { t: 'map'; of: GoType };

const int32: GoType = { t: 'int32' };
const int64: GoType = { t: 'int64' };
const bool: GoType = { t: 'bool' };
const string: GoType = { t: 'string' };
const quantity: GoType = { t: 'quantity' };
const intOrString: GoType = { t: 'intOrString' };
const bytes: GoType = { t: 'bytes' };
const any: GoType = { t: 'any' };
const struct = (name: string, fields: () => Record<string, GoType>): GoType => ({ t: 'struct', name, fields });
const slice = (of: GoType): GoType => ({ t: 'slice', of });
const map = (of: GoType): GoType => ({ t: 'map', of });

const stringMap = map(string);
const resourceList = map(quantity);

const ownerReference = struct('OwnerReference', () => ({ apiVersion: string, kind: string, name: string, uid: string, controller: bool, blockOwnerDeletion: bool }));
export const objectMeta = struct('ObjectMeta', () => ({
  name: string, generateName: string, namespace: string, uid: string, resourceVersion: string, generation: int64,
  labels: stringMap, annotations: stringMap, finalizers: slice(string), ownerReferences: slice(ownerReference),
  deletionGracePeriodSeconds: int64,
}));
const labelSelector = struct('LabelSelector', () => ({ matchLabels: stringMap, matchExpressions: slice(struct('LabelSelectorRequirement', () => ({ key: string, operator: string, values: slice(string) }))) }));
const resources = struct('ResourceRequirements', () => ({ limits: resourceList, requests: resourceList }));
const containerPort = struct('ContainerPort', () => ({ name: string, hostPort: int32, containerPort: int32, protocol: string, hostIP: string }));
const envVar = struct('EnvVar', () => ({ name: string, value: string }));
const probe = struct('Probe', () => ({ initialDelaySeconds: int32, timeoutSeconds: int32, periodSeconds: int32, successThreshold: int32, failureThreshold: int32, terminationGracePeriodSeconds: int64 }));
const container = struct('Container', () => ({
  name: string, image: string, command: slice(string), args: slice(string), workingDir: string, ports: slice(containerPort), env: slice(envVar),
  resources, imagePullPolicy: string, livenessProbe: probe, readinessProbe: probe, startupProbe: probe, stdin: bool, tty: bool,
}));
const toleration = struct('Toleration', () => ({ key: string, operator: string, value: string, effect: string, tolerationSeconds: int64 }));
const podSpec = struct('PodSpec', () => ({
  containers: slice(container), initContainers: slice(container), restartPolicy: string, terminationGracePeriodSeconds: int64,
  activeDeadlineSeconds: int64, dnsPolicy: string, nodeSelector: stringMap, serviceAccountName: string, nodeName: string,
  hostNetwork: bool, hostname: string, subdomain: string, schedulerName: string, tolerations: slice(toleration),
  priorityClassName: string, priority: int32, overhead: resourceList, enableServiceLinks: bool,
}));
const podTemplateSpec = struct('PodTemplateSpec', () => ({ metadata: objectMeta, spec: podSpec }));
const jobSpec = struct('JobSpec', () => ({
  parallelism: int32, completions: int32, activeDeadlineSeconds: int64, backoffLimit: int32, backoffLimitPerIndex: int32,
  maxFailedIndexes: int32, selector: labelSelector, manualSelector: bool, template: podTemplateSpec, ttlSecondsAfterFinished: int32,
  completionMode: string, suspend: bool, podReplacementPolicy: string, managedBy: string,
}));
const jobTemplateSpec = struct('JobTemplateSpec', () => ({ metadata: objectMeta, spec: jobSpec }));

const kindSpecs: Record<string, Record<string, GoType>> = {
  '/Pod': { spec: podSpec, status: struct('PodStatus', () => ({ phase: string, podIP: string, hostIP: string, qosClass: string })) },
  '/ConfigMap': { data: stringMap, binaryData: map(bytes), immutable: bool },
  '/Secret': { data: map(bytes), stringData: stringMap, type: string, immutable: bool },
  '/Service': {
    spec: struct('ServiceSpec', () => ({
      type: string, clusterIP: string, clusterIPs: slice(string), selector: stringMap, publishNotReadyAddresses: bool,
      ports: slice(struct('ServicePort', () => ({ name: string, protocol: string, port: int32, targetPort: intOrString, nodePort: int32 }))),
    })),
  },
  '/Namespace': { spec: struct('NamespaceSpec', () => ({ finalizers: slice(string) })) },
  '/Node': { spec: struct('NodeSpec', () => ({ unschedulable: bool, podCIDR: string })), status: struct('NodeStatus', () => ({ capacity: resourceList, allocatable: resourceList })) },
  '/ResourceQuota': { spec: struct('ResourceQuotaSpec', () => ({ hard: resourceList })) },
  '/PersistentVolumeClaim': { spec: struct('PersistentVolumeClaimSpec', () => ({ accessModes: slice(string), storageClassName: string, resources: struct('VolumeResourceRequirements', () => ({ limits: resourceList, requests: resourceList })) })) },
  'apps/Deployment': {
    spec: struct('DeploymentSpec', () => ({
      replicas: int32, selector: labelSelector, template: podTemplateSpec, minReadySeconds: int32, revisionHistoryLimit: int32,
      paused: bool, progressDeadlineSeconds: int32, strategy: struct('DeploymentStrategy', () => ({ type: string, rollingUpdate: struct('RollingUpdateDeployment', () => ({ maxUnavailable: intOrString, maxSurge: intOrString })) })),
    })),
  },
  'apps/ReplicaSet': { spec: struct('ReplicaSetSpec', () => ({ replicas: int32, minReadySeconds: int32, selector: labelSelector, template: podTemplateSpec })) },
  'apps/StatefulSet': {
    spec: struct('StatefulSetSpec', () => ({
      replicas: int32, selector: labelSelector, template: podTemplateSpec, serviceName: string, podManagementPolicy: string,
      revisionHistoryLimit: int32, minReadySeconds: int32, volumeClaimTemplates: slice(any),
    })),
  },
  'apps/DaemonSet': { spec: struct('DaemonSetSpec', () => ({ selector: labelSelector, template: podTemplateSpec, minReadySeconds: int32, revisionHistoryLimit: int32 })) },
  'apps/ControllerRevision': { revision: int64, data: any },
  'batch/Job': { spec: jobSpec },
  'batch/CronJob': {
    spec: struct('CronJobSpec', () => ({
      schedule: string, timeZone: string, startingDeadlineSeconds: int64, concurrencyPolicy: string, suspend: bool,
      jobTemplate: jobTemplateSpec, successfulJobsHistoryLimit: int32, failedJobsHistoryLimit: int32,
    })),
  },
  'autoscaling/HorizontalPodAutoscaler': { spec: struct('HorizontalPodAutoscalerSpec', () => ({ minReplicas: int32, maxReplicas: int32 })) },
  'policy/PodDisruptionBudget': { spec: struct('PodDisruptionBudgetSpec', () => ({ minAvailable: intOrString, maxUnavailable: intOrString, selector: labelSelector })) },
  'scheduling.k8s.io/PriorityClass': { value: int32, globalDefault: bool, preemptionPolicy: string },
  'coordination.k8s.io/Lease': { spec: struct('LeaseSpec', () => ({ holderIdentity: string, leaseDurationSeconds: int32, leaseTransitions: int32 })) },
  'autoscaling/Scale': { spec: struct('ScaleSpec', () => ({ replicas: int32 })), status: struct('ScaleStatus', () => ({ replicas: int32, selector: string })) },
};

/** The Go type of a built-in kind (`group/Kind`), when the simulator knows it. */
export function goTypeOf(gk: string, kind: string): GoType | undefined {
  const fields = kindSpecs[gk];
  if (!fields) return undefined;
  return struct(kind, () => ({ apiVersion: string, kind: string, metadata: objectMeta, ...fields }));
}

/** Go's reflect name of a type, as the decoder's messages print it. */
function typeName(t: GoType): string {
  switch (t.t) {
    case 'struct':
      return `v1.${t.name}`;
    case 'slice':
      return `[]${typeName(t.of)}`;
    case 'map':
      return `map[string]${typeName(t.of)}`;
    case 'quantity':
      return 'resource.Quantity';
    case 'intOrString':
      return 'intstr.IntOrString';
    case 'bytes':
      return '[]uint8';
    case 'any':
      return 'interface {}';
    default:
      return t.t;
  }
}

/** The decoder's word for a JSON value it cannot store (`number` without its literal). */
function jsonKind(v: unknown): string {
  const k = jsonKindOf(v);
  return k === 'int' || k === 'float' ? 'number' : k;
}

/** A value the decoder cannot store, as a message. */
class DecodeError extends Error {}

/**
 * Decodes a value against a Go type the way encoding/json does, and returns the first error message:
 * type mismatches (the first is kept while decoding goes on) or a custom unmarshaller's error (which
 * stops decoding: resource.Quantity, IntOrString). Undefined when the value decodes.
 */
export function goDecodeError(value: unknown, type: GoType, numbers: NumberLiterals): string | undefined {
  let first: string | undefined;
  const path: Array<string | number> = [];
  const fieldStack: string[] = [];
  let structName = '';
  const literal = (v: number) => numbers.get(pathKey(path)) ?? String(v);
  const typeError = (what: string, t: GoType) => {
    if (first) return;
    first = fieldStack.length > 0 || structName
      ? `json: cannot unmarshal ${what} into Go struct field ${structName}.${fieldStack.join('.')} of type ${typeName(t)}`
      : `json: cannot unmarshal ${what} into Go value of type ${typeName(t)}`;
  };
  const walk = (v: unknown, t: GoType): void => {
    if (v === null || v === undefined || t.t === 'any') return;
    switch (t.t) {
      case 'int32':
      case 'int64': {
        if (typeof v !== 'number') return typeError(jsonKind(v), t);
        const lit = literal(v);
        const bits = t.t === 'int32' ? 31n : 63n;
        if (!/^-?\d+$/.test(lit) || BigInt(lit) >= 2n ** bits || BigInt(lit) < -(2n ** bits)) return typeError(`number ${lit}`, t);
        return;
      }
      case 'float64':
        if (typeof v !== 'number') return typeError(jsonKind(v), t);
        if (!Number.isFinite(v)) return typeError(`number ${literal(v)}`, t);
        return;
      case 'bool':
        if (typeof v !== 'boolean') return typeError(jsonKind(v), t);
        return;
      case 'string':
        if (typeof v !== 'string') return typeError(jsonKind(v), t);
        return;
      case 'bytes':
        if (typeof v !== 'string') return typeError(jsonKind(v), t);
        if (!/^[A-Za-z0-9+/]*={0,2}$/.test(v) || v.length % 4 !== 0) {
          if (!first) first = `illegal base64 data at input byte ${Math.max(0, badBase64At(v))}`;
        }
        return;
      case 'quantity': {
        const text = typeof v === 'string' ? v.trim() : typeof v === 'number' ? literal(v) : JSON.stringify(v);
        const parsed = parseQuantity(text);
        if (typeof parsed === 'string') throw new DecodeError(parsed);
        return;
      }
      case 'intOrString':
        if (typeof v === 'string') return;
        if (typeof v === 'number') {
          const lit = literal(v);
          if (!/^-?\d+$/.test(lit) || BigInt(lit) >= 2n ** 31n || BigInt(lit) < -(2n ** 31n)) throw new DecodeError(`json: cannot unmarshal number ${lit} into Go value of type int32`);
          return;
        }
        throw new DecodeError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type int32`);
      case 'slice':
        if (!Array.isArray(v)) return typeError(jsonKind(v), t);
        for (let i = 0; i < v.length; i++) {
          path.push(i);
          walk(v[i], t.of);
          path.pop();
        }
        return;
      case 'map':
        if (!isPlainObject(v)) return typeError(jsonKind(v), t);
        for (const k of Object.keys(v)) {
          path.push(k);
          walk(v[k], t.of);
          path.pop();
        }
        return;
      case 'struct': {
        if (!isPlainObject(v)) return typeError(jsonKind(v), t);
        const fields = t.fields();
        for (const k of Object.keys(v)) {
          const ft = fields[k];
          if (!ft) continue;
          const savedStruct = structName;
          path.push(k);
          fieldStack.push(k);
          structName = t.name;
          walk(v[k], ft);
          fieldStack.pop();
          path.pop();
          structName = savedStruct;
        }
        return;
      }
    }
  };
  try {
    walk(value, type);
  } catch (e) {
    if (e instanceof DecodeError) return e.message;
    throw e;
  }
  return first;
}

function badBase64At(s: string): number {
  for (let i = 0; i < s.length; i++) if (!/[A-Za-z0-9+/=]/.test(s[i])) return i;
  return s.length - (s.length % 4);
}
