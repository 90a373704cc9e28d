/**
 * Expensive work off the request path: a small pool of worker threads, each with V8 resource
 * limits (heap, stack) and a wall-clock limit per job. A job that runs too long is stopped by
 * terminating its worker; one that exhausts its heap kills only its worker; a stack overflow is
 * caught inside the worker. The server's own thread never runs the job, so other requests keep
 * being answered while a hostile one burns its budget. A full queue answers at once instead of
 * piling up work.
 *
 * The worker loads one exported function of one module (`module`, an absolute path; TypeScript is
 * loaded through tsx) and calls it with each job's input; the input and the result travel by
 * structured clone.
 */
import { Worker } from 'node:worker_threads';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface WorkerLimits {
  /** Wall-clock time per job, from the moment it reaches a ready worker. */
  timeMs: number;
  maxOldGenerationSizeMb: number;
  maxYoungGenerationSizeMb: number;
  stackSizeMb: number;
}

export interface WorkerPoolOptions {
  /** Absolute path (or file URL) of the module that holds the function. */
  module: string;
  exportName: string;
  limits: WorkerLimits;
  /** Workers at most (default 1). */
  size?: number;
  /** Jobs waiting for a worker at most (default 8); beyond that `run` answers `queue` at once. */
  maxQueue?: number;
  /** A worker that is not ready within this time is given up (default 30 s). */
  startTimeoutMs?: number;
}

export type LimitKind = 'time' | 'memory' | 'stack' | 'queue' | 'unavailable' | 'aborted' | 'error';

export type Outcome<T> = { ok: true; value: T } | { ok: false; limit: LimitKind; message: string };

interface Job<In, Out> {
  input: In;
  done: boolean;
  resolve(o: Outcome<Out>): void;
}

interface Slot<In, Out> {
  worker: Worker;
  ready: Promise<boolean>;
  job: Job<In, Out> | null;
  dead: boolean;
  /** Why the worker died while running a job (memory, crash), if it did. */
  death: Outcome<Out> | null;
}

type WorkerMessage = { ready: true } | { ok: true; value: unknown } | { ok: false; kind: 'stack' | 'error'; message: string };

/**
 * The worker's entry, next to this file. Resolved when a worker starts (only in the custom server,
 * which runs this file unbundled), not when Next's bundle of a route handler loads this module.
 */
function bootFile(): string {
  return join(dirname(fileURLToPath(import.meta.url)), 'pool-worker.mjs');
}

export class WorkerPool<In, Out> {
  private readonly slots = new Set<Slot<In, Out>>();
  private readonly idle: Slot<In, Out>[] = [];
  private readonly queue: Job<In, Out>[] = [];
  private closed = false;
  private readonly size: number;
  private readonly maxQueue: number;

  constructor(private readonly o: WorkerPoolOptions) {
    this.size = Math.max(1, o.size ?? 1);
    this.maxQueue = Math.max(0, o.maxQueue ?? 8);
  }

  /** Starts one worker ahead of the first job, so that the first job does not wait for it. */
  warm(): void {
    if (!this.closed && this.slots.size === 0) this.idle.push(this.spawn());
  }

  run(input: In, signal?: AbortSignal): Promise<Outcome<Out>> {
    if (this.closed) return Promise.resolve({ ok: false, limit: 'unavailable', message: 'the worker pool is closed' });
    if (signal?.aborted) return Promise.resolve({ ok: false, limit: 'aborted', message: 'the request was aborted' });
    const free = this.idle.length > 0 || this.slots.size < this.size;
    if (!free && this.queue.length >= this.maxQueue) {
      return Promise.resolve({ ok: false, limit: 'queue', message: `${this.queue.length} jobs are already waiting for a worker` });
    }
    return new Promise((resolve) => {
      const job: Job<In, Out> = {
        input,
        done: false,
        resolve: (out) => {
          if (job.done) return;
          job.done = true;
          resolve(out);
        },
      };
      signal?.addEventListener(
        'abort',
        () => {
          const at = this.queue.indexOf(job);
          if (at >= 0) {
            this.queue.splice(at, 1);
            job.resolve({ ok: false, limit: 'aborted', message: 'the request was aborted' });
          }
        },
        { once: true },
      );
      this.queue.push(job);
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.resolve({ ok: false, limit: 'unavailable', message: 'the worker pool is closed' });
    await Promise.all([...this.slots].map((s) => this.kill(s, { ok: false, limit: 'unavailable', message: 'the worker pool is closed' })));
  }

  private pump(): void {
    while (this.queue.length > 0 && !this.closed) {
      const slot = this.idle.pop() ?? (this.slots.size < this.size ? this.spawn() : undefined);
      if (!slot) return;
      const job = this.queue.shift()!;
      void this.start(slot, job);
    }
  }

  private spawn(): Slot<In, Out> {
    const { limits } = this.o;
    const worker = new Worker(bootFile(), {
      workerData: { module: pathToFileURL(this.o.module.startsWith('file:') ? fileURLToPath(this.o.module) : this.o.module).href, exportName: this.o.exportName },
      resourceLimits: { maxOldGenerationSizeMb: limits.maxOldGenerationSizeMb, maxYoungGenerationSizeMb: limits.maxYoungGenerationSizeMb, stackSizeMb: limits.stackSizeMb },
      // The worker loads TypeScript itself; inheriting the parent's loader flags (`--import tsx`) would register it twice, and the worker would never start.
      execArgv: [],
      stdout: false,
      stderr: false,
    });
    worker.unref();
    let ready!: (ok: boolean) => void;
    const slot: Slot<In, Out> = { worker, ready: new Promise<boolean>((r) => (ready = r)), job: null, dead: false, death: null };
    const startTimer = setTimeout(() => {
      ready(false);
      void this.kill(slot, { ok: false, limit: 'unavailable', message: 'the worker did not start in time' });
    }, this.o.startTimeoutMs ?? 30_000);
    startTimer.unref();
    worker.on('message', (m: WorkerMessage) => {
      if ('ready' in m) {
        clearTimeout(startTimer);
        ready(true);
        return;
      }
      const job = slot.job;
      if (!job) return;
      slot.job = null;
      worker.unref();
      job.resolve(m.ok ? { ok: true, value: m.value as Out } : { ok: false, limit: m.kind, message: m.message });
      if (!slot.dead) {
        this.idle.push(slot);
        this.pump();
      }
    });
    worker.on('error', (e: Error & { code?: string }) => {
      slot.death ??= e.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? { ok: false, limit: 'memory', message: `the job needed more memory than the worker's ${limits.maxOldGenerationSizeMb} MiB heap` }
        : { ok: false, limit: 'error', message: (e.message || String(e)).split('\n')[0] };
    });
    worker.on('exit', () => {
      clearTimeout(startTimer);
      ready(false);
      this.forget(slot);
      slot.job?.resolve(slot.death ?? { ok: false, limit: 'unavailable', message: 'the worker stopped' });
      slot.job = null;
      this.pump();
    });
    this.slots.add(slot);
    return slot;
  }

  private async start(slot: Slot<In, Out>, job: Job<In, Out>): Promise<void> {
    slot.job = job;
    slot.worker.ref();
    if (!(await slot.ready)) {
      job.resolve(slot.death ?? { ok: false, limit: 'unavailable', message: 'the worker could not start' });
      return;
    }
    if (job.done) return;
    const { timeMs } = this.o.limits;
    const timer = setTimeout(() => {
      void this.kill(slot, { ok: false, limit: 'time', message: `the job ran longer than ${timeMs} ms and was stopped` });
    }, timeMs);
    const clear = () => clearTimeout(timer);
    slot.worker.once('message', clear).once('exit', clear);
    slot.worker.postMessage({ input: job.input });
  }

  private forget(slot: Slot<In, Out>): void {
    slot.dead = true;
    this.slots.delete(slot);
    const at = this.idle.indexOf(slot);
    if (at >= 0) this.idle.splice(at, 1);
  }

  private async kill(slot: Slot<In, Out>, why: Outcome<Out>): Promise<void> {
    slot.death ??= why;
    this.forget(slot);
    slot.job?.resolve(why);
    slot.job = null;
    await slot.worker.terminate();
  }
}
