/**
 * The Prometheus HTTP API, the parts utilization needs: instant and range queries (POSTed as forms,
 * since a query naming a workload's pods can be long), their envelope and errors.
 */
import type { Transport } from './transport.ts';

export class PrometheusError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export interface VectorSample {
  metric: Record<string, string>;
  /** Unix seconds. */
  time: number;
  value: number;
}

export interface MatrixSeries {
  metric: Record<string, string>;
  /** [unix seconds, value] */
  values: Array<[number, number]>;
}

interface Envelope {
  status?: string;
  error?: string;
  errorType?: string;
  warnings?: string[];
  data?: { resultType?: string; result?: unknown };
}

function parseEnvelope(status: number, body: string, what: string): Envelope {
  let env: Envelope;
  try {
    env = JSON.parse(body) as Envelope;
  } catch {
    throw new PrometheusError(status, `${what}: HTTP ${status}, not a Prometheus answer: ${body.slice(0, 160)}`);
  }
  if (status >= 400 || env.status !== 'success') {
    throw new PrometheusError(status, `${what}: ${env.errorType ?? `HTTP ${status}`}: ${env.error ?? body.slice(0, 160)}`);
  }
  return env;
}

const num = (v: unknown): number => (typeof v === 'string' ? Number(v) : Number.NaN);

export class PrometheusClient {
  readonly transport: Transport;
  private readonly timeoutMs: number;

  constructor(transport: Transport, timeoutMs = 20_000) {
    this.transport = transport;
    this.timeoutMs = timeoutMs;
  }

  /** An instant query; `time` in unix seconds (default: now at the server). */
  async query(expr: string, time?: number, signal?: AbortSignal): Promise<{ samples: VectorSample[]; warnings: string[]; bytes: number }> {
    const form = new URLSearchParams({ query: expr, timeout: `${Math.floor(this.timeoutMs / 1000)}s` });
    if (time !== undefined) form.set('time', String(time));
    const r = await this.transport.postForm('/api/v1/query', form, this.timeoutMs, signal);
    const env = parseEnvelope(r.status, r.body, 'query');
    if (env.data?.resultType !== 'vector' || !Array.isArray(env.data.result)) throw new PrometheusError(r.status, `query: expected a vector, got ${env.data?.resultType ?? 'nothing'}`);
    const samples: VectorSample[] = [];
    for (const s of env.data.result as Array<{ metric?: Record<string, string>; value?: [number, string] }>) {
      if (!s || !Array.isArray(s.value)) continue;
      samples.push({ metric: s.metric ?? {}, time: Number(s.value[0]), value: num(s.value[1]) });
    }
    return { samples, warnings: env.warnings ?? [], bytes: r.body.length };
  }

  async queryRange(expr: string, start: number, end: number, stepSeconds: number, signal?: AbortSignal): Promise<MatrixSeries[]> {
    const form = new URLSearchParams({ query: expr, start: String(start), end: String(end), step: String(stepSeconds), timeout: `${Math.floor(this.timeoutMs / 1000)}s` });
    const r = await this.transport.postForm('/api/v1/query_range', form, this.timeoutMs, signal);
    const env = parseEnvelope(r.status, r.body, 'query_range');
    if (env.data?.resultType !== 'matrix' || !Array.isArray(env.data.result)) throw new PrometheusError(r.status, `query_range: expected a matrix, got ${env.data?.resultType ?? 'nothing'}`);
    return (env.data.result as Array<{ metric?: Record<string, string>; values?: Array<[number, string]> }>).map((s) => ({
      metric: s.metric ?? {},
      values: (s.values ?? []).map(([t, v]) => [Number(t), num(v)] as [number, number]),
    }));
  }

  /** Answers at all (`/-/ready` is not served behind every proxy; a trivial query is). */
  async ping(signal?: AbortSignal): Promise<void> {
    await this.query('vector(1)', undefined, signal);
  }
}
