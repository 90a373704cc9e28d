import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServedResource } from '../cluster/index.ts';
import { kindGuess, kindsNamed } from './kind-ref.ts';

const r = (group: string, kind: string, resource: string, shortNames: string[] = []): ServedResource => ({ group, version: 'v1', kind, resource, namespaced: true, verbs: ['list'], singular: kind.toLowerCase(), shortNames });
const served = [r('batch', 'Job', 'jobs'), r('batch.volcano.sh', 'Job', 'jobs', ['vcjob']), r('leaderworkerset.x-k8s.io', 'LeaderWorkerSet', 'leaderworkersets', ['lws']), r('kubeflow.org', 'PyTorchJob', 'pytorchjobs'), r('', 'Pod', 'pods', ['po'])];

test('kind arguments as kubectl reads them: kind, plural, singular, short names, any case, with or without the group', () => {
  const names = (t: string) => [...kindsNamed(t, served)].sort();
  assert.deepEqual(names('lws'), ['leaderworkerset.x-k8s.io/LeaderWorkerSet']);
  assert.deepEqual(names('pytorchjob'), ['kubeflow.org/PyTorchJob']);
  assert.deepEqual(names('PyTorchJobs'), ['kubeflow.org/PyTorchJob']);
  assert.deepEqual(names('jobs.batch'), ['batch/Job']);
  assert.deepEqual(names('job.batch.volcano.sh'), ['batch.volcano.sh/Job']);
  assert.deepEqual(names('vcjob'), ['batch.volcano.sh/Job']);
  // Both groups serve `jobs`: the first in discovery order (the built-in one), as kubectl picks it.
  assert.deepEqual(names('job'), ['batch/Job']);
  assert.deepEqual([...kindsNamed('jobs', [served[1], served[0]])], ['batch.volcano.sh/Job']);
  assert.deepEqual(names('po'), ['/Pod']);
  assert.deepEqual(names('jobs.batch.example'), []);
});

test('without discovery: the kind, its plural and an optional group', () => {
  assert.equal(kindGuess('jobsets')('jobset.x-k8s.io', 'JobSet'), true);
  assert.equal(kindGuess('job.batch')('batch.volcano.sh', 'Job'), false);
  assert.equal(kindGuess('job')('batch.volcano.sh', 'Job'), true);
});
