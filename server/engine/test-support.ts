/** Shared builders for engine tests: a JobSet-like definition and the objects its controller creates. */
import { compileDefinition, type CompiledDefinition } from './definition/compile.ts';
import { loadDefinitionsFromText } from './definition/load.ts';
import type { KubeObject } from './k8s.ts';

export function compileOne(yamlText: string): CompiledDefinition {
  const { definitions, errors } = loadDefinitionsFromText(yamlText, 'test.yaml');
  if (errors.length > 0) throw new Error(errors.map((e) => e.message).join('\n'));
  const { compiled, errors: cerr } = compileDefinition(definitions[0]);
  if (!compiled) throw new Error(cerr.map((e) => e.message).join('\n'));
  return compiled;
}

export const JOBSET_DEFINITION = `
apiVersion: run.ai/v1alpha1
kind: Karta
metadata:
  name: test-jobset
spec:
  structureDefinition:
    rootComponent:
      name: jobset
      kind: {group: jobset.x-k8s.io, version: v1alpha2, kind: JobSet}
      statusDefinition:
        conditionsDefinition: {path: .status.conditions, typeFieldName: type, statusFieldName: status}
        statusMappings:
          running:
            - byExpression:
                expression: '(.status.replicatedJobsStatus // []) | any(.ready > 0 and .active > 0) and all(.failed == 0)'
                expectedResult: "true"
          completed: [{byConditions: [{type: Completed, status: "True"}]}]
          failed: [{byConditions: [{type: Failed, status: "True"}]}]
          suspended: [{byConditions: [{type: Suspended, status: "True"}]}]
          initializing:
            - byExpression:
                expression: '(.status.replicatedJobsStatus // []) | any(.active > 0) and all(.ready == 0)'
                expectedResult: "true"
      suspendDefinition:
        suspendActions: [{path: .spec.suspend, value: "true"}]
        resumeActions: [{path: .spec.suspend, value: "false"}]
    childComponents:
      - name: replicatedjob
        kind: {group: batch, version: v1, kind: Job}
        ownerRef: jobset
        instanceIdPath: .spec.replicatedJobs[].name
        specDefinition:
          podTemplateSpecPath: .spec.replicatedJobs[].template.spec.template
        scaleDefinition:
          replicasPath: '.spec.replicatedJobs[] | (.replicas // 1) * (.template.spec.parallelism // 1)'
        podSelector:
          componentTypeSelector: {keyPath: '.metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"]'}
          componentInstanceSelector: {idPath: '.metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"]'}
          replicaSelector: {keyPath: '.metadata.labels["jobset.sigs.k8s.io/job-index"]'}
  optimizationInstructions:
    gangScheduling:
      podGroups:
        - name: job
          members:
            - componentName: jobset
`;

const gpuContainer = (gpus: number) => ({
  name: 'trainer',
  image: 'nvcr.io/nvidia/pytorch:24.05-py3',
  resources: { limits: { 'nvidia.com/gpu': gpus } },
});

export interface JobSetOptions {
  name?: string;
  workers?: number;
  gpus?: number;
  /** 'running' binds and readies pods; 'pending' leaves them unscheduled. */
  state?: 'running' | 'pending' | 'completed';
}

/** A JobSet with a leader replicated job (1 Job) and a worker one (N Jobs), one pod per Job. */
export function jobSetObjects(o: JobSetOptions = {}): KubeObject[] {
  const name = o.name ?? 'train';
  const workers = o.workers ?? 2;
  const gpus = o.gpus ?? 4;
  const state = o.state ?? 'running';
  const uid = `uid-${name}`;
  const template = () => ({ spec: { parallelism: 1, completions: 1, template: { metadata: { labels: { app: name } }, spec: { restartPolicy: 'Never', containers: [gpuContainer(gpus)] } } } });
  const running = state === 'running';
  const root: KubeObject = {
    apiVersion: 'jobset.x-k8s.io/v1alpha2',
    kind: 'JobSet',
    metadata: { name, namespace: 'default', uid, resourceVersion: '100' },
    spec: { replicatedJobs: [{ name: 'leader', replicas: 1, template: template() }, { name: 'worker', replicas: workers, template: template() }] },
    status: {
      conditions: state === 'completed' ? [{ type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'jobset completed successfully' }] : [],
      replicatedJobsStatus: [
        { name: 'leader', replicas: 1, ready: running ? 1 : 0, active: state === 'completed' ? 0 : 1, succeeded: state === 'completed' ? 1 : 0, failed: 0, suspended: 0 },
        { name: 'worker', replicas: workers, ready: running ? workers : 0, active: state === 'completed' ? 0 : workers, succeeded: state === 'completed' ? workers : 0, failed: 0, suspended: 0 },
      ],
    },
  };
  const objects: KubeObject[] = [root];
  const jobs: Array<[string, number]> = [['leader', 0], ...Array.from({ length: workers }, (_, i) => ['worker', i] as [string, number])];
  for (const [rj, idx] of jobs) {
    const jobName = `${name}-${rj}-${idx}`;
    const jobUid = `uid-${jobName}`;
    const labels = {
      'jobset.sigs.k8s.io/jobset-name': name,
      'jobset.sigs.k8s.io/replicatedjob-name': rj,
      'jobset.sigs.k8s.io/job-index': String(idx),
      'jobset.sigs.k8s.io/replicatedjob-replicas': String(rj === 'leader' ? 1 : workers),
    };
    objects.push({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: jobName, namespace: 'default', uid: jobUid, labels, ownerReferences: [{ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', name, uid, controller: true }] },
      spec: template().spec,
    });
    const phase = state === 'completed' ? 'Succeeded' : running ? 'Running' : 'Pending';
    objects.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `${jobName}-0-x${idx}k2p`,
        namespace: 'default',
        uid: `uid-pod-${jobName}`,
        labels: { ...labels, 'batch.kubernetes.io/job-name': jobName, 'job-name': jobName },
        ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: jobName, uid: jobUid, controller: true }],
      },
      spec: { ...(state === 'pending' ? {} : { nodeName: `gpu-node-${idx}` }), containers: [gpuContainer(gpus)] },
      status: {
        phase,
        conditions: running ? [{ type: 'Ready', status: 'True' }] : state === 'pending' ? [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] : [],
        containerStatuses: [{ name: 'trainer', restartCount: rj === 'worker' && idx === 1 ? 2 : 0 }],
      },
    });
  }
  return objects;
}
