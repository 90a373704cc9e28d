/**
 * Workload definitions in the upstream format: `run.ai/v1alpha1` `Karta` and the older
 * `optimization.nvidia.com/v1alpha1` `ResourceInterface`. Field names are the upstream ones, so a
 * definition written for us loads unchanged in other consumers of the format (KAI Scheduler, Run:ai).
 */

export const KARTA_API_VERSION = 'run.ai/v1alpha1';
export const RESOURCE_INTERFACE_API_VERSION = 'optimization.nvidia.com/v1alpha1';

export interface GroupVersionKind {
  group?: string;
  version?: string;
  kind?: string;
}

export interface FragmentedPodSpecDefinition {
  schedulerNamePath?: string;
  labelsPath?: string;
  annotationsPath?: string;
  resourcesPath?: string;
  resourceClaimsPath?: string;
  podAffinityPath?: string;
  nodeAffinityPath?: string;
  containersPath?: string;
  containerPath?: string;
  priorityClassNamePath?: string;
  imagePath?: string;
}

export interface SpecDefinition {
  podTemplateSpecPath?: string;
  podSpecPath?: string;
  metadataPath?: string;
  fragmentedPodSpecDefinition?: FragmentedPodSpecDefinition;
}

export interface ScaleDefinition {
  replicasPath?: string;
  minReplicasPath?: string;
  maxReplicasPath?: string;
}

export interface PodSelector {
  componentTypeSelector?: { keyPath?: string; value?: string; matchLabels?: Record<string, string> };
  componentInstanceSelector?: { idPath: string };
  replicaSelector?: { keyPath: string };
}

export interface ConditionMatcher {
  type: string;
  status?: string;
  reason?: string;
}

export interface ExpressionMatcher {
  expression: string;
  expectedResult: string;
  /** workload-map extension: `jq` (default, the upstream dialect) or `cel`. */
  language?: 'jq' | 'cel';
}

export interface StatusMatcher {
  byPhase?: string;
  byConditions?: ConditionMatcher[];
  byExpression?: ExpressionMatcher;
}

export type StatusMappingKey =
  | 'initializing'
  | 'running'
  | 'completed'
  | 'failed'
  | 'degraded'
  | 'suspended'
  | 'suspending'
  | 'resuming';

export interface StatusDefinition {
  phaseDefinition?: { path: string };
  conditionsDefinition?: {
    path: string;
    typeFieldName?: string;
    statusFieldName?: string;
    messageFieldName?: string | null;
    reasonFieldName?: string | null;
  };
  statusMappings: Partial<Record<StatusMappingKey, StatusMatcher[]>>;
}

export interface SuspendAction {
  path: string;
  /** JSON-encoded value, e.g. `"true"`, `"\"paused\""`. */
  value: string;
}

export interface SuspendDefinition {
  suspendActions: SuspendAction[];
  resumeActions: SuspendAction[];
}

export interface ComponentDefinition {
  name: string;
  kind?: GroupVersionKind;
  ownerRef?: string;
  specDefinition?: SpecDefinition;
  scaleDefinition?: ScaleDefinition;
  statusDefinition?: StatusDefinition;
  instanceIdPath?: string;
  podSelector?: PodSelector;
  suspendDefinition?: SuspendDefinition;
}

export interface TopologyDefinition {
  topologyName?: string;
  preferredTopologyLevel?: string;
  requiredTopologyLevel?: string;
}

export interface PodGroupMember {
  componentName: string;
  groupByKeyPaths?: string[];
  filters?: string[];
}

export interface GangScheduling {
  podGroups?: Array<{ name: string; members: PodGroupMember[] }>;
  podGroup?: {
    name: string;
    subGroups?: Array<{ componentName: string; topology?: TopologyDefinition }>;
    topology?: TopologyDefinition;
  };
}

export interface DefinitionSpec {
  structureDefinition: {
    rootComponent: ComponentDefinition;
    childComponents?: ComponentDefinition[];
    additionalChildKinds?: GroupVersionKind[];
  };
  optimizationInstructions?: { gangScheduling?: GangScheduling };
}

/** A definition as loaded: the document plus where it came from. */
export interface Definition {
  apiVersion: typeof KARTA_API_VERSION | typeof RESOURCE_INTERFACE_API_VERSION;
  kind: 'Karta' | 'ResourceInterface';
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string>; uid?: string; resourceVersion?: string };
  spec: DefinitionSpec;
}
