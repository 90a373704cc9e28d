/**
 * Test fixture for the simulated controllers: a real MemoryStore, a manual clock, nodes, and helpers that
 * settle the controllers together with the store's asynchronous garbage collector.
 */

import { SimClock } from '../clock.ts';
import { MemoryStore } from '../store/memory-store.ts';
import type { KubeObject } from '../store/object-store.ts';
import { createNodes } from '../scenarios/node-pools.ts';
import type { NodePool } from '../scenarios/node-pools.ts';
import { startControllers } from './index.ts';
import type { ControllerHandle, ControllerOptions } from './index.ts';
import type { Pod } from './types.ts';

export interface Fixture {
  store: MemoryStore;
  clock: SimClock;
  ctl: ControllerHandle;
  /** Reconciles and garbage-collects until nothing changes. */
  settle(): Promise<void>;
  /** Moves simulated time forward in steps, settling after each. */
  run(ms: number, stepMs?: number): Promise<void>;
  pods(labels?: Record<string, string>, namespace?: string): Pod[];
  get(apiVersion: string, kind: string, name: string, namespace?: string): KubeObject | undefined;
  list(apiVersion: string, kind: string, labels?: Record<string, string>): KubeObject[];
  stop(): void;
}

export const DEFAULT_POOLS: NodePool[] = [
  { type: 'h100', count: 2 },
  { type: 'cpu', count: 2 },
];

/**
 * Reconciles and lets the store's garbage collector run, round after round, until a round writes
 * nothing; false when `maxRounds` were not enough.
 */
export async function settleUntilSteady(store: MemoryStore, ctl: ControllerHandle, maxRounds: number): Promise<boolean> {
  for (let i = 0; i < maxRounds; i++) {
    const before = store.resourceVersion();
    ctl.settle();
    await store.idle();
    ctl.settle();
    if (store.resourceVersion() === before) return true;
  }
  return false;
}

export function fixture(opts: Partial<Omit<ControllerOptions, 'clock'>> & { pools?: NodePool[] } = {}): Fixture {
  const clock = SimClock.manual();
  const store = new MemoryStore({ now: () => clock.date(), initialResourceVersion: 1000 });
  createNodes(store, opts.pools ?? DEFAULT_POOLS, clock.iso());
  const ctl = startControllers(store, {
    podStartup: 2000,
    readinessDelay: 3000,
    batchDuration: 60_000,
    autoDrain: false,
    // A reconcile loop fails the test quickly instead of hanging it.
    maxReconcilesPerSettle: 500_000,
    onError: (e, where) => {
      throw new Error(`${where}: ${e instanceof Error ? e.stack : String(e)}`);
    },
    ...opts,
    clock,
  });
  const settle = async (): Promise<void> => {
    if (!(await settleUntilSteady(store, ctl, 200))) throw new Error('fixture: no steady state after 200 rounds');
  };
  return {
    store,
    clock,
    ctl,
    settle,
    run: async (ms, stepMs = 1000) => {
      await settle();
      for (let t = 0; t < ms; t += stepMs) {
        clock.advance(Math.min(stepMs, ms - t));
        await settle();
      }
    },
    pods: (labels, namespace) => store.list('v1', 'Pod', { labels, namespace }) as Pod[],
    get: (apiVersion, kind, name, namespace = 'default') => store.get(apiVersion, kind, namespace, name),
    list: (apiVersion, kind, labels) => store.list(apiVersion, kind, { labels }),
    stop: () => {
      ctl.stop();
      store.close();
      clock.stop();
    },
  };
}

/** A container spec with resources, for templates in tests. */
export function container(name: string, resources: Record<string, string | number> = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, image: `registry.example.com/${name}:1.0`, resources: Object.keys(resources).length ? { limits: resources } : {}, ...extra };
}

export function ownerOf(obj: KubeObject): { kind: string; name: string; controller?: boolean; blockOwnerDeletion?: boolean } | undefined {
  const r = obj.metadata.ownerReferences?.find((x) => x.controller);
  return r && { kind: r.kind, name: r.name, controller: r.controller, blockOwnerDeletion: r.blockOwnerDeletion };
}

export function cond(obj: KubeObject | undefined, type: string): { status: string; reason?: string; message?: string } | undefined {
  return ((obj?.status as { conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> } | undefined)?.conditions ?? []).find((c) => c.type === type);
}
