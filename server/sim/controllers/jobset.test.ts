import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SIM } from './pods.ts';
import { cond, container, fixture, ownerOf } from './testing.ts';
import type { KubeObject, Pod } from './types.ts';

function jobset(name: string, opts: { workers?: number; parallelism?: number; gpus?: number; duration?: string; exitCode?: string; suspend?: boolean; maxRestarts?: number; inOrder?: boolean } = {}): KubeObject {
  const ann: Record<string, string> = { [SIM.duration]: opts.duration ?? '60s' };
  if (opts.exitCode) ann[SIM.exitCode] = opts.exitCode;
  const rjob = (rj: string, replicas: number, parallelism: number, gpus: number): Record<string, unknown> => ({
    name: rj,
    replicas,
    template: {
      spec: {
        parallelism,
        completions: parallelism,
        backoffLimit: 0,
        template: { metadata: { annotations: ann }, spec: { restartPolicy: 'Never', containers: [container('trainer', gpus ? { 'nvidia.com/gpu': gpus } : { cpu: '1' })] } },
      },
    },
  });
  return {
    apiVersion: 'jobset.x-k8s.io/v1alpha2',
    kind: 'JobSet',
    metadata: { name, namespace: 'default' },
    spec: {
      ...(opts.suspend ? { suspend: true } : {}),
      ...(opts.maxRestarts ? { failurePolicy: { maxRestarts: opts.maxRestarts } } : {}),
      ...(opts.inOrder ? { startupPolicy: { startupPolicyOrder: 'InOrder' } } : {}),
      replicatedJobs: [rjob('driver', 1, 1, 0), rjob('workers', opts.workers ?? 2, opts.parallelism ?? 2, opts.gpus ?? 4)],
    },
  };
}

test('JobSet: child Jobs, labels+annotations, headless service, pods with hostnames; then Completed', async () => {
  const f = fixture();
  try {
    f.store.create(jobset('llm', { inOrder: true }));
    await f.run(30_000);
    const js = f.get('jobset.x-k8s.io/v1alpha2', 'JobSet', 'llm')!;
    const jobs = f.list('batch/v1', 'Job').sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));
    assert.deepEqual(jobs.map((j) => j.metadata.name), ['llm-driver-0', 'llm-workers-0', 'llm-workers-1']);
    const w1 = jobs[2];
    assert.deepEqual(ownerOf(w1), { kind: 'JobSet', name: 'llm', controller: true, blockOwnerDeletion: true });
    const L = w1.metadata.labels!;
    assert.equal(L['jobset.sigs.k8s.io/jobset-name'], 'llm');
    assert.equal(L['jobset.sigs.k8s.io/jobset-uid'], js.metadata.uid);
    assert.equal(L['jobset.sigs.k8s.io/replicatedjob-name'], 'workers');
    assert.equal(L['jobset.sigs.k8s.io/replicatedjob-replicas'], '2');
    assert.equal(L['jobset.sigs.k8s.io/global-replicas'], '3');
    assert.equal(L['jobset.sigs.k8s.io/job-index'], '1');
    assert.equal(L['jobset.sigs.k8s.io/job-global-index'], '2');
    assert.equal(L['jobset.sigs.k8s.io/restart-attempt'], '0');
    assert.equal(L['jobset.sigs.k8s.io/group-name'], 'default');
    assert.match(L['jobset.sigs.k8s.io/job-key'], /^[0-9a-f]{40}$/);
    assert.equal(w1.metadata.annotations!['jobset.sigs.k8s.io/job-key'], L['jobset.sigs.k8s.io/job-key']);
    assert.equal((w1.spec as { completionMode: string }).completionMode, 'Indexed');
    const svc = f.get('v1', 'Service', 'llm')!;
    assert.equal((svc.spec as { clusterIP: string }).clusterIP, 'None');
    assert.deepEqual((svc.spec as { selector: unknown }).selector, { 'jobset.sigs.k8s.io/jobset-name': 'llm' });
    const pods = f.pods({ 'jobset.sigs.k8s.io/jobset-name': 'llm', 'jobset.sigs.k8s.io/replicatedjob-name': 'workers' });
    assert.equal(pods.length, 4);
    for (const p of pods) {
      const ji = p.metadata.labels!['jobset.sigs.k8s.io/job-index'];
      const pi = p.metadata.labels!['batch.kubernetes.io/job-completion-index'];
      assert.match(p.metadata.name!, new RegExp(`^llm-workers-${ji}-${pi}-[a-z0-9]{5}$`));
      assert.equal(p.spec.hostname, `llm-workers-${ji}-${pi}`);
      assert.equal(p.spec.subdomain, 'llm');
      assert.equal(ownerOf(p)!.kind, 'Job');
      assert.equal(p.metadata.annotations!['jobset.sigs.k8s.io/jobset-name'], 'llm');
    }
    const st = js.status as { replicatedJobsStatus: Array<Record<string, unknown>> };
    assert.deepEqual(st.replicatedJobsStatus.find((s) => s.name === 'workers'), { name: 'workers', ready: 2, succeeded: 0, failed: 0, active: 2, suspended: 0 });
    assert.equal(cond(js, 'StartupPolicyCompleted')?.status, 'True');
    await f.run(60_000, 5000);
    const done = f.get('jobset.x-k8s.io/v1alpha2', 'JobSet', 'llm')!;
    assert.equal((done.status as { terminalState: string }).terminalState, 'Completed');
    assert.equal(cond(done, 'Completed')?.reason, 'AllJobsCompleted');
  } finally {
    f.stop();
  }
});

test('JobSet pending: not enough GPUs leaves pods Unschedulable and Jobs not ready', async () => {
  const f = fixture();
  try {
    f.store.create(jobset('huge', { workers: 3, parallelism: 2, gpus: 8 }));
    await f.run(20_000);
    const pending = f.pods().filter((p) => p.status?.phase === 'Pending');
    assert.equal(pending.length, 4, '2 H100 nodes hold 2 of the 6 8-GPU pods');
    assert.equal(cond(pending[0], 'PodScheduled')?.reason, 'Unschedulable');
    const js = f.get('jobset.x-k8s.io/v1alpha2', 'JobSet', 'huge')!;
    const w = (js.status as { replicatedJobsStatus: Array<{ name: string; ready: number }> }).replicatedJobsStatus.find((s) => s.name === 'workers')!;
    assert.ok(w.ready < 3);
    assert.equal((js.status as { terminalState?: string }).terminalState, undefined);
  } finally {
    f.stop();
  }
});

test('JobSet failure: restarts up to maxRestarts with restart-attempt label, then ReachedMaxRestarts', async () => {
  const f = fixture();
  try {
    f.store.create(jobset('bad', { workers: 1, parallelism: 1, gpus: 1, duration: '10s', exitCode: '1', maxRestarts: 1 }));
    await f.run(20_000);
    let js = f.get('jobset.x-k8s.io/v1alpha2', 'JobSet', 'bad')!;
    assert.equal((js.status as { restarts: number }).restarts, 1);
    assert.ok(f.list('batch/v1', 'Job').every((j) => j.metadata.labels!['jobset.sigs.k8s.io/restart-attempt'] === '1'));
    await f.run(30_000);
    js = f.get('jobset.x-k8s.io/v1alpha2', 'JobSet', 'bad')!;
    assert.equal(cond(js, 'Failed')?.reason, 'ReachedMaxRestarts');
    assert.equal((js.status as { terminalState: string }).terminalState, 'Failed');
  } finally {
    f.stop();
  }
});

test('JobSet suspend: Jobs suspended, no pods, Suspended condition; resume', async () => {
  const f = fixture();
  try {
    f.store.create(jobset('paused', { suspend: true }));
    await f.settle();
    let js = f.get('jobset.x-k8s.io/v1alpha2', 'JobSet', 'paused')!;
    assert.equal(cond(js, 'Suspended')?.reason, 'SuspendedJobs');
    assert.ok(f.list('batch/v1', 'Job').every((j) => (j.spec as { suspend: boolean }).suspend === true));
    assert.equal(f.pods().length, 0);
    assert.equal((js.status as { replicatedJobsStatus: Array<{ suspended: number }> }).replicatedJobsStatus[1].suspended, 2);
    f.store.update({ ...js, spec: { ...(js.spec as object), suspend: false } });
    await f.run(10_000);
    js = f.get('jobset.x-k8s.io/v1alpha2', 'JobSet', 'paused')!;
    assert.equal(cond(js, 'Suspended')?.reason, 'ResumeJobs');
    assert.equal(f.pods().filter((p: Pod) => p.status?.phase === 'Running').length, 5);
  } finally {
    f.stop();
  }
});
