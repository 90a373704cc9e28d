/**
 * The five kinds of the Kubeflow training operator v1 (release-1.9), as `TrainingFramework`s for the one
 * shared loop in training-operator.ts. Each restates its reconciler's specifics: replica types, default
 * container / port / restart policy (the `*_types.go` constants and defaulting), the master role
 * (`IsMasterRole`), the env it injects (`envvar.go`, `SetClusterSpec`) and when the job runs or succeeds
 * (`UpdateJobStatus`).
 */

import { judgeByLead, TrainingJobController } from './training-operator.ts';
import type { ReplicaCounts, TrainingFramework, TrainingJobView } from './training-operator.ts';
import type { Controller } from './runtime.ts';
import type { Container, EnvVar } from './types.ts';

const env = (name: string, value: string): EnvVar => ({ name, value });

/** PyTorchJob: Master + Worker, torch.distributed env, workers wait for the master's DNS name. */
export const PYTORCH: TrainingFramework = {
  kind: 'PyTorchJob',
  specsField: 'pytorchReplicaSpecs',
  operatorName: 'pytorchjob-controller',
  replicaTypes: ['Master', 'Worker'],
  containerName: 'pytorch',
  portName: 'pytorchjob-port',
  defaultPort: 23456,
  defaultRestartPolicy: 'OnFailure',
  envOnDefaultContainerOnly: true,
  isMaster: (job, rtype, index) => rtype === 'Master' || (!job.has('Master') && rtype === 'Worker' && index === 0),
  env(job, rtype, index) {
    const hasMaster = job.has('Master');
    const port = String(job.port(hasMaster ? 'Master' : 'Worker'));
    const addr = job.replicaName(hasMaster ? 'Master' : 'Worker', 0);
    const world = String(job.total());
    const rank = String(rtype === 'Master' ? 0 : hasMaster ? index + 1 : index);
    const nproc = (job.spec.nprocPerNode as string | undefined) ?? 'auto';
    return [
      env('MASTER_PORT', port), env('PET_MASTER_PORT', port), env('MASTER_ADDR', addr), env('PET_MASTER_ADDR', addr),
      env('WORLD_SIZE', world), env('RANK', rank), env('PET_NPROC_PER_NODE', nproc), env('PET_NODE_RANK', rank),
      env('PET_NNODES', world), env('PYTHONUNBUFFERED', '1'),
    ];
  },
  initContainers(job, rtype): Container[] {
    if (rtype === 'Master' || !job.has('Master')) return [];
    const master = job.replicaName('Master', 0);
    return [{
      name: 'init-pytorch',
      image: 'alpine:3.10',
      command: ['sh', '-c', `err=1;for i in $(seq 100); do if nslookup ${master}; then err=0 && break; fi;echo waiting for master; sleep 2; done; exit $err`],
      resources: { limits: { cpu: '100m', memory: '20Mi' }, requests: { cpu: '50m', memory: '10Mi' } },
    }];
  },
  judge(job, counts) {
    if (job.has('Master')) return judgeByLead(counts, 'Master');
    // Elastic jobs finish when any worker does; others when every worker has.
    const w = counts.Worker;
    if (w && job.spec.elasticPolicy && w.succeeded > 0) return 'Succeeded';
    return judgeByLead(counts, 'Worker');
  },
};

/** The TF_CONFIG of one replica: every replica's `<name>.<ns>.svc:<port>` by type, and its own task. */
function tfConfig(job: TrainingJobView, rtype: string, index: number): string {
  const cluster: Record<string, string[]> = {};
  for (const t of [...job.types()].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()))) {
    cluster[t.toLowerCase()] = Array.from({ length: job.replicas(t) }, (_, i) => `${job.replicaName(t, i)}.${job.namespace}.svc:${job.port(t)}`);
  }
  const task = { type: rtype.toLowerCase(), index };
  if (job.spec.enableDynamicWorker) {
    // The sparse form: a worker sees itself and the PS, a PS only itself.
    const ps = rtype === 'PS' ? [cluster.ps[index]] : rtype === 'Worker' ? cluster.ps ?? [] : [];
    const worker = rtype === 'Worker' ? { [index]: cluster.worker[index] } : {};
    return JSON.stringify({ cluster: { worker, ps }, task });
  }
  return JSON.stringify({ cluster, task, environment: 'cloud' });
}

const hasChief = (job: TrainingJobView): boolean => job.has('Chief') || job.has('Master');

/** Worker 0 exited 0 (the default success policy of a TFJob without chief). */
function worker0Completed(w: ReplicaCounts | undefined): boolean {
  const p = w?.pods.get(0);
  const term = p?.status?.containerStatuses?.find((c) => c.name === 'tensorflow')?.state as { terminated?: { exitCode?: number } } | undefined;
  return p?.status?.phase === 'Succeeded' && term?.terminated?.exitCode === 0;
}

/** TFJob: Chief / Master, PS, Worker, Evaluator; TF_CONFIG on the tensorflow container. */
export const TENSORFLOW: TrainingFramework = {
  kind: 'TFJob',
  specsField: 'tfReplicaSpecs',
  operatorName: 'tfjob-controller',
  replicaTypes: ['Chief', 'Evaluator', 'Master', 'PS', 'Worker'],
  containerName: 'tensorflow',
  portName: 'tfjob-port',
  defaultPort: 2222,
  defaultRestartPolicy: 'Never',
  envOnDefaultContainerOnly: true,
  isMaster: (job, rtype, index) => (hasChief(job) ? rtype === 'Chief' || rtype === 'Master' : rtype === 'Worker' && index === 0),
  // A single-replica job is local training: no TF_CONFIG.
  env: (job, rtype, index) => (job.total() === 1 ? [] : [env('TF_CONFIG', tfConfig(job, rtype, index))]),
  judge(job, counts) {
    if (hasChief(job)) return judgeByLead(counts, job.has('Chief') ? 'Chief' : 'Master');
    const w = counts.Worker;
    if (!w) return undefined;
    const allWorkers = job.spec.successPolicy === 'AllWorkers';
    if (w.succeeded >= w.want || (!allWorkers && worker0Completed(w))) return 'Succeeded';
    return w.active > 0 ? 'Running' : undefined;
  },
  toleratesFailures: (job, rtype) => !!job.spec.enableDynamicWorker && rtype === 'Worker',
  namespacedFailureMessage: true,
};

/** XGBoostJob: Master + Worker (Rabit tracker on the master), ranks after the master's. */
export const XGBOOST: TrainingFramework = {
  kind: 'XGBoostJob',
  specsField: 'xgbReplicaSpecs',
  operatorName: 'xgboostjob-controller',
  replicaTypes: ['Master', 'Worker'],
  containerName: 'xgboost',
  portName: 'xgboostjob-port',
  defaultPort: 9999,
  defaultRestartPolicy: 'Never',
  envOnDefaultContainerOnly: false,
  isMaster: (_job, rtype) => rtype === 'Master',
  env(job, rtype, index) {
    const total = job.total();
    const rank = rtype === 'Worker' ? index + job.replicas('Master') : index;
    const out = [
      env('MASTER_PORT', String(job.port('Master'))), env('MASTER_ADDR', job.replicaName('Master', 0)),
      env('WORLD_SIZE', String(total)), env('RANK', String(rank)), env('PYTHONUNBUFFERED', '1'),
    ];
    if (total > 1) {
      const workers = Array.from({ length: total - 1 }, (_, i) => job.replicaName('Worker', i));
      out.push(env('WORKER_PORT', String(job.port('Worker'))), env('WORKER_ADDRS', workers.join(',')));
    }
    return out;
  },
  // The master's success ends the job.
  judge: (job, counts) => judgeByLead(counts, job.has('Master') ? 'Master' : 'Worker'),
};

/** JAXJob: Workers only; worker 0 is the coordinator (and carries job-role master). */
export const JAX: TrainingFramework = {
  kind: 'JAXJob',
  specsField: 'jaxReplicaSpecs',
  operatorName: 'jaxjob-controller',
  replicaTypes: ['Worker'],
  containerName: 'jax',
  portName: 'jaxjob-port',
  defaultPort: 6666,
  defaultRestartPolicy: 'Never',
  envOnDefaultContainerOnly: false,
  isMaster: (_job, _rtype, index) => index === 0,
  env: (job, _rtype, index) => [
    env('PYTHONUNBUFFERED', '1'), env('COORDINATOR_PORT', String(job.port('Worker'))),
    env('COORDINATOR_ADDRESS', job.replicaName('Worker', 0)), env('NUM_PROCESSES', String(job.total())), env('PROCESS_ID', String(index)),
  ],
  judge: (_job, counts) => judgeByLead(counts, 'Worker'),
};

/** PaddleJob: Master (parameter server) + Worker, or collective Workers whose worker 0 is the endpoint. */
export const PADDLE: TrainingFramework = {
  kind: 'PaddleJob',
  specsField: 'paddleReplicaSpecs',
  operatorName: 'paddlejob-controller',
  replicaTypes: ['Master', 'Worker'],
  containerName: 'paddle',
  portName: 'master',
  defaultPort: 36543,
  defaultRestartPolicy: 'OnFailure',
  envOnDefaultContainerOnly: false,
  isMaster: (_job, rtype) => rtype === 'Master',
  env(job, rtype, index) {
    const lead = job.has('Master') ? 'Master' : 'Worker';
    const out = [env('PYTHONUNBUFFERED', '1'), env('PADDLE_JOB_ID', job.name), env('PADDLE_NNODES', String(job.total()))];
    const port = job.port(lead);
    if (rtype === lead && index === 0) {
      // The endpoint replica advertises its own pod IP.
      out.push({ name: 'POD_IP_DUMMY', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }, env('PADDLE_MASTER', `$(POD_IP_DUMMY):${port}`));
    } else {
      out.push(env('PADDLE_MASTER', `${job.replicaName(lead, 0)}:${port}`));
    }
    if (job.has('Master')) out.push(rtype === 'Master' ? env('PADDLE_SERVER_NUM', '1') : env('PADDLE_TRAINER_NUM', '1'));
    return out;
  },
  judge: (job, counts) => judgeByLead(counts, job.has('Master') ? 'Master' : 'Worker'),
};

export const TRAINING_FRAMEWORKS: readonly TrainingFramework[] = [PYTORCH, TENSORFLOW, XGBOOST, JAX, PADDLE];

export function trainingOperatorControllers(): Controller[] {
  return TRAINING_FRAMEWORKS.map((fw) => new TrainingJobController(fw));
}
