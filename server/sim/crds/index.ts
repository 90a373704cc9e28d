/**
 * CustomResourceDefinitions installed when the simulated cluster starts: the AI frameworks the catalog
 * covers, KAI's PodGroup and the definition kinds (Karta, ResourceInterface). Names, scopes, short
 * names, served versions and printer columns follow the upstream CRDs (see reference/frameworks.md).
 * Schemas: the API server validates and prunes custom resources against them (api/validation/schema.ts).
 * Most CRDs here keep a schema that accepts anything (`x-kubernetes-preserve-unknown-fields` at the
 * root); JobSet carries the upstream schema of the fields its controller reads (jobset.x-k8s.io_jobsets.yaml
 * of kubernetes-sigs/jobset), with unknown fields kept where the upstream schema spells out more than
 * the simulator needs (the pod template, status). The Karta CRD is the one the product ships
 * (deploy/crds/kartas.run.ai.yaml, upstream's schema), read from that file so the two cannot drift;
 * an older variant of it and its absence are start options (SimOptions.kartaCrd).
 */

import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { KubeObject } from '../store/object-store.ts';

interface Column {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  priority?: number;
  description?: string;
}

interface VersionSpec {
  name: string;
  storage?: boolean;
  columns?: Column[];
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  deprecated?: boolean;
}

interface CrdSpec {
  group: string;
  kind: string;
  plural: string;
  singular?: string;
  shortNames?: string[];
  categories?: string[];
  scope?: 'Namespaced' | 'Cluster';
  versions: VersionSpec[];
  /** openAPIV3Schema of every version (default: anything goes). */
  schema?: Record<string, unknown>;
}

const PRESERVE = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
const int32 = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ type: 'integer', format: 'int32', ...extra });
const str = { type: 'string' };
const enumOf = (...values: string[]): Record<string, unknown> => ({ type: 'string', enum: values });

/**
 * The upstream JobSet v1alpha2 schema for the fields the simulated controller reads (types, minimum,
 * enums, required, list keys, maxItems as kubernetes-sigs/jobset declares them). As upstream, `replicas`
 * is an int32 with `minimum: 0` — which the API server does not range-check (int32 is not a format it
 * validates), so the JobSet controller bounds what it creates (controllers/limits.ts).
 */
export const JOBSET_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    apiVersion: str,
    kind: str,
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: {
        replicatedJobs: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name', 'template'],
            properties: {
              name: str,
              groupName: str,
              replicas: int32({ minimum: 0 }),
              template: PRESERVE,
              dependsOn: {
                type: 'array',
                maxItems: 5,
                'x-kubernetes-list-type': 'map',
                'x-kubernetes-list-map-keys': ['name'],
                items: { type: 'object', required: ['name', 'status'], properties: { name: str, status: enumOf('Ready', 'Complete') } },
              },
            },
          },
        },
        suspend: { type: 'boolean' },
        managedBy: str,
        ttlSecondsAfterFinished: int32({ minimum: 0 }),
        startupPolicy: { type: 'object', required: ['startupPolicyOrder'], properties: { startupPolicyOrder: enumOf('AnyOrder', 'InOrder') } },
        successPolicy: { type: 'object', required: ['operator'], properties: { operator: enumOf('All', 'Any'), targetReplicatedJobs: { type: 'array', items: str, 'x-kubernetes-list-type': 'atomic' } } },
        failurePolicy: {
          type: 'object',
          properties: {
            maxRestarts: int32(),
            restartStrategy: enumOf('Recreate', 'BlockingRecreate', 'InPlaceRestart'),
            rules: { type: 'array', items: { type: 'object', required: ['action', 'name'], 'x-kubernetes-preserve-unknown-fields': true, properties: { name: str, action: str } } },
          },
        },
        network: { type: 'object', properties: { enableDNSHostnames: { type: 'boolean' }, subdomain: str, publishNotReadyAddresses: { type: 'boolean' } } },
        coordinator: { type: 'object', required: ['replicatedJob'], properties: { replicatedJob: str, jobIndex: { type: 'integer' }, podIndex: { type: 'integer' } } },
      },
    },
    status: PRESERVE,
  },
};

const age: Column = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };
/** The Kubeflow jobs' State column: the newest condition's type. */
const lastConditionState: Column = { name: 'State', type: 'string', jsonPath: '.status.conditions[-1:].type' };
const ready = (cond = 'Ready'): Column => ({ name: 'Ready', type: 'string', jsonPath: `.status.conditions[?(@.type=="${cond}")].status` });

export function crd(s: CrdSpec): KubeObject {
  const versions = s.versions.map((v, i) => {
    const out: Record<string, unknown> = {
      name: v.name,
      served: true,
      storage: v.storage ?? (s.versions.length === 1 || i === 0),
      schema: { openAPIV3Schema: s.schema ?? PRESERVE },
      subresources: { status: {}, ...(v.scale ? { scale: v.scale } : {}) },
    };
    if (v.columns) out.additionalPrinterColumns = v.columns;
    if (v.deprecated) out.deprecated = true;
    return out;
  });
  const names: Record<string, unknown> = { kind: s.kind, listKind: `${s.kind}List`, plural: s.plural, singular: s.singular ?? s.kind.toLowerCase() };
  if (s.shortNames) names.shortNames = s.shortNames;
  if (s.categories) names.categories = s.categories;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${s.plural}.${s.group}`, labels: { 'app.kubernetes.io/managed-by': 'wmap-sim' } },
    spec: { group: s.group, names, scope: s.scope ?? 'Namespaced', versions, conversion: { strategy: 'None' } },
  };
}

const rayClusterColumns: Column[] = [
  { name: 'desired workers', type: 'integer', jsonPath: '.status.desiredWorkerReplicas' },
  { name: 'available workers', type: 'integer', jsonPath: '.status.availableWorkerReplicas' },
  { name: 'cpus', type: 'string', jsonPath: '.status.desiredCPU' },
  { name: 'memory', type: 'string', jsonPath: '.status.desiredMemory' },
  { name: 'gpus', type: 'string', jsonPath: '.status.desiredGPU' },
  { name: 'tpus', type: 'string', jsonPath: '.status.desiredTPU', priority: 1 },
  { name: 'status', type: 'string', jsonPath: '.status.state' },
  age,
  { name: 'head pod IP', type: 'string', jsonPath: '.status.head.podIP', priority: 1 },
  { name: 'head service IP', type: 'string', jsonPath: '.status.head.serviceIP', priority: 1 },
];

const rayJobColumns: Column[] = [
  { name: 'job status', type: 'string', jsonPath: '.status.jobStatus' },
  { name: 'deployment status', type: 'string', jsonPath: '.status.jobDeploymentStatus' },
  { name: 'ray cluster name', type: 'string', jsonPath: '.status.rayClusterName' },
  { name: 'start time', type: 'string', jsonPath: '.status.startTime' },
  { name: 'end time', type: 'string', jsonPath: '.status.endTime' },
  age,
];

const rayServiceColumns: Column[] = [
  { name: 'service status', type: 'string', jsonPath: '.status.serviceStatus' },
  { name: 'num serve endpoints', type: 'string', jsonPath: '.status.numServeEndpoints' },
];

const knativeReady: Column[] = [
  { name: 'Ready', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].status" },
  { name: 'Reason', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].reason" },
];

const definitionColumns: Column[] = [
  { name: 'Framework', type: 'string', jsonPath: '.spec.structureDefinition.rootComponent.kind.kind' },
  { name: 'Root Component', type: 'string', jsonPath: '.spec.structureDefinition.rootComponent.name' },
  age,
];

/** Which Karta CRD a simulated cluster has: the shipped one, an older upstream one, or none. */
export type KartaCrdVariant = 'current' | 'older' | 'none';

/** deploy/crds/kartas.run.ai.yaml, from the repository (or WMAP_KARTA_CRD, as the product reads it). */
function shippedKartaCrdFile(): string {
  if (process.env.WMAP_KARTA_CRD) return resolve(process.env.WMAP_KARTA_CRD);
  const fromModule = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', '..', 'deploy', 'crds', 'kartas.run.ai.yaml');
  return existsSync(fromModule) ? fromModule : resolve(process.cwd(), 'deploy', 'crds', 'kartas.run.ai.yaml');
}

let shipped: KubeObject | undefined;

/** Every node of a schema, depth first (properties, items, additionalProperties). */
function* schemaNodes(node: Record<string, unknown>): Generator<Record<string, unknown>> {
  yield node;
  for (const child of Object.values((node.properties ?? {}) as Record<string, Record<string, unknown>>)) yield* schemaNodes(child);
  if (node.items && typeof node.items === 'object') yield* schemaNodes(node.items as Record<string, unknown>);
  if (node.additionalProperties && typeof node.additionalProperties === 'object') yield* schemaNodes(node.additionalProperties as Record<string, unknown>);
}

/**
 * The Karta CRD as Karta v0.1.x shipped it (run-ai/karta charts/karta/crds/run.ai_kartas.yaml
 * @02699006), derived from the current one by undoing what changed since: no `podGroup` (the alpha
 * `podGroups` required), no `componentTypeSelector.matchLabels` (its `keyPath` required, no CEL
 * rules), and a suspend action's `value` as raw JSON (`x-kubernetes-preserve-unknown-fields`) instead
 * of a JSON-encoded string.
 */
function olderKartaCrd(current: KubeObject): KubeObject {
  const crd = structuredClone(current);
  const schema = ((crd.spec as { versions: Array<{ schema: { openAPIV3Schema: Record<string, unknown> } }> }).versions[0].schema.openAPIV3Schema);
  for (const node of schemaNodes(schema)) {
    const props = node.properties as Record<string, Record<string, unknown>> | undefined;
    if (!props) continue;
    if (props.podGroups && props.podGroup) {
      delete props.podGroup;
      node.required = ['podGroups'];
    }
    if (props.matchLabels && props.keyPath) {
      delete props.matchLabels;
      delete node['x-kubernetes-validations'];
      delete props.keyPath.minLength;
      node.required = ['keyPath'];
    }
    if (props.path && props.value && Array.isArray(node.required) && node.required.includes('value')) {
      props.value = { description: 'The raw JSON value to assign.', 'x-kubernetes-preserve-unknown-fields': true };
    }
  }
  return crd;
}

/** The Karta CRD of a variant (a fresh copy each time); undefined for 'none'. */
export function kartaCrd(variant: KartaCrdVariant = 'current'): KubeObject | undefined {
  if (variant === 'none') return undefined;
  shipped ??= parse(readFileSync(shippedKartaCrdFile(), 'utf8')) as KubeObject;
  const crd = variant === 'older' ? olderKartaCrd(shipped) : structuredClone(shipped);
  crd.metadata = { ...crd.metadata, labels: { ...(crd.metadata.labels ?? {}), 'app.kubernetes.io/managed-by': 'wmap-sim' } };
  return crd;
}

export function frameworkCrds(options: { karta?: KartaCrdVariant } = {}): KubeObject[] {
  const karta = kartaCrd(options.karta ?? 'current');
  return [
    crd({
      group: 'jobset.x-k8s.io', kind: 'JobSet', plural: 'jobsets', schema: JOBSET_SCHEMA,
      versions: [{ name: 'v1alpha2', columns: [
        { name: 'TerminalState', type: 'string', jsonPath: '.status.terminalState', description: 'Final state of JobSet' },
        { name: 'Restarts', type: 'string', jsonPath: '.status.restarts', description: 'Number of restarts' },
        { name: 'Completed', type: 'string', jsonPath: '.status.conditions[?(@.type=="Completed")].status' },
        { name: 'Suspended', type: 'string', jsonPath: '.spec.suspend', description: 'JobSet suspended' },
        age,
      ] }],
    }),
    crd({
      group: 'kubeflow.org', kind: 'PyTorchJob', plural: 'pytorchjobs',
      versions: [{ name: 'v1', columns: [lastConditionState, age], scale: { specReplicasPath: '.spec.pytorchReplicaSpecs.Worker.replicas', statusReplicasPath: '.status.replicaStatuses.Worker.active', labelSelectorPath: '.status.replicaStatuses.Worker.selector' } }],
    }),
    // The other kinds of the training operator v1 (manifests/base/crds of release-1.9): the State column,
    // no short names; JAXJob and PaddleJob scale their Workers, TFJob and XGBoostJob have no scale subresource.
    ...(['TFJob', 'XGBoostJob', 'JAXJob', 'PaddleJob'] as const).map((kind) => {
      const field = { TFJob: 'tfReplicaSpecs', XGBoostJob: 'xgbReplicaSpecs', JAXJob: 'jaxReplicaSpecs', PaddleJob: 'paddleReplicaSpecs' }[kind];
      const scale = kind === 'JAXJob' || kind === 'PaddleJob'
        ? { specReplicasPath: `.spec.${field}.Worker.replicas`, statusReplicasPath: '.status.replicaStatuses.Worker.active', labelSelectorPath: '.status.replicaStatuses.Worker.selector' }
        : undefined;
      return crd({ group: 'kubeflow.org', kind, plural: `${kind.toLowerCase()}s`, versions: [{ name: 'v1', columns: [lastConditionState, age], ...(scale ? { scale } : {}) }] });
    }),
    crd({ group: 'kubeflow.org', kind: 'MPIJob', plural: 'mpijobs', versions: [{ name: 'v2beta1' }] }),
    // Kubeflow Trainer v2 (manifests/base/crds of kubeflow/trainer v2.3.0): the TrainJob's State column is
    // its newest condition; the runtimes have no columns, ClusterTrainingRuntime is cluster-scoped.
    crd({ group: 'trainer.kubeflow.org', kind: 'TrainJob', plural: 'trainjobs', singular: 'trainjob', versions: [{ name: 'v1alpha1', columns: [lastConditionState, age] }] }),
    crd({ group: 'trainer.kubeflow.org', kind: 'TrainingRuntime', plural: 'trainingruntimes', singular: 'trainingruntime', versions: [{ name: 'v1alpha1' }] }),
    crd({ group: 'trainer.kubeflow.org', kind: 'ClusterTrainingRuntime', plural: 'clustertrainingruntimes', singular: 'clustertrainingruntime', scope: 'Cluster', versions: [{ name: 'v1alpha1' }] }),
    crd({ group: 'ray.io', kind: 'RayCluster', plural: 'rayclusters', categories: ['all'], versions: [{ name: 'v1', storage: true, columns: rayClusterColumns }, { name: 'v1alpha1', storage: false, columns: rayClusterColumns, deprecated: true }] }),
    crd({ group: 'ray.io', kind: 'RayJob', plural: 'rayjobs', categories: ['all'], versions: [{ name: 'v1', storage: true, columns: rayJobColumns }, { name: 'v1alpha1', storage: false, columns: rayJobColumns, deprecated: true }] }),
    crd({ group: 'ray.io', kind: 'RayService', plural: 'rayservices', categories: ['all'], versions: [{ name: 'v1', storage: true, columns: rayServiceColumns }, { name: 'v1alpha1', storage: false, columns: rayServiceColumns, deprecated: true }] }),
    crd({
      group: 'serving.kserve.io', kind: 'InferenceService', plural: 'inferenceservices', shortNames: ['isvc'],
      versions: [{ name: 'v1beta1', columns: [
        { name: 'URL', type: 'string', jsonPath: '.status.url' },
        { name: 'Ready', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].status" },
        { name: 'Prev', type: 'integer', jsonPath: ".status.components.predictor.traffic[?(@.tag=='prev')].percent" },
        { name: 'Latest', type: 'integer', jsonPath: '.status.components.predictor.traffic[?(@.latestRevision==true)].percent' },
        { name: 'PrevRolledoutRevision', type: 'string', jsonPath: ".status.components.predictor.traffic[?(@.tag=='prev')].revisionName", priority: 1 },
        { name: 'LatestReadyRevision', type: 'string', jsonPath: '.status.components.predictor.traffic[?(@.latestRevision==true)].revisionName', priority: 1 },
        age,
      ] }],
    }),
    // KServe's LLMInferenceService: v1alpha2 is the storage version, v1alpha1 is converted by webhook upstream;
    // here both serve the one stored object (the fields the simulation uses are the same in both).
    crd({
      group: 'serving.kserve.io', kind: 'LLMInferenceService', plural: 'llminferenceservices', shortNames: ['llmisvc'],
      versions: (['v1alpha2', 'v1alpha1'] as const).map((name) => ({ name, storage: name === 'v1alpha2', columns: [
        { name: 'URL', type: 'string' as const, jsonPath: '.status.url' },
        ready(),
        { name: 'Reason', type: 'string' as const, jsonPath: ".status.conditions[?(@.type=='Ready')].reason" },
        age,
        { name: 'URLs', type: 'string' as const, jsonPath: '.status.addresses[*].url', priority: 1 },
      ] })),
    }),
    // Agent Sandbox (kubernetes-sigs/agent-sandbox): v1beta1 stored, v1alpha1 served from it (upstream converts
    // by webhook: v1alpha1's replicas 0/1 is v1beta1's operatingMode Suspended/Running).
    crd({
      group: 'agents.x-k8s.io', kind: 'Sandbox', plural: 'sandboxes', singular: 'sandbox', shortNames: ['sandbox'],
      versions: (['v1beta1', 'v1alpha1'] as const).map((name) => ({ name, storage: name === 'v1beta1', columns: [
        ready(),
        { name: 'Reason', type: 'string' as const, jsonPath: ".status.conditions[?(@.type=='Ready')].reason" },
        age,
      ] })),
    }),
    crd({
      group: 'serving.knative.dev', kind: 'Service', plural: 'services', shortNames: ['kservice', 'ksvc'], categories: ['all', 'knative', 'serving'],
      versions: [{ name: 'v1', columns: [
        { name: 'URL', type: 'string', jsonPath: '.status.url' },
        { name: 'LatestCreated', type: 'string', jsonPath: '.status.latestCreatedRevisionName' },
        { name: 'LatestReady', type: 'string', jsonPath: '.status.latestReadyRevisionName' },
        ...knativeReady,
      ] }],
    }),
    crd({
      group: 'serving.knative.dev', kind: 'Configuration', plural: 'configurations', shortNames: ['config', 'cfg'], categories: ['all', 'knative', 'serving'],
      versions: [{ name: 'v1', columns: [
        { name: 'LatestCreated', type: 'string', jsonPath: '.status.latestCreatedRevisionName' },
        { name: 'LatestReady', type: 'string', jsonPath: '.status.latestReadyRevisionName' },
        ...knativeReady,
      ] }],
    }),
    crd({
      group: 'serving.knative.dev', kind: 'Revision', plural: 'revisions', shortNames: ['rev'], categories: ['all', 'knative', 'serving'],
      versions: [{ name: 'v1', columns: [
        { name: 'Config Name', type: 'string', jsonPath: ".metadata.labels['serving\\.knative\\.dev/configuration']" },
        { name: 'Generation', type: 'string', jsonPath: ".metadata.labels['serving\\.knative\\.dev/configurationGeneration']" },
        ...knativeReady,
        { name: 'Actual Replicas', type: 'integer', jsonPath: '.status.actualReplicas' },
        { name: 'Desired Replicas', type: 'integer', jsonPath: '.status.desiredReplicas' },
      ] }],
    }),
    crd({
      group: 'serving.knative.dev', kind: 'Route', plural: 'routes', shortNames: ['rt'], categories: ['all', 'knative', 'serving'],
      versions: [{ name: 'v1', columns: [{ name: 'URL', type: 'string', jsonPath: '.status.url' }, ...knativeReady] }],
    }),
    crd({ group: 'apps.nvidia.com', kind: 'NIMService', plural: 'nimservices', versions: [{ name: 'v1alpha1', columns: [{ name: 'Status', type: 'string', jsonPath: '.status.state' }, age] }] }),
    crd({ group: 'apps.nvidia.com', kind: 'NIMCache', plural: 'nimcaches', versions: [{ name: 'v1alpha1', columns: [{ name: 'Status', type: 'string', jsonPath: '.status.state' }, { name: 'PVC', type: 'string', jsonPath: '.status.pvc' }, age] }] }),
    // Kubeflow Spark operator v2.5 (api/v1beta2): short name sparkapp, the state machine's columns.
    crd({
      group: 'sparkoperator.k8s.io', kind: 'SparkApplication', plural: 'sparkapplications', singular: 'sparkapplication', shortNames: ['sparkapp'],
      versions: [{ name: 'v1beta2', columns: [
        { name: 'Suspend', type: 'boolean', jsonPath: '.spec.suspend' },
        { name: 'Status', type: 'string', jsonPath: '.status.applicationState.state' },
        { name: 'Attempts', type: 'string', jsonPath: '.status.executionAttempts' },
        { name: 'Start', type: 'string', jsonPath: '.status.lastSubmissionAttemptTime' },
        { name: 'Finish', type: 'string', jsonPath: '.status.terminationTime' },
        age,
      ] }],
    }),
    crd({
      group: 'leaderworkerset.x-k8s.io', kind: 'LeaderWorkerSet', plural: 'leaderworkersets', shortNames: ['lws'],
      versions: [{ name: 'v1', columns: [
        { name: 'Ready', type: 'integer', jsonPath: '.status.readyReplicas' },
        { name: 'Desired', type: 'integer', jsonPath: '.spec.replicas' },
        { name: 'Up-to-date', type: 'integer', jsonPath: '.status.updatedReplicas' },
        age,
      ], scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.hpaPodSelector' } }],
    }),
    crd({
      group: 'milvus.io', kind: 'Milvus', plural: 'milvuses', singular: 'milvus', shortNames: ['mi'],
      versions: [{ name: 'v1beta1', columns: [
        { name: 'Mode', type: 'string', jsonPath: '.spec.mode' },
        { name: 'Status', type: 'string', jsonPath: '.status.status' },
        { name: 'Updated', type: 'string', jsonPath: '.status.conditions[?(@.type=="MilvusUpdated")].status' },
        age,
      ] }],
    }),
    crd({
      group: 'grove.io', kind: 'PodCliqueSet', plural: 'podcliquesets', shortNames: ['pcs'],
      versions: [{ name: 'v1alpha1', columns: [
        { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
        { name: 'Available', type: 'integer', jsonPath: '.status.availableReplicas' },
        { name: 'Updated', type: 'integer', jsonPath: '.status.updatedReplicas' },
        age,
      ], scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } }],
    }),
    crd({
      group: 'grove.io', kind: 'PodClique', plural: 'podcliques', shortNames: ['pclq'],
      versions: [{ name: 'v1alpha1', columns: [
        { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
        { name: 'Ready', type: 'integer', jsonPath: '.status.readyReplicas' },
        age,
      ], scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } }],
    }),
    crd({
      group: 'grove.io', kind: 'PodCliqueScalingGroup', plural: 'podcliquescalinggroups', shortNames: ['pcsg'],
      versions: [{ name: 'v1alpha1', columns: [
        { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
        { name: 'Available', type: 'integer', jsonPath: '.status.availableReplicas' },
        age,
      ], scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } }],
    }),
    crd({ group: 'scheduler.grove.io', kind: 'PodGang', plural: 'podgangs', shortNames: ['pg'], versions: [{ name: 'v1alpha1' }] }),
    crd({
      // Both versions serve one storage without conversion (the real operator converts by webhook;
      // the fields the simulation uses are the same in both).
      group: 'nvidia.com', kind: 'DynamoGraphDeployment', plural: 'dynamographdeployments', shortNames: ['dgd'],
      versions: [
        { name: 'v1beta1', storage: true, columns: [ready(), { name: 'Backend', type: 'string', jsonPath: '.spec.backendFramework' }, age] },
        { name: 'v1alpha1', storage: false, columns: [ready(), { name: 'Backend', type: 'string', jsonPath: '.spec.backendFramework' }, age] },
      ],
    }),
    crd({ group: 'nvidia.com', kind: 'DynamoComponentDeployment', plural: 'dynamocomponentdeployments', shortNames: ['dcd'], versions: [{ name: 'v1alpha1', columns: [ready('Available'), { name: 'Component', type: 'string', jsonPath: '.spec.componentType' }, age] }] }),
    crd({
      // project-codeflare/appwrapper config/crd (v1.2): short name aw, the Kueue-facing columns.
      group: 'workload.codeflare.dev', kind: 'AppWrapper', plural: 'appwrappers', shortNames: ['aw'],
      versions: [{ name: 'v1beta2', columns: [
        { name: 'Status', type: 'string', jsonPath: '.status.phase' },
        { name: 'Quota Reserved', type: 'string', jsonPath: '.status.conditions[?(@.type=="QuotaReserved")].status' },
        { name: 'Resources Deployed', type: 'string', jsonPath: '.status.conditions[?(@.type=="ResourcesDeployed")].status' },
        { name: 'Unhealthy', type: 'string', jsonPath: '.status.conditions[?(@.type=="Unhealthy")].status' },
        age,
      ] }],
    }),
    // Volcano (volcano-sh/apis): the batch Job (short names vcjob, vj) and the scheduler's PodGroup.
    crd({
      group: 'batch.volcano.sh', kind: 'Job', plural: 'jobs', shortNames: ['vcjob', 'vj'],
      versions: [{ name: 'v1alpha1', columns: [
        { name: 'STATUS', type: 'string', jsonPath: '.status.state.phase' },
        { name: 'minAvailable', type: 'integer', jsonPath: '.status.minAvailable' },
        { name: 'RUNNINGS', type: 'integer', jsonPath: '.status.running' },
        { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        { name: 'QUEUE', type: 'string', jsonPath: '.spec.queue', priority: 1 },
      ] }],
    }),
    crd({
      group: 'scheduling.volcano.sh', kind: 'PodGroup', plural: 'podgroups', shortNames: ['pg', 'podgroup-v1beta1'],
      versions: [{ name: 'v1beta1', columns: [
        { name: 'STATUS', type: 'string', jsonPath: '.status.phase' },
        { name: 'MINMEMBER', type: 'integer', jsonPath: '.spec.minMember' },
        { name: 'RUNNINGS', type: 'integer', jsonPath: '.status.running' },
        { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        { name: 'QUEUE', type: 'string', jsonPath: '.spec.queue', priority: 1 },
      ] }],
    }),
    crd({ group: 'scheduling.run.ai', kind: 'PodGroup', plural: 'podgroups', versions: [{ name: 'v2alpha2', columns: [{ name: 'MinMember', type: 'integer', jsonPath: '.spec.minMember' }, { name: 'Queue', type: 'string', jsonPath: '.spec.queue' }, age] }] }),
    ...(karta ? [karta] : []),
    crd({ group: 'optimization.nvidia.com', kind: 'ResourceInterface', plural: 'resourceinterfaces', shortNames: ['ri'], scope: 'Cluster', versions: [{ name: 'v1alpha1', columns: definitionColumns }] }),
  ];
}
