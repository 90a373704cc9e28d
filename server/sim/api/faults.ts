/**
 * Fault injection, switchable at run time: dropped watches, 410 for recent versions, 429/500 with
 * Retry-After, added latency. The server asks the controller at each request; nothing here does I/O.
 */

export interface FaultOptions {
  /** Probability, checked once per second per open watch, that the watch is dropped. */
  watchDropProbability?: number;
  /** Drop every open watch every N seconds (0/absent = never). */
  watchDropEverySeconds?: number;
  /**
   * How a watch is dropped: `close` ends the stream cleanly (clients re-watch from their last version),
   * `reset` destroys the socket (client-node informers report an error and stop).
   */
  watchDropMode?: 'close' | 'reset';
  /** Answer watches that name a resourceVersion with a 410 ERROR event, as if history were compacted. */
  watchGone?: boolean;
  /** Same, for a fraction (0..1) of such watches. */
  watchGoneProbability?: number;
  /** Fraction (0..1) of API requests answered with an error instead. */
  errorRate?: number;
  /** Codes to pick from for those errors (default [429, 500]). */
  errorCodes?: number[];
  /** Retry-After seconds sent with those errors (default 1). */
  retryAfterSeconds?: number;
  /** Only requests whose path contains this string are affected (default all API requests). */
  errorPathContains?: string;
  /** Latency added before every API request is answered, in milliseconds. */
  latencyMs?: number;
  /** Random extra latency up to this many milliseconds. */
  latencyJitterMs?: number;
}

export interface InjectedError {
  code: number;
  retryAfterSeconds: number;
}

type Listener = (event: 'changed' | 'drop-watches') => void;

export class FaultController {
  private options: FaultOptions;
  private readonly listeners = new Set<Listener>();
  private readonly random: () => number;

  constructor(initial: FaultOptions = {}, random: () => number = Math.random) {
    this.options = { ...initial };
    this.random = random;
  }

  get(): FaultOptions {
    return { ...this.options };
  }

  /** Merges settings; a null value turns that fault off. */
  set(patch: { [K in keyof FaultOptions]?: FaultOptions[K] | null }): FaultOptions {
    const next: Record<string, unknown> = { ...this.options };
    for (const [k, v] of Object.entries(patch)) {
      if (v === null || v === undefined) delete next[k];
      else next[k] = v;
    }
    this.options = validateFaults(next);
    this.emit('changed');
    return this.get();
  }

  /** Turns every fault off. */
  reset(): void {
    this.options = {};
    this.emit('changed');
  }

  /** Drops every open watch now (in the configured mode). */
  dropWatches(): void {
    this.emit('drop-watches');
  }

  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: 'changed' | 'drop-watches'): void {
    for (const l of this.listeners) l(event);
  }

  /** Milliseconds to wait before answering. */
  latency(): number {
    const base = this.options.latencyMs ?? 0;
    const jitter = this.options.latencyJitterMs ?? 0;
    return base + (jitter > 0 ? Math.floor(this.random() * jitter) : 0);
  }

  /** An error to answer instead of the request, or undefined. */
  injectedError(path: string): InjectedError | undefined {
    const rate = this.options.errorRate ?? 0;
    if (rate <= 0) return undefined;
    if (this.options.errorPathContains && !path.includes(this.options.errorPathContains)) return undefined;
    if (this.random() >= rate) return undefined;
    const codes = this.options.errorCodes?.length ? this.options.errorCodes : [429, 500];
    return { code: codes[Math.floor(this.random() * codes.length)], retryAfterSeconds: this.options.retryAfterSeconds ?? 1 };
  }

  /** Whether a watch from an explicit resourceVersion gets a 410 now. */
  watchGone(): boolean {
    if (this.options.watchGone) return true;
    const p = this.options.watchGoneProbability ?? 0;
    return p > 0 && this.random() < p;
  }

  /** Checked once a second for each open watch. */
  dropThisSecond(): boolean {
    const p = this.options.watchDropProbability ?? 0;
    return p > 0 && this.random() < p;
  }

  dropEverySeconds(): number {
    return this.options.watchDropEverySeconds ?? 0;
  }

  dropMode(): 'close' | 'reset' {
    return this.options.watchDropMode ?? 'close';
  }
}

/** Checks a settings object from the control endpoint; throws with a message naming the bad field. */
export function validateFaults(input: Record<string, unknown>): FaultOptions {
  const out: FaultOptions = {};
  const fraction = (k: string) => {
    const v = input[k];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !(v >= 0 && v <= 1)) throw new Error(`${k} must be a number between 0 and 1`);
    return v;
  };
  const nonNegative = (k: string) => {
    const v = input[k];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !(v >= 0) || !Number.isFinite(v)) throw new Error(`${k} must be a non-negative number`);
    return v;
  };
  const known = new Set(['watchDropProbability', 'watchDropEverySeconds', 'watchDropMode', 'watchGone', 'watchGoneProbability', 'errorRate', 'errorCodes', 'retryAfterSeconds', 'errorPathContains', 'latencyMs', 'latencyJitterMs']);
  for (const k of Object.keys(input)) if (!known.has(k)) throw new Error(`unknown fault setting ${k}`);
  out.watchDropProbability = fraction('watchDropProbability');
  out.watchGoneProbability = fraction('watchGoneProbability');
  out.errorRate = fraction('errorRate');
  out.watchDropEverySeconds = nonNegative('watchDropEverySeconds');
  out.retryAfterSeconds = nonNegative('retryAfterSeconds');
  out.latencyMs = nonNegative('latencyMs');
  out.latencyJitterMs = nonNegative('latencyJitterMs');
  if (input.watchDropMode !== undefined) {
    if (input.watchDropMode !== 'close' && input.watchDropMode !== 'reset') throw new Error('watchDropMode must be "close" or "reset"');
    out.watchDropMode = input.watchDropMode;
  }
  if (input.watchGone !== undefined) {
    if (typeof input.watchGone !== 'boolean') throw new Error('watchGone must be a boolean');
    out.watchGone = input.watchGone;
  }
  if (input.errorCodes !== undefined) {
    if (!Array.isArray(input.errorCodes) || !input.errorCodes.every((c) => Number.isInteger(c) && c >= 400 && c <= 599)) throw new Error('errorCodes must be a list of HTTP error codes');
    out.errorCodes = input.errorCodes as number[];
  }
  if (input.errorPathContains !== undefined) {
    if (typeof input.errorPathContains !== 'string') throw new Error('errorPathContains must be a string');
    out.errorPathContains = input.errorPathContains;
  }
  for (const k of Object.keys(out) as Array<keyof FaultOptions>) if (out[k] === undefined) delete out[k];
  return out;
}

/**
 * Parses a command-line fault spec, `key=value` pairs separated by commas:
 * `errorRate=0.05,errorCodes=429|500,latencyMs=50,watchDropEverySeconds=30,watchGone=true`.
 */
export function parseFaultSpec(spec: string): FaultOptions {
  const input: Record<string, unknown> = {};
  for (const part of spec.split(',').map((p) => p.trim()).filter(Boolean)) {
    const i = part.indexOf('=');
    const key = i < 0 ? part : part.slice(0, i).trim();
    const value = i < 0 ? 'true' : part.slice(i + 1).trim();
    if (key === 'errorCodes') input[key] = value.split('|').map(Number);
    else if (value === 'true' || value === 'false') input[key] = value === 'true';
    else if (key === 'watchDropMode' || key === 'errorPathContains') input[key] = value;
    else input[key] = Number(value);
  }
  return validateFaults(input);
}
