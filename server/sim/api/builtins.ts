/** Built-in resource kinds of the simulated cluster (a Kubernetes 1.32 subset). */

import type { KubeObject } from '../store/object-store.ts';
import { coreEventFields, eventsV1Descriptor } from './events-v1.ts';
import type { ResourceDescriptor } from './registry.ts';

type Fields = Record<string, (obj: KubeObject) => string>;

function str(v: unknown): string {
  return v === undefined || v === null ? '' : String(v);
}

function at(obj: KubeObject, ...path: string[]): unknown {
  let cur: unknown = obj;
  for (const p of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

const podFields: Fields = {
  'spec.nodeName': (o) => str(at(o, 'spec', 'nodeName')),
  'spec.host': (o) => str(at(o, 'spec', 'nodeName')),
  'spec.restartPolicy': (o) => str(at(o, 'spec', 'restartPolicy')),
  'spec.schedulerName': (o) => str(at(o, 'spec', 'schedulerName')),
  'spec.serviceAccountName': (o) => str(at(o, 'spec', 'serviceAccountName')),
  'spec.hostNetwork': (o) => String(at(o, 'spec', 'hostNetwork') === true),
  'status.phase': (o) => str(at(o, 'status', 'phase')),
  'status.podIP': (o) => str(at(o, 'status', 'podIP')),
  'status.podIPs': (o) => str((at(o, 'status', 'podIPs') as Array<{ ip?: string }> | undefined)?.[0]?.ip),
  'status.nominatedNodeName': (o) => str(at(o, 'status', 'nominatedNodeName')),
};

interface Spec {
  group?: string;
  version?: string;
  kind: string;
  plural: string;
  shortNames?: string[];
  cluster?: boolean;
  sub?: string[];
  categories?: string[];
  generation?: boolean;
  fields?: Fields;
  review?: boolean;
}

function builtin(s: Spec): ResourceDescriptor {
  return {
    group: s.group ?? '',
    versions: [s.version ?? 'v1'],
    kind: s.kind,
    listKind: `${s.kind}List`,
    plural: s.plural,
    singular: s.kind.toLowerCase(),
    namespaced: !s.cluster,
    shortNames: s.shortNames ?? [],
    categories: s.categories ?? [],
    subresources: s.sub ?? [],
    builtin: true,
    allowUnconditionalUpdate: true,
    generation: s.generation ?? false,
    fields: s.fields,
    ...(s.review ? { review: true, verbs: ['create'] } : {}),
  };
}

export function builtinResources(): ResourceDescriptor[] {
  const all = ['all'];
  return [
    builtin({ kind: 'Namespace', plural: 'namespaces', shortNames: ['ns'], cluster: true, sub: ['status', 'finalize'], fields: { 'status.phase': (o) => str(at(o, 'status', 'phase')) } }),
    builtin({ kind: 'Node', plural: 'nodes', shortNames: ['no'], cluster: true, sub: ['status'], fields: { 'spec.unschedulable': (o) => String(at(o, 'spec', 'unschedulable') === true) } }),
    builtin({ kind: 'Pod', plural: 'pods', shortNames: ['po'], sub: ['status', 'log', 'proxy'], categories: all, fields: podFields }),
    builtin({ kind: 'Service', plural: 'services', shortNames: ['svc'], sub: ['status', 'proxy'], categories: all, fields: { 'spec.clusterIP': (o) => str(at(o, 'spec', 'clusterIP')), 'spec.type': (o) => str(at(o, 'spec', 'type')) } }),
    builtin({ kind: 'ConfigMap', plural: 'configmaps', shortNames: ['cm'] }),
    builtin({ kind: 'Secret', plural: 'secrets', fields: { type: (o) => str(o.type) } }),
    builtin({ kind: 'ServiceAccount', plural: 'serviceaccounts', shortNames: ['sa'], sub: ['token'] }),
    builtin({ kind: 'Event', plural: 'events', shortNames: ['ev'], fields: coreEventFields() }),
    eventsV1Descriptor(),
    builtin({ kind: 'Endpoints', plural: 'endpoints', shortNames: ['ep'] }),
    builtin({ kind: 'PersistentVolumeClaim', plural: 'persistentvolumeclaims', shortNames: ['pvc'], sub: ['status'] }),
    builtin({ kind: 'PersistentVolume', plural: 'persistentvolumes', shortNames: ['pv'], cluster: true, sub: ['status'] }),
    builtin({ kind: 'ResourceQuota', plural: 'resourcequotas', shortNames: ['quota'], sub: ['status'] }),
    builtin({ group: 'apps', kind: 'Deployment', plural: 'deployments', shortNames: ['deploy'], sub: ['status', 'scale'], categories: all, generation: true }),
    builtin({ group: 'apps', kind: 'ReplicaSet', plural: 'replicasets', shortNames: ['rs'], sub: ['status', 'scale'], categories: all, generation: true }),
    builtin({ group: 'apps', kind: 'StatefulSet', plural: 'statefulsets', shortNames: ['sts'], sub: ['status', 'scale'], categories: all, generation: true }),
    builtin({ group: 'apps', kind: 'DaemonSet', plural: 'daemonsets', shortNames: ['ds'], sub: ['status'], categories: all, generation: true }),
    builtin({ group: 'apps', kind: 'ControllerRevision', plural: 'controllerrevisions' }),
    builtin({ group: 'batch', kind: 'Job', plural: 'jobs', sub: ['status'], categories: all, generation: true }),
    builtin({ group: 'batch', kind: 'CronJob', plural: 'cronjobs', shortNames: ['cj'], sub: ['status'], categories: all, generation: true }),
    builtin({ group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler', plural: 'horizontalpodautoscalers', shortNames: ['hpa'], sub: ['status'], categories: all, generation: true }),
    builtin({ group: 'policy', kind: 'PodDisruptionBudget', plural: 'poddisruptionbudgets', shortNames: ['pdb'], sub: ['status'], generation: true }),
    builtin({ group: 'networking.k8s.io', kind: 'Ingress', plural: 'ingresses', shortNames: ['ing'], sub: ['status'], generation: true }),
    builtin({ group: 'discovery.k8s.io', kind: 'EndpointSlice', plural: 'endpointslices' }),
    builtin({ group: 'coordination.k8s.io', kind: 'Lease', plural: 'leases' }),
    builtin({ group: 'scheduling.k8s.io', kind: 'PriorityClass', plural: 'priorityclasses', shortNames: ['pc'], cluster: true }),
    builtin({ group: 'rbac.authorization.k8s.io', kind: 'Role', plural: 'roles' }),
    builtin({ group: 'rbac.authorization.k8s.io', kind: 'RoleBinding', plural: 'rolebindings' }),
    builtin({ group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', plural: 'clusterroles', cluster: true }),
    builtin({ group: 'rbac.authorization.k8s.io', kind: 'ClusterRoleBinding', plural: 'clusterrolebindings', cluster: true }),
    builtin({ group: 'authentication.k8s.io', kind: 'SelfSubjectReview', plural: 'selfsubjectreviews', cluster: true, review: true }),
    builtin({ group: 'authentication.k8s.io', kind: 'TokenReview', plural: 'tokenreviews', cluster: true, review: true }),
    builtin({ group: 'authorization.k8s.io', kind: 'LocalSubjectAccessReview', plural: 'localsubjectaccessreviews', review: true }),
    builtin({ group: 'authorization.k8s.io', kind: 'SelfSubjectAccessReview', plural: 'selfsubjectaccessreviews', cluster: true, review: true }),
    builtin({ group: 'authorization.k8s.io', kind: 'SelfSubjectRulesReview', plural: 'selfsubjectrulesreviews', cluster: true, review: true }),
    builtin({ group: 'authorization.k8s.io', kind: 'SubjectAccessReview', plural: 'subjectaccessreviews', cluster: true, review: true }),
    builtin({ group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions', shortNames: ['crd', 'crds'], cluster: true, sub: ['status'], generation: true }),
  ];
}

/** Namespaces every cluster starts with (NamespaceLifecycle keeps them). */
export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
