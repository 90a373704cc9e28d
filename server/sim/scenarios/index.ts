/**
 * Scenarios of the simulated cluster: `demo` (a small, lively cluster with every framework) and `scale`
 * (a generated cluster of a chosen size and churn rate). Scenarios create nodes and root objects; the
 * controllers (started separately on the same store) do the rest.
 */

import type { ObjectStore } from '../store/object-store.ts';
import { applyDemo } from './demo.ts';
import { applyScale, type ScaleOptions } from './scale.ts';

/** Every scenario's options: the scale scenario's, of which the demo reads the seed and the clock. */
export type ScenarioOptions = ScaleOptions;

export function applyScenario(store: ObjectStore, name: 'demo' | 'scale', options: ScenarioOptions = {}): { stop(): void } {
  if (name === 'demo') return applyDemo(store, options);
  if (name === 'scale') return applyScale(store, options);
  throw new Error(`unknown scenario "${String(name)}" (expected demo or scale)`);
}

export { DEMO_POOLS, DEMO_WORKLOADS } from './demo.ts';
export { planScale, scalePools } from './scale.ts';
export { createNodes } from './node-pools.ts';
