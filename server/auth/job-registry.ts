/**
 * Where route handlers find the custom server's job runners (worker pools for work a client's input
 * makes expensive: the studio's trials and drafts). Published on globalThis like the validator,
 * since the route handlers are bundled apart from the server; no worker code here.
 */
import type { RequestProblem } from './problem.ts';

export interface JobRunner<In, Out> {
  run(input: In, signal?: AbortSignal): Promise<{ ok: true; result: Out } | { ok: false; problem: RequestProblem }>;
  close(): Promise<void>;
}

const KEY = Symbol.for('workload-map.job-runners');

function runners(): Map<string, JobRunner<unknown, unknown>> {
  const g = globalThis as Record<symbol, unknown>;
  let m = g[KEY] as Map<string, JobRunner<unknown, unknown>> | undefined;
  if (!m) g[KEY] = m = new Map();
  return m;
}

export function setJobRunner(name: string, r: JobRunner<unknown, unknown> | null): void {
  if (r) runners().set(name, r);
  else runners().delete(name);
}

export function getJobRunner<In, Out>(name: string): JobRunner<In, Out> | null {
  return (runners().get(name) as JobRunner<In, Out> | undefined) ?? null;
}
