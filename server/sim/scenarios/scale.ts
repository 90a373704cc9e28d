/**
 * The `scale` scenario: a generated cluster of a chosen size (nodes, workloads, pods) across every
 * framework, seeded and deterministic, plus a chosen churn rate (events per simulated second: pod
 * readiness flips, label changes, workloads replaced). Built through the controllers' bulk path when they
 * run on the store, so 100,000 pods take seconds. About a tenth of the GPU workloads are idle (their pods'
 * load label), the rest train or serve by their kind.
 */

import type { SimClock } from '../clock.ts';
import { controllersFor } from '../controllers/index.ts';
import { Rng, rngFor } from '../controllers/random.ts';
import type { KubeObject, ObjectStore } from '../store/object-store.ts';
import { StoreError } from '../store/object-store.ts';
import { createQuiet, ensureNamespaces } from './demo.ts';
import { createNodes } from './node-pools.ts';
import type { NodePool } from './node-pools.ts';
import { build, FRAMEWORKS } from './workloads.ts';
import type { Framework, Shape } from './workloads.ts';

export interface ScaleOptions {
  seed?: number;
  pods?: number;
  workloads?: number;
  nodes?: number;
  churnPerSecond?: number;
  clock?: SimClock;
}

/** Relative share of workloads per framework (Deployments and Jobs dominate real clusters). */
const WEIGHTS: Record<Framework, number> = {
  deployment: 22, statefulset: 4, job: 14, jobset: 8, pytorchjob: 8, mpijob: 3, raycluster: 4, rayjob: 3, rayservice: 2,
  'kserve-standard': 5, 'kserve-knative': 3, knative: 3, nimservice: 3, leaderworkerset: 4, milvus: 1, podcliqueset: 2, dynamo: 2,
  // Not drawn: a TrainJob needs its runtime, which only the demo installs.
  trainjob: 0,
  tfjob: 1, xgboostjob: 1, jaxjob: 1, paddlejob: 1,
  appwrapper: 1, volcanojob: 1,
  llmisvc: 1, sandbox: 2,
  sparkapplication: 2,
};

const BATCH: ReadonlySet<Framework> = new Set(['job', 'jobset', 'pytorchjob', 'tfjob', 'xgboostjob', 'jaxjob', 'paddlejob', 'mpijob', 'rayjob', 'sparkapplication']);
/** Share of the GPU workloads whose pods are idle (allocated, 0 % utilization), for utilization views. */
export const IDLE_SHARE = 0.1;

/** Frameworks whose pods always need GPUs in practice. */
const GPU_ONLY: ReadonlySet<Framework> = new Set(['nimservice', 'leaderworkerset', 'dynamo', 'podcliqueset', 'mpijob']);

export function scalePools(nodes: number): NodePool[] {
  const h100 = Math.round(nodes * 0.4);
  const a100 = Math.round(nodes * 0.1);
  const mig = Math.round(nodes * 0.05);
  const l4 = Math.round(nodes * 0.1);
  const cpu = Math.max(1, nodes - h100 - a100 - mig - l4);
  return [
    { type: 'h100', count: h100 },
    { type: 'a100', count: a100 },
    { type: 'a100-mig', count: mig },
    { type: 'l4', count: l4 },
    { type: 'cpu', count: cpu },
  ].filter((p) => p.count > 0) as NodePool[];
}

export interface ScalePlanEntry {
  framework: Framework;
  shape: Shape;
  pods: number;
}

/** Pure: the workloads of a scale cluster (names, namespaces, shapes), deterministic for a seed. */
export function planScale(opts: { seed: number; pods: number; workloads: number; nodes: number }): ScalePlanEntry[] {
  const rng = new Rng(opts.seed * 2654435761 + 1);
  const W = Math.max(1, opts.workloads);
  const total = Object.values(WEIGHTS).reduce((a, b) => a + b, 0);
  // GPU budget: ~85% of the GPUs, so a few workloads stay Pending as in a busy cluster.
  const gpuCapacity = scalePools(opts.nodes).reduce((n, p) => n + p.count * (p.type === 'cpu' ? 0 : p.type === 'l4' || p.type === 'a100-mig' ? 4 : 8), 0);
  let gpuBudget = Math.floor(gpuCapacity * 0.85);
  const namespaces = Math.max(1, Math.ceil(W / 50));
  const entries: ScalePlanEntry[] = [];
  let podsLeft = opts.pods;
  for (let i = 0; i < W; i++) {
    let fw: Framework = 'deployment';
    let x = rng.next() * total;
    for (const f of FRAMEWORKS) {
      x -= WEIGHTS[f];
      if (x < 0) {
        fw = f;
        break;
      }
    }
    const left = W - i;
    const avg = podsLeft / left;
    // Sizes vary around the running average (many small, a few large); the last one takes the rest.
    const want = i === W - 1 ? podsLeft : Math.max(1, Math.min(podsLeft - (left - 1), Math.round(avg * (0.25 + rng.next() * 1.5))));
    if (i === W - 1) fw = 'deployment';
    const gpuWanted = GPU_ONLY.has(fw) || rng.chance(0.35);
    const gpus = gpuWanted ? rng.pick([1, 1, 1, 2, 4, 8]) : 0;
    const canAfford = gpus > 0 && gpuBudget >= gpus * want;
    const shape: Shape = {
      name: `${fw.replace(/[^a-z]/g, '').slice(0, 10)}-${String(i).padStart(5, '0')}`,
      namespace: `team-${String(i % namespaces).padStart(3, '0')}`,
      pods: want,
      gpus: canAfford ? gpus : GPU_ONLY.has(fw) && gpuBudget >= want ? 1 : 0,
      ...(BATCH.has(fw) ? { duration: '2h-8h' } : {}),
      ...(fw === 'milvus' ? { variant: rng.chance(0.5) ? 'standalone' : 'cluster' } : {}),
      ...(fw === 'dynamo' ? { variant: rng.pick(['grove', 'component', 'v1beta1']) } : {}),
    };
    let built = build(fw, shape);
    if (built.pods > podsLeft - (left - 1) && fw !== 'deployment') {
      // Structure does not fit the remaining budget: a Deployment takes exactly what is left.
      fw = 'deployment';
      built = build(fw, { ...shape, name: `deployment-${String(i).padStart(5, '0')}`, gpus: 0 });
      shape.name = built.object.metadata.name!;
      shape.gpus = 0;
    }
    if (shape.gpus) gpuBudget -= shape.gpus * built.pods;
    // A tenth of the GPU workloads hold their GPUs and use none (own stream: the plan stays as it was).
    if (shape.gpus && rngFor(opts.seed, `idle/${shape.name}`).chance(IDLE_SHARE)) shape.load = 'idle';
    podsLeft -= built.pods;
    entries.push({ framework: fw, shape, pods: built.pods });
  }
  return entries;
}

export function applyScale(store: ObjectStore, options: ScaleOptions): { stop(): void } {
  const seed = options.seed ?? 1;
  const opts = { seed, pods: options.pods ?? 100_000, workloads: options.workloads ?? 10_000, nodes: options.nodes ?? 2_000 };
  const plan = planScale(opts);
  ensureNamespaces(store, new Set(plan.map((e) => e.shape.namespace)));
  if (store.list('v1', 'Node').length === 0) createNodes(store, scalePools(opts.nodes), options.clock?.iso());
  const rt = controllersFor(store);
  // Bulk path: pods are placed and started as they are created, in one synchronous pass.
  if (rt) rt.instantPods = true;
  try {
    for (const e of plan) createQuiet(store, build(e.framework, e.shape).object);
    rt?.settle();
  } finally {
    if (rt) rt.instantPods = false;
  }
  const rate = options.churnPerSecond ?? 0;
  const clock = options.clock;
  if (!clock || rate <= 0) return { stop: () => {} };
  return startChurn(store, clock, plan, rate, seed);
}

/**
 * Churn at about `rate` watch events per simulated second: every 100 ms, changes are made until the
 * events seen since the start (theirs and the controllers' reactions) catch up with rate × time. The
 * changes: 70% pod readiness flips (the kubelet's probe brings them back), 25% label changes on pods,
 * 5% workloads replaced by a new one of the same kind (a burst of creations and deletions).
 */
export function startChurn(store: ObjectStore, clock: SimClock, plan: ScalePlanEntry[], rate: number, seed: number): { stop(): void } {
  const rng = new Rng(seed * 40503 + 7);
  let podKeys: Array<[string, string]> = [];
  let refreshedAt = -Infinity;
  let counter = 0;
  let seen = 0;
  const started = clock.now();
  const unsubscribe = store.subscribe(() => {
    seen++;
  });
  const live = plan.map((e) => ({ ...e }));
  const tick = (): void => {
    if (clock.now() - refreshedAt > 10_000) {
      podKeys = store.list('v1', 'Pod').map((p) => [p.metadata.namespace!, p.metadata.name!]);
      refreshedAt = clock.now();
    }
    const due = (rate * (clock.now() - started)) / 1000;
    // Bounded per tick so a slow consumer cannot make the driver spin.
    for (let i = 0; seen < due && i < rate; i++) {
      try {
        const r = rng.next();
        if (r < 0.7 && podKeys.length) flipReadiness(store, clock, rng.pick(podKeys));
        else if (r < 0.95 && podKeys.length) {
          const [ns, name] = rng.pick(podKeys);
          const p = store.get('v1', 'Pod', ns, name);
          if (p) store.update({ ...p, metadata: { ...p.metadata, labels: { ...(p.metadata.labels ?? {}), 'sim.workload-map.io/churn': String(++counter) } } });
        } else {
          const k = rng.int(0, live.length - 1);
          const e = live[k];
          const old = build(e.framework, e.shape).object;
          if (store.get(old.apiVersion, old.kind, old.metadata.namespace, old.metadata.name!)) store.delete(old.apiVersion, old.kind, old.metadata.namespace, old.metadata.name!);
          const base = e.shape.name.replace(/-r\d+$/, '');
          const shape = { ...e.shape, name: `${base}-r${++counter}` };
          live[k] = { ...e, shape };
          createQuiet(store, build(e.framework, shape).object);
        }
      } catch (err) {
        if (!(err instanceof StoreError)) throw err;
      }
      // A change that wrote nothing (pod gone, already flipped) still counts, so the loop ends.
      seen += 0.01;
    }
  };
  const stopTimer = clock.setInterval(tick, 100);
  return {
    stop: () => {
      stopTimer();
      unsubscribe();
    },
  };
}

/** A failed readiness probe: Ready and ContainersReady go False until the kubelet's next probe passes. */
export function flipReadiness(store: ObjectStore, clock: SimClock, [ns, name]: [string, string]): void {
  const p = store.get('v1', 'Pod', ns, name) as (KubeObject & { status?: { phase?: string; conditions?: Array<{ type: string; status: string; lastTransitionTime?: string; reason?: string }>; containerStatuses?: Array<Record<string, unknown>> } }) | undefined;
  if (!p || p.status?.phase !== 'Running') return;
  const now = clock.iso();
  const conditions = (p.status.conditions ?? []).map((c) => (c.type === 'Ready' || c.type === 'ContainersReady') && c.status === 'True' ? { ...c, status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [' + String((p.status!.containerStatuses ?? [])[0]?.name ?? '') + ']', lastTransitionTime: now } : c);
  store.updateStatus({ ...p, status: { ...p.status, conditions, containerStatuses: (p.status.containerStatuses ?? []).map((c) => ({ ...c, ready: false })) } });
}
