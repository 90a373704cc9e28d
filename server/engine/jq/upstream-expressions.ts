/**
 * Every distinct jq expression that appears in the upstream examples, catalog, Technical Guide and tests
 * (definition-format reference §2.7), with `{a,b}` shorthands expanded. Used by the differential and the
 * validation tests.
 */
const dynamoTails = [
  '.extraPodSpec.schedulerName', '.labels', '.annotations', '.resources', '.extraPodSpec.resourceClaims',
  '.extraPodSpec.affinity.podAffinity', '.extraPodSpec.affinity.nodeAffinity', '.extraPodSpec.mainContainer',
  '.extraPodSpec.priorityClassName', '.extraPodSpec.mainContainer.image',
  '.autoscaling.minReplicas', '.autoscaling.maxReplicas',
];

const milvusComponents = [
  'standalone', 'proxy', 'mixCoord', 'dataNode', 'queryNode', 'streamingNode', 'indexNode', 'rootCoord', 'dataCoord',
  'queryCoord', 'indexCoord', 'cdc',
];
const milvusFields = [
  'schedulerName', 'podLabels', 'podAnnotations', 'resources', 'affinity.podAffinity', 'affinity.nodeAffinity',
  'priorityClassName', 'replicas',
];

const groveSelect =
  '.spec.template as $t | $t.cliques[] | select(.name as $n | ([$t.podCliqueScalingGroups[]?.cliqueNames[]?] | index($n) | not))';
const groveTails = [
  '.name', '.spec.autoScalingConfig.minReplicas', '.spec.autoScalingConfig.maxReplicas', '.labels', '.annotations',
  '.spec.podSpec.containers', '.spec.podSpec.schedulerName', '.spec.podSpec.priorityClassName', '.spec.podSpec.resourceClaims',
  '.spec.podSpec.affinity.podAffinity', '.spec.podSpec.affinity.nodeAffinity',
];

/** Valid definition expressions (they parse, compile and pass validation). */
export const UPSTREAM_EXPRESSIONS: string[] = [
  // shared
  '.status.conditions', '.status.state', '.spec.replicas // 1', '1',
  '.metadata.labels["training.kubeflow.org/replica-type"]', '.metadata.labels["training.kubeflow.org/job-name"]',
  '.metadata.labels["ray.io/node-type"]', '.spec.workerGroupSpecs[].groupName', '.metadata.labels["ray.io/group"]',
  '.metadata.labels["ray.io/cluster"]',
  // dynamo
  ...dynamoTails.map((t) => `.spec.services | .[] | ${t}`),
  '.spec.services[] | (.replicas // 1) * (.multinode.nodeCount // 1)',
  '.spec.services | to_entries[] | .key', '.metadata.labels["nvidia.com/dynamo-component"]',
  // jobset
  '.spec.replicatedJobs[].template.spec.template', '.spec.replicatedJobs[].replicas', '.spec.replicatedJobs[].name',
  '.metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"]',
  // knative
  '.spec.template', '.spec.template.metadata.annotations["autoscaling.knative.dev/min-scale"] // 1',
  '.spec.template.metadata.annotations["autoscaling.knative.dev/max-scale"]', '.metadata.labels["serving.knative.dev/revision"]',
  // kserve
  '.spec.predictor.schedulerName', '.spec.predictor.labels', '.spec.predictor.annotations', '.spec.predictor.affinity.podAffinity',
  '.spec.predictor.affinity.nodeAffinity', '.spec.predictor.containers',
  '.spec.predictor | ( (.[]?  | select(type =="object" and .storageUri )))', '.spec.predictor.priorityClassName',
  '.spec.predictor.minReplicas', '.spec.predictor.maxReplicas', '.metadata.labels["component"]', '.spec.transformer',
  '.spec.transformer.minReplicas', '.spec.transformer.maxReplicas', '.metadata.labels["serving.kserve.io/inferenceservice"]',
  // lws
  '.spec.leaderWorkerTemplate.size', '.metadata.labels["leaderworkerset.sigs.k8s.io/group-index"]',
  '.spec.leaderWorkerTemplate.leaderTemplate', '.metadata.labels["leaderworkerset.sigs.k8s.io/worker-index"]',
  '.spec.leaderWorkerTemplate.workerTemplate', '(.spec.replicas // 1) * ((.spec.leaderWorkerTemplate.size // 1) - 1)',
  '.metadata.annotations["leaderworkerset.sigs.k8s.io/leader-name"]', '.metadata.labels["leaderworkerset.sigs.k8s.io/name"]',
  '.metadata.labels["leaderworkerset.sigs.k8s.io/group-index"] // "0"',
  // milvus (examples)
  '.spec.components.queryNode.template', '.spec.components.queryNode.replicas', '.spec.components.dataNode.template',
  '.spec.components.dataNode.replicas', '.metadata.labels["app.kubernetes.io/component"]', '.metadata.labels["app.kubernetes.io/instance"]',
  // mpijob
  '.spec.mpiReplicaSpecs.Launcher.template', '.spec.mpiReplicaSpecs.Launcher.replicas // 1', '.spec.mpiReplicaSpecs.Worker.template',
  '.spec.mpiReplicaSpecs.Worker.replicas // 1',
  // nimservice
  '.spec.schedulerName', '.spec.labels', '.spec.annotations', '.spec.resources', '.spec.affinity.podAffinity',
  '.spec.affinity.nodeAffinity', '.metadata.labels["app.kubernetes.io/name"]',
  // pytorch
  '.spec.pytorchReplicaSpecs.Master.template', '.spec.pytorchReplicaSpecs.Master.replicas // 1', '.spec.pytorchReplicaSpecs.Worker.template',
  '.spec.pytorchReplicaSpecs.Worker.replicas // 1', '.spec.elasticPolicy.minReplicas', '.spec.elasticPolicy.maxReplicas',
  // raycluster / rayjob
  '.spec.headGroupSpec.template', '.spec.workerGroupSpecs[].template', '.spec.workerGroupSpecs[].replicas',
  '.spec.workerGroupSpecs[].minReplicas', '.spec.workerGroupSpecs[].maxReplicas', '.status.jobStatus',
  '.spec.rayClusterSpec.headGroupSpec.template', '.spec.rayClusterSpec.workerGroupSpecs[].template',
  '.spec.rayClusterSpec.workerGroupSpecs[].replicas // 1',
  // newer catalog
  '(.status.replicatedJobsStatus // []) | any(.active > 0 and (.ready // 0) == 0) and all(.failed == 0)',
  '(.status.replicatedJobsStatus // []) | any(.ready > 0 and .active > 0) and all(.failed == 0)',
  '.spec.replicatedJobs[] | .replicas * .template.spec.parallelism', '.spec.suspend', '.spec.runPolicy.suspend',
  '.spec.suspend == true and (.status.state == "suspended" or (.status.state | not))', '.status.jobDeploymentStatus == "Suspended"',
  '.spec.rayClusterSpec.workerGroupSpecs[].minReplicas', '.spec.rayClusterSpec.workerGroupSpecs[].maxReplicas',
  '.spec.rayClusterSpec.workerGroupSpecs[].groupName', '.spec.rayClusterConfig.headGroupSpec.template',
  '.spec.rayClusterConfig.workerGroupSpecs[].template', '.spec.rayClusterConfig.workerGroupSpecs[].replicas // 1',
  '.spec.rayClusterConfig.workerGroupSpecs[].groupName', '.metadata.labels["training.kubeflow.org/job-role"]',
  '(.status.replicas // 0) > 0 and .status.readyReplicas == .status.replicas and .status.updatedReplicas == .status.replicas',
  '.status.status',
  ...milvusComponents.flatMap((c) => milvusFields.map((f) => `.spec.components.${c}.${f}`)),
  '.spec.dependencies.etcd.inCluster.values.resources', '.spec.dependencies.etcd.inCluster.values.replicaCount',
  '.spec.dependencies.storage.inCluster.values.resources',
  ...['zookeeper', 'bookkeeper', 'broker', 'proxy'].flatMap((p) =>
    ['resources', 'replicaCount'].map((f) => `.spec.dependencies.pulsar.inCluster.values.${p}.${f}`),
  ),
  // Dynamo v1beta1
  '.spec.components[] | .name', '.spec.components[] | (.replicas // 1)', '.spec.components[] | .podTemplate.metadata.labels',
  '.spec.components[] | .podTemplate.metadata.annotations', '.spec.components[] | .podTemplate.spec.schedulerName',
  '.spec.components[] | .podTemplate.spec.priorityClassName', '.spec.components[] | .podTemplate.spec.resourceClaims',
  '.spec.components[] | .podTemplate.spec.affinity.podAffinity', '.spec.components[] | .podTemplate.spec.affinity.nodeAffinity',
  '.spec.components[] | .podTemplate.spec.containers[] | select(.name == "main")',
  '.spec.components[] | .podTemplate.spec.containers[] | select(.name == "main") | .image',
  '.metadata.labels["nvidia.com/dynamo-component"] | ascii_downcase',
  '.metadata.labels["grove.io/podcliquescalinggroup-replica-index"] // .metadata.labels["leaderworkerset.sigs.k8s.io/group-index"]',
  // Grove PCS
  ...groveTails.map((t) => `${groveSelect} | ${t}`),
  `.spec.replicas as $r | ${groveSelect} | (($r // 1) * (.spec.replicas // 1))`,
  '.spec.template.podCliqueScalingGroups[].name', '.spec.template.podCliqueScalingGroups[].scaleConfig.minReplicas',
  '.spec.template.podCliqueScalingGroups[].scaleConfig.maxReplicas',
  '(.spec.replicas // 1) * (.spec.template.podCliqueScalingGroups[].replicas // 1)',
  '.metadata.labels["grove.io/podclique"]', '.metadata.labels["grove.io/podcliqueset-replica-index"]',
  '.metadata.labels["grove.io/podcliquescalinggroup"]', '.metadata.labels["grove.io/podcliquescalinggroup-replica-index"]',
  '.metadata.labels["app.kubernetes.io/part-of"]',
  '(.spec.replicas // 0) > 0 and (.status.availableReplicas // 0) < (.spec.replicas // 0)',
  '(.status.availableReplicas // 0) >= (.spec.replicas // 0)',
  '(.spec.replicas // 0) > 0 and (.status.availableReplicas // 0) >= (.spec.replicas // 0)',
  // Technical Guide
  '.spec.jobs[].name', '.spec.jobs | to_entries[] | .key',
  'any(.spec.jobs[].spec.containers[]; (.resources.limits["nvidia.com/gpu"] // 0) > 0)',
  'any(.spec.jobs[].spec.containers[]; (.resources.limits["nvidia.com/gpu"] // 0) == 0)',
  '.spec.domain.resources', '.spec.priorityClassName', '.spec.affinity.nodeAffinity', '.spec.predictor.model',
  '.spec.jobTemplate.spec', '.spec.jobTemplate.metadata',
  // tests
  '.spec.master.template', '.spec.master.replicas', '.metadata.labels.role', '.spec.worker.template', '.spec.worker.minReplicas',
  '.spec.worker.maxReplicas', '.spec.replicatedJobs[].spec', '.spec.replicatedJobs[].metadata',
  ...['labels', 'annotations', 'containers', 'mainContainer', 'resources', 'replicas', 'minReplicas', 'maxReplicas'].map(
    (f) => `.spec.services | .[] | .${f}`,
  ),
  '.spec.containers[0].env[] | select(.name == "GROUP_NAME") | .value', '.metadata.labels["replica-id"] | tonumber',
  '.metadata | (.labels, .annotations) | ."duplicate-key"', '.metadata.labels | to_entries | .[].key',
  '.metadata.labels | has("app")', '.spec.containers | length > 0',
  '.status.phase == "running" and (.status.conditions[] | select(.type == "Ready") | .status == "True")',
  '.status.conditions | length > 0', '.status.nonExistentField',
];

/** Expressions from the upstream material that are not valid jq programs (compile errors, pitfall P-04). */
export const UPSTREAM_INVALID: string[] = ['.metadata.labels.job-name', '.metadata.labels.service-name', '.non-existing', 'gpu', 'no-gpu'];
