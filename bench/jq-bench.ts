// Prints evaluations per second of the jq evaluator for a handful of definition-style expressions.
// Run: node --import tsx bench/jq-bench.ts
import { compileJq } from '../server/engine/jq/index.ts';

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'trainer-workers-0-3-abcde',
    namespace: 'ml',
    labels: {
      'jobset.sigs.k8s.io/jobset-name': 'trainer',
      'jobset.sigs.k8s.io/replicatedjob-name': 'workers',
      'jobset.sigs.k8s.io/job-index': '0',
      'batch.kubernetes.io/job-completion-index': '3',
    },
    annotations: {},
  },
  spec: { containers: [{ name: 'main', image: 'trainer:1', resources: { limits: { 'nvidia.com/gpu': '8' } } }] },
  status: { phase: 'Running' },
};

const jobset = {
  apiVersion: 'jobset.x-k8s.io/v1alpha2',
  kind: 'JobSet',
  metadata: { name: 'trainer', namespace: 'ml' },
  spec: {
    replicatedJobs: ['driver', 'workers', 'ps'].map((name, i) => ({
      name,
      replicas: i + 1,
      template: { spec: { parallelism: 2, template: { metadata: { labels: { role: name } }, spec: { containers: [{ name: 'c' }] } } } },
    })),
  },
  status: { replicatedJobsStatus: [{ name: 'workers', active: 2, ready: 2, failed: 0 }] },
};

const cases: Array<[string, unknown]> = [
  ['.metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"]', pod],
  ['.spec.replicatedJobs[].template.spec.template', jobset],
  ['.spec.replicatedJobs[] | .replicas * .template.spec.parallelism', jobset],
  ['(.status.replicatedJobsStatus // []) | any(.ready > 0 and .active > 0) and all(.failed == 0)', jobset],
  ['.metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"] == "workers"', pod],
  ['(.spec.replicas // 1) * ((.spec.leaderWorkerTemplate.size // 1) - 1)', { spec: { replicas: 2, leaderWorkerTemplate: { size: 4 } } }],
  ['.spec.containers | length > 0', pod],
  ['.metadata.labels | to_entries[] | .key', pod],
];

for (const [src, input] of cases) {
  const p = compileJq(src);
  p.run(input);
  let n = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < 400) {
    for (let i = 0; i < 10_000; i++) p.run(input);
    n += 10_000;
    elapsed = performance.now() - start;
  }
  const rate = Math.round((n / elapsed) * 1000);
  console.log(`${rate.toLocaleString('en-US').padStart(12)} evals/s  ${src}`);
}
