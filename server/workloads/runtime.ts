/**
 * The process-wide live state, shared between the server entry point (which creates it) and the
 * Next.js route handlers (which are bundled separately and so must find it on globalThis).
 */
import type { LiveWorkloads } from './live.ts';

/** Loopback-only hooks that end-to-end tests use to change the embedded simulated cluster. */
export interface TestHooks {
  run(action: string, args: Record<string, unknown>): Promise<unknown>;
}

export interface Runtime {
  live: LiveWorkloads;
  startedAt: string;
  /** Set when the embedded simulated cluster serves the data. */
  demo: { kubeconfigPath: string } | null;
  testHooks: TestHooks | null;
}

const KEY = Symbol.for('workload-map.runtime');

export function setRuntime(r: Runtime | null): void {
  (globalThis as Record<symbol, unknown>)[KEY] = r;
}

export function getRuntime(): Runtime | null {
  return ((globalThis as Record<symbol, unknown>)[KEY] as Runtime | undefined) ?? null;
}
