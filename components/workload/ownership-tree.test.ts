import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { OwnedObject } from '../../contract/index.ts';
import { ownershipLines } from './ownership-tree.ts';

const obj = (uid: string, owner: string | null, kind: string, pod?: { gpus: number; phase?: string }): OwnedObject => ({
  uid, owner, apiVersion: kind === 'Pod' ? 'v1' : 'example.com/v1', kind, namespace: 'default', name: uid,
  pod: pod ? { phase: pod.phase ?? 'Running', node: 'n1', gpus: pod.gpus, allocated: true } : null,
});

test('owners above children, GPUs of unfinished pods summed at every level', () => {
  const lines = ownershipLines([
    obj('tj', null, 'TrainJob'),
    obj('js', 'tj', 'JobSet'),
    obj('job-1', 'js', 'Job'),
    obj('p1', 'job-1', 'Pod', { gpus: 8 }),
    obj('p0', 'job-1', 'Pod', { gpus: 8, phase: 'Succeeded' }),
    obj('init', 'tj', 'Pod', { gpus: 1 }),
  ]);
  assert.deepEqual(lines.map((l) => `${'  '.repeat(l.depth)}${l.object.kind} ${l.object.name} ${l.gpus}/${l.pods}`), [
    'TrainJob tj 9/3',
    '  JobSet js 8/2',
    '    Job job-1 8/2',
    '      Pod p0 0/1',
    '      Pod p1 8/1',
    '  Pod init 1/1',
  ]);
});

test('a cycle or an unlisted owner neither loops nor drops an object', () => {
  const lines = ownershipLines([obj('a', 'b', 'Loop'), obj('b', 'a', 'Loop'), obj('x', 'gone', 'Pod', { gpus: 2 })]);
  assert.deepEqual(lines.map((l) => l.object.uid).sort(), ['a', 'b', 'x']);
  assert.equal(lines.find((l) => l.object.uid === 'x')?.gpus, 2);
});
