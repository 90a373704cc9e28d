/**
 * A running simulator with the controllers on and a fast clock, holding pods in the states the Events
 * and logs tests read: a training pod, a crash-looping one, one the kernel OOM-kills, a two-container
 * pod, one that cannot schedule for lack of GPUs, and one stuck creating its containers.
 */

import { startSim } from '../index.ts';
import type { SimHandle } from '../index.ts';
import { SIM } from '../controllers/pods.ts';
import type { Pod } from '../controllers/types.ts';
import { createNodes } from '../scenarios/node-pools.ts';
import type { KubeObject } from '../store/object-store.ts';
import { eventually } from './test-support.ts';

export const NS = 'life';
/** Simulated seconds per real second. */
export const SPEED = 20;
export const NO_LOGS = 'no-pod-logs-token';

function pod(name: string, spec: Record<string, unknown>, annotations: Record<string, string> = {}, labels: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS, annotations, labels },
    spec: { restartPolicy: 'Always', terminationGracePeriodSeconds: 0, ...spec },
    status: { phase: 'Pending' },
  };
}

const gpuToleration = [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }];

export async function startLifecycleSim(): Promise<SimHandle> {
  const sim = await startSim({
    clockSpeed: SPEED,
    tokens: [{ token: NO_LOGS, user: 'carol', deny: [{ resources: ['pods/log'], verbs: ['get'] }] }],
  });
  const s = sim.store;
  s.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS }, status: { phase: 'Active' } });
  createNodes(s, [{ type: 'h100', count: 1 }, { type: 'cpu', count: 1 }], new Date(sim.now()).toISOString());
  s.create(pod('trainer', {
    tolerations: gpuToleration,
    containers: [{ name: 'pytorch', image: 'nvcr.io/nvidia/pytorch:25.01-py3', resources: { limits: { 'nvidia.com/gpu': '1' } } }],
  }, { [SIM.duration]: 'forever' }, { 'training.kubeflow.org/job-name': 'trainer', 'training.kubeflow.org/replica-index': '0' }));
  s.create(pod('crasher', { containers: [{ name: 'main', image: 'python:3.12-slim', resources: { limits: { cpu: '1', memory: '1Gi' } } }] }, { [SIM.duration]: '30s', [SIM.exitCode]: '1' }));
  s.create(pod('oom', { containers: [{ name: 'indexer', image: 'python:3.12-slim', resources: { limits: { cpu: '1', memory: '2Gi' } } }] }, { [SIM.duration]: '30s', [SIM.exitCode]: '137', [SIM.exitReason]: 'OOMKilled' }));
  s.create(pod('multi', { containers: [{ name: 'a', image: 'nginx:1.27' }, { name: 'b', image: 'nginx:1.27' }] }));
  s.create(pod('pending', { tolerations: gpuToleration, containers: [{ name: 'main', image: 'vllm/vllm-openai:v0.9.1', resources: { limits: { 'nvidia.com/gpu': '64' } } }] }));
  s.create(pod('creating', { containers: [{ name: 'main', image: 'nginx:1.27' }] }, { [SIM.startup]: '10h' }));
  // Both failing pods have restarted once (about 1.5 real seconds at this speed).
  await eventually(() => ['crasher', 'oom'].every((n) => ((podOf(sim, n).status?.containerStatuses?.[0]?.restartCount) ?? 0) >= 1), 20_000, 'the failing pods to restart');
  return sim;
}

export function podOf(sim: SimHandle, name: string): Pod {
  const p = sim.store.get('v1', 'Pod', NS, name) as Pod | undefined;
  if (!p) throw new Error(`no pod ${name}`);
  return p;
}
