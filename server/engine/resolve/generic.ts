/**
 * The tree of a workload no definition describes: the top of a pod's ownership chain (a TrainJob
 * before anyone wrote its definition, a Rollout, an operator's own kind). Its pods and their GPUs
 * are exact; what the workload *asks* for is unknown (no template says), so `desired` is empty and
 * the row says so; its status comes from its pods alone.
 */
import { addPodToFigures, isDefaultGpuResource } from '../gpu.ts';
import { podIsFinished, podIsTerminating, podPhase, podReady, type KubeObject } from '../k8s.ts';
import type { DefinitionRef, TreeStatus, WorkloadStatusName, WorkloadTree } from '../tree.ts';
import { bareTree, treePod, worthOn, type ResolveOptions } from './resolve.ts';

/** The definition reference of such a tree: no name, source `none`. */
export const NO_DEFINITION: DefinitionRef = { name: '', source: 'none' };

/**
 * A status in the common vocabulary from pods alone: all finished → Completed, or Failed when one
 * failed; some running, all of them ready and none failed → Running (pods still pending are
 * starting); running with a running pod not ready or a failed pod → Degraded; otherwise (all
 * pending) Initializing. The phase says how many pods are in each phase.
 */
export function statusFromPods(pods: readonly KubeObject[]): TreeStatus {
  const phases = new Map<string, number>();
  let running = 0;
  let failed = 0;
  let unfinished = 0;
  let unready = 0;
  for (const p of pods) {
    const phase = podPhase(p);
    phases.set(phase, (phases.get(phase) ?? 0) + 1);
    if (phase === 'Failed') failed++;
    if (podIsFinished(p)) continue;
    unfinished++;
    if (phase === 'Running') {
      running++;
      if (!podReady(p)) unready++;
    }
  }
  let s: WorkloadStatusName;
  if (pods.length === 0) s = 'Undefined';
  else if (unfinished === 0) s = failed > 0 ? 'Failed' : 'Completed';
  else if (running > 0) s = unready > 0 || failed > 0 ? 'Degraded' : 'Running';
  else s = 'Initializing';
  const summary = [...phases].sort(([a], [b]) => a.localeCompare(b)).map(([phase, n]) => `${n} ${phase}`).join(', ');
  return { matched: [s], phase: pods.length ? `pods: ${summary}` : null, conditions: [] };
}

export function resolveWithoutDefinition(root: KubeObject, pods: readonly KubeObject[], options: ResolveOptions = {}): WorkloadTree {
  const isGpu = options.isGpuResource ?? isDefaultGpuResource;
  const tree = bareTree(root, NO_DEFINITION, options);
  tree.status = statusFromPods(pods);
  for (const pod of pods) {
    const tp = treePod(pod, null, isGpu, tree.errors);
    tree.unmatchedPods.push(tp);
    addPodToFigures([tree.gpus, tree.unmatchedGpus], tp.gpus, !podIsFinished(pod) && !podIsTerminating(pod), tp.allocated, worthOn(tp.node, options));
  }
  return tree;
}
