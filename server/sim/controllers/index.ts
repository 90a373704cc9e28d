/**
 * The simulated cluster's control plane: core controllers (Job, Deployment → ReplicaSet, StatefulSet, DaemonSet),
 * a scheduler and a kubelet, and the operators of the AI frameworks, all reacting to one ObjectStore.
 */

import type { ObjectStore } from '../store/object-store.ts';
import { DaemonSetController } from './daemonset.ts';
import { DeploymentController } from './deployment.ts';
import { JobController, JobPodFinalizerController } from './job.ts';
import { Kubelet } from './kubelet.ts';
import type { ControllerOptions } from './options.ts';
import { resolveOptions } from './options.ts';
import { ReplicaSetController } from './replicaset.ts';
import type { Controller } from './runtime.ts';
import { Runtime } from './runtime.ts';
import { Scheduler } from './scheduler.ts';
import { StatefulSetController } from './statefulset.ts';
import { operatorControllers } from './operators.ts';

export type { ControllerOptions } from './options.ts';
export type { Runtime } from './runtime.ts';
export { SIM } from './pods.ts';

export interface ControllerHandle {
  stop(): void;
  /** Runs reconcile loops until nothing changes (does not move the clock). */
  settle(): void;
  /** The runtime, for tests and benchmarks (counters, direct access to controllers). */
  readonly runtime: Runtime;
}

export function coreControllers(): Controller[] {
  return [
    new Scheduler(),
    new Kubelet(),
    new JobController(),
    new JobPodFinalizerController(),
    new ReplicaSetController(),
    new DeploymentController(),
    new StatefulSetController(),
    new DaemonSetController(),
  ];
}

/** The controllers running on each store, so scenarios can build big clusters through the bulk path. */
const running = new WeakMap<ObjectStore, Runtime>();

export function controllersFor(store: ObjectStore): Runtime | undefined {
  return running.get(store);
}

export function startControllers(store: ObjectStore, options: ControllerOptions): ControllerHandle {
  const rt = new Runtime(store, options.clock, resolveOptions(options));
  for (const c of [...coreControllers(), ...operatorControllers()]) rt.register(c);
  rt.start();
  running.set(store, rt);
  return {
    stop: () => {
      rt.stop();
      if (running.get(store) === rt) running.delete(store);
    },
    settle: () => rt.settle(),
    runtime: rt,
  };
}
