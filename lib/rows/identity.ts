/**
 * Workload identity as kubectl spells it: a kind is named with its API group (`Job.batch`,
 * `Job.batch.volcano.sh`, `JobSet.jobset.x-k8s.io`; core kinds bare: `Pod`), so that two kinds of
 * one name in different groups never share a row id, a page URL, an API path or a CLI argument.
 * Pure; shared by the server (row ids) and the dashboard (links).
 */

export function groupOfApiVersion(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

/** `Kind.group`, or `Kind` for the core group. */
export function kindRef(kind: string, apiVersion: string): string {
  const g = groupOfApiVersion(apiVersion);
  return g ? `${kind}.${g}` : kind;
}

/** Kubernetes' own kinds, by the group that serves them. */
const BUILT_IN_GROUP: Readonly<Record<string, string>> = {
  Pod: '', Service: '', ReplicationController: '',
  Job: 'batch', CronJob: 'batch',
  Deployment: 'apps', StatefulSet: 'apps', DaemonSet: 'apps', ReplicaSet: 'apps',
};

/**
 * A kind as a table shows it: its name, and its group too when the name is also one of Kubernetes'
 * own kinds (Volcano's `Job.batch.volcano.sh`, Knative's `Service.serving.knative.dev`), which a bare
 * `Job` or `Service` would pass for.
 */
export function displayKind(kind: string, apiVersion: string): string {
  const builtIn = BUILT_IN_GROUP[kind];
  return builtIn !== undefined && builtIn !== groupOfApiVersion(apiVersion) ? kindRef(kind, apiVersion) : kind;
}

/** `cluster/namespace/Kind.group/name`; the namespace is `_` for cluster-scoped workloads. */
export function workloadId(w: { cluster: string; namespace: string; kind: string; apiVersion: string; name: string }): string {
  return `${w.cluster}/${w.namespace || '_'}/${kindRef(w.kind, w.apiVersion)}/${w.name}`;
}
