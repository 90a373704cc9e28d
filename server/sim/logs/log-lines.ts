/**
 * What a simulated container prints, computed on demand and never stored (pure). A run of a container
 * (one start, until it exits or now) prints a start-up preamble, then one line per period, then — when it
 * has exited — an ending that matches how it exited. Every line's time and text follow from the pod's
 * uid, the container, the run and the line's index, so any slice of a log (since a time, the last N
 * lines) is found by arithmetic, the same on every request, and memory does not grow with time.
 *
 * Flavours by what the pod runs: training (step, loss falling over time, learning rate, tokens/s),
 * inference (vLLM-style engine metrics and request lines), and a generic service or batch log.
 */

import { fnv32 } from '../controllers/random.ts';
import type { Container, Pod } from '../controllers/types.ts';
import { isGpuResource } from '../controllers/quantity.ts';

export type Flavour = 'training' | 'inference' | 'generic';

export interface LogRun {
  pod: Pod;
  container: Container;
  /** Which start of the container (its restart count at the time). */
  run: number;
  startMs: number;
  /** When it exited; undefined while it runs. */
  endMs?: number;
  exitCode?: number;
  /** `terminated.reason`: Completed, Error, OOMKilled … */
  exitReason?: string;
}

export interface LogLine {
  ms: number;
  /** RFC3339Nano, as `timestamps=true` prefixes it. */
  stamp: string;
  text: string;
}

const PREAMBLE_STEP_MS = 150;

/** A uniform number in [0, 1) for (run, line, salt), stable across requests. */
function unit(seed: number, k: number, salt = 0): number {
  let h = (seed ^ Math.imul(k + 1, 0x9e3779b1) ^ Math.imul(salt + 7, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b) >>> 0;
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}

function needsGpu(c: Container): boolean {
  const r = { ...(c.resources?.requests ?? {}), ...(c.resources?.limits ?? {}) };
  return Object.keys(r).some(isGpuResource);
}

/** Which kind of log a container writes, from its image and the labels its operator gave the pod. */
export function flavourOf(pod: Pod, c: Container): Flavour {
  const image = c.image ?? '';
  if (/queue@|queue:|sklearnserver|minio|etcd|redis|nginx|milvus|jupyter|notebook|helloworld/.test(image)) return 'generic';
  if (/vllm|sglang|dynamo|\/nim\/|huggingfaceserver|tritonserver|tensorrt/.test(image)) return 'inference';
  const labels = pod.metadata.labels ?? {};
  const trainingLabels = Object.keys(labels).some((k) => k.startsWith('training.kubeflow.org/') || k.startsWith('jobset.sigs.k8s.io/')) || labels['ray.io/node-type'] === 'worker';
  if (trainingLabels && (needsGpu(c) || /pytorch|mpi|ray/.test(image))) return 'training';
  return 'generic';
}

interface Model {
  periodMs: number;
  preamble: string[];
  line(k: number, ms: number): string;
  ending(): string[];
}

function two(n: number): string {
  return String(n).padStart(2, '0');
}

function clock(ms: number): { date: string; time: string; mmdd: string; millis: string } {
  const d = new Date(ms);
  return {
    date: `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}`,
    time: `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`,
    mmdd: `${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}`,
    millis: String(d.getUTCMilliseconds()).padStart(3, '0'),
  };
}

function rankOf(pod: Pod): number {
  const l = pod.metadata.labels ?? {};
  const v = l['training.kubeflow.org/replica-index'] ?? l['batch.kubernetes.io/job-completion-index'] ?? l['jobset.sigs.k8s.io/job-index'] ?? l['leaderworkerset.sigs.k8s.io/worker-index'];
  return Number(v ?? 0) || 0;
}

function exitedBadly(r: LogRun): boolean {
  return r.endMs !== undefined && (r.exitCode ?? 0) !== 0;
}

/** The traceback a crashing Python process leaves: CUDA out of memory on a GPU, a bad config otherwise. */
function traceback(r: LogRun, gpu: boolean, prefix: string): string[] {
  const lines = ['Traceback (most recent call last):', '  File "/workspace/train.py", line 412, in <module>', '    main()', '  File "/workspace/train.py", line 398, in main'];
  if (gpu) {
    const free = (0.5 + unit(fnv32(r.pod.metadata.uid ?? ''), r.run, 3) * 1.5).toFixed(2);
    lines.push(
      '    loss = model(**batch).loss',
      '  File "/usr/local/lib/python3.12/dist-packages/torch/nn/modules/module.py", line 1751, in _wrapped_call_impl',
      '    return self._call_impl(*args, **kwargs)',
      `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU 0 has a total capacity of 79.19 GiB of which ${free} GiB is free. Process has 77.12 GiB memory in use. Of the allocated memory 74.83 GiB is allocated by PyTorch, and 1.61 GiB is reserved by PyTorch but unallocated.`,
    );
  } else {
    lines.push('    cfg = load_config(os.environ["CONFIG_PATH"])', '  File "/usr/local/lib/python3.12/os.py", line 714, in __getitem__', '    raise KeyError(key) from None', "KeyError: 'CONFIG_PATH'");
  }
  return lines.map((l) => `${prefix}${l}`);
}

function trainingModel(r: LogRun): Model {
  const seed = fnv32(`${r.pod.metadata.uid}/${r.container.name}/${r.run}`);
  const rank = rankOf(r.pod);
  const gpu = needsGpu(r.container);
  const stepsPerLine = 10;
  const stamp = (ms: number): string => {
    const c = clock(ms);
    return `[${c.date} ${c.time},${c.millis}] [INFO] [rank${rank}]`;
  };
  // A restarted run resumes from its last checkpoint, a little behind where the previous one stopped.
  const resume = r.run * 400;
  return {
    periodMs: 3000,
    preamble: [
      `[${clock(r.startMs).date} ${clock(r.startMs).time}] [INFO] torch.distributed: initializing process group backend=nccl rank=${rank}`,
      `NCCL INFO Bootstrap : Using eth0:10.244.${rank % 250}.${(seed % 200) + 10}<0>`,
      'NCCL INFO NET/Plugin: Using internal network plugin.',
      `[rank${rank}] loading dataset shards: 128 files, 4.2B tokens`,
      `[rank${rank}] model: 8.03B parameters, bf16, FSDP full shard, activation checkpointing on`,
      ...(resume > 0 ? [`[rank${rank}] resuming from checkpoint /checkpoints/step-${resume}`] : []),
      `[rank${rank}] starting training: global batch 512, seq len 4096, max steps 20000`,
    ],
    line(k, ms) {
      const step = resume + (k + 1) * stepsPerLine;
      const u = unit(seed, k);
      const loss = 1.45 + 9.4 * Math.exp(-step / 900) + (u - 0.5) * 0.06;
      const warm = Math.min(1, step / 500);
      const lr = 3e-4 * warm * (0.5 * (1 + Math.cos((Math.PI * Math.min(step, 20000)) / 20000)));
      const tps = Math.round((gpu ? 15200 : 900) * (0.96 + unit(seed, k, 1) * 0.08));
      const gradNorm = (0.6 + 2.4 * Math.exp(-step / 1500) + unit(seed, k, 2) * 0.2).toFixed(3);
      return `${stamp(ms)} step ${step}/20000 | loss ${loss.toFixed(4)} | lr ${lr.toExponential(2)} | grad_norm ${gradNorm} | tokens/s ${tps} | mem ${(gpu ? 61 + unit(seed, k, 4) * 3 : 3.1).toFixed(1)}GiB`;
    },
    ending() {
      const end = r.endMs ?? r.startMs;
      if (r.exitReason === 'OOMKilled') {
        return [`${stamp(end - 1)} WARNING host memory 97% of the container limit (dataloader workers 8, prefetch 4); the kernel may kill this process`];
      }
      if (exitedBadly(r)) return traceback(r, gpu, '');
      return [`${stamp(end)} saving final checkpoint to /checkpoints/final`, `${stamp(end)} training finished`];
    },
  };
}

function inferenceModel(r: LogRun): Model {
  const seed = fnv32(`${r.pod.metadata.uid}/${r.container.name}/${r.run}`);
  const image = r.container.image ?? '';
  const version = /vllm-openai:v?([\d.]+)/.exec(image)?.[1] ?? '0.9.1';
  const info = (ms: number, where: string): string => {
    const c = clock(ms);
    return `INFO ${c.mmdd} ${c.time} [${where}]`;
  };
  const client = (k: number): string => `10.244.${(seed + k) % 16}.${2 + ((seed >>> 8) + k * 7) % 250}:${30000 + ((seed + k * 977) % 30000)}`;
  return {
    periodMs: 2000,
    preamble: [
      `${info(r.startMs, 'api_server.py:1287')} vLLM API server version ${version}`,
      `${info(r.startMs, 'config.py:793')} This model supports multiple tasks: {'generate'}. Defaulting to 'generate'.`,
      `${info(r.startMs, 'gpu_model_runner.py:1595')} Model loading took 14.99 GiB and 21.84 seconds`,
      `${info(r.startMs, 'kv_cache_utils.py:715')} GPU KV cache size: 412,176 tokens`,
      `${info(r.startMs, 'api_server.py:1351')} Starting vLLM API server on http://0.0.0.0:8000`,
      `INFO:     Started server process [1]`,
      `INFO:     Application startup complete.`,
    ],
    line(k, ms) {
      // Every fifth line is the engine's periodic stats; the others are requests it answered.
      if (k % 5 === 4) {
        const u = unit(seed, k);
        const running = 4 + Math.floor(u * 28);
        const waiting = u > 0.85 ? Math.floor(unit(seed, k, 1) * 6) : 0;
        const prompt = (running * (180 + unit(seed, k, 2) * 90)).toFixed(1);
        const gen = (running * (38 + unit(seed, k, 3) * 14)).toFixed(1);
        const kv = (running * 2.4 + unit(seed, k, 4) * 5).toFixed(1);
        return `${info(ms, 'loggers.py:118')} Engine 000: Avg prompt throughput: ${prompt} tokens/s, Avg generation throughput: ${gen} tokens/s, Running: ${running} reqs, Waiting: ${waiting} reqs, GPU KV cache usage: ${kv}%, Prefix cache hit rate: ${(30 + unit(seed, k, 5) * 40).toFixed(1)}%`;
      }
      const path = unit(seed, k, 6) < 0.8 ? '/v1/chat/completions' : '/v1/completions';
      return `INFO:     ${client(k)} - "POST ${path} HTTP/1.1" 200 OK`;
    },
    ending() {
      const end = r.endMs ?? r.startMs;
      if (r.exitReason === 'OOMKilled') return [];
      if (exitedBadly(r)) return traceback(r, true, '');
      return [`${info(end, 'launcher.py:80')} Shutting down FastAPI HTTP server.`, 'INFO:     Shutting down', 'INFO:     Application shutdown complete.'];
    },
  };
}

function genericModel(r: LogRun): Model {
  const seed = fnv32(`${r.pod.metadata.uid}/${r.container.name}/${r.run}`);
  const name = r.container.name;
  const batch = (r.pod.spec.restartPolicy ?? 'Always') !== 'Always';
  const at = (ms: number): string => `${new Date(ms).toISOString()} INFO ${name}:`;
  return {
    periodMs: 5000,
    preamble: [`${at(r.startMs)} starting (image ${r.container.image ?? ''})`, `${at(r.startMs)} configuration loaded`, batch ? `${at(r.startMs)} processing input` : `${at(r.startMs)} listening on :8080`],
    line(k, ms) {
      const u = unit(seed, k);
      if (batch) return `${at(ms)} processed ${(k + 1) * 1000} records (${Math.round(180 + u * 40)} records/s)`;
      if (r.exitReason === 'OOMKilled' || exitedBadly(r)) {
        // A process heading for its memory limit: the resident set grows run after run of lines.
        return `${at(ms)} indexed batch ${k + 1}, ${Math.round(900 + u * 200)} docs, rss ${(0.4 + k * 0.02).toFixed(2)} GiB`;
      }
      return `${at(ms)} GET /healthz 200 ${(0.2 + u * 1.5).toFixed(2)}ms`;
    },
    ending() {
      const end = r.endMs ?? r.startMs;
      if (r.exitReason === 'OOMKilled') return [`${new Date(end - 1).toISOString()} WARN ${name}: memory usage at 98% of the container limit`];
      if (exitedBadly(r)) return traceback(r, false, '');
      return [`${at(end)} done`];
    },
  };
}

function modelOf(r: LogRun): Model {
  const f = flavourOf(r.pod, r.container);
  return f === 'training' ? trainingModel(r) : f === 'inference' ? inferenceModel(r) : genericModel(r);
}

function rfc3339Nano(ms: number, extraNs: number): string {
  const iso = new Date(ms).toISOString();
  const frac = `${iso.slice(20, 23)}${String(extraNs).padStart(6, '0')}`.replace(/0+$/, '');
  return `${iso.slice(0, 19)}${frac ? `.${frac}` : ''}Z`;
}

/** A container run's log: how many lines by a time, and any line by its index. */
export class RunLog {
  private readonly model: Model;
  private readonly seed: number;
  private readonly periodicStart: number;
  private readonly ending: string[];

  constructor(readonly r: LogRun) {
    this.model = modelOf(r);
    this.seed = fnv32(`${r.pod.metadata.uid}/${r.container.name}/${r.run}/t`);
    this.periodicStart = r.startMs + this.model.preamble.length * PREAMBLE_STEP_MS;
    this.ending = r.endMs !== undefined ? this.model.ending() : [];
  }

  /** Periodic lines of an exited run (they stop before its ending is written); Infinity while it runs. */
  private periodicTotal(): number {
    return this.r.endMs !== undefined ? this.periodicBefore(this.r.endMs - this.ending.length) : Infinity;
  }

  private periodicMs(k: number): number {
    // Up to half a period late, so lines do not tick like a metronome (still in order).
    return this.periodicStart + (k + 1) * this.model.periodMs + Math.floor(unit(this.seed, k) * this.model.periodMs * 0.5);
  }

  /** Periodic lines written strictly before `ms`. */
  private periodicBefore(ms: number): number {
    if (ms <= this.periodicStart + this.model.periodMs) return 0;
    let k = Math.floor((ms - this.periodicStart) / this.model.periodMs) - 1;
    while (k >= 0 && this.periodicMs(k) >= ms) k--;
    return k + 1;
  }

  /** Lines written up to and including `nowMs` (all of them for an exited run). */
  count(nowMs: number): number {
    const end = this.r.endMs;
    const until = end !== undefined ? Math.min(end, nowMs) : nowMs;
    const pre = Math.min(this.model.preamble.length, Math.max(0, Math.floor((until - this.r.startMs) / PREAMBLE_STEP_MS) + 1));
    if (pre < this.model.preamble.length) return pre;
    const periodic = Math.min(this.periodicTotal(), this.periodicBefore(nowMs + 1));
    const ended = end !== undefined && nowMs >= end ? this.ending.length : 0;
    return pre + periodic + ended;
  }

  /** The index of the first line written at or after `ms`. */
  firstAtOrAfter(ms: number): number {
    const pre = this.model.preamble.length;
    if (ms <= this.r.startMs) return 0;
    const preIdx = Math.ceil((ms - this.r.startMs) / PREAMBLE_STEP_MS);
    if (preIdx < pre) return preIdx;
    const periodic = this.periodicBefore(ms);
    const end = this.r.endMs;
    const all = this.periodicTotal();
    if (end !== undefined && periodic >= all) return pre + all + (ms <= end - this.ending.length ? 0 : Math.min(this.ending.length, ms - (end - this.ending.length)));
    return pre + periodic;
  }

  line(i: number): LogLine {
    const pre = this.model.preamble.length;
    let ms: number;
    let text: string;
    if (i < pre) {
      ms = this.r.startMs + i * PREAMBLE_STEP_MS;
      text = this.model.preamble[i];
    } else {
      const k = i - pre;
      const periodic = this.periodicTotal();
      if (k < periodic) {
        ms = this.periodicMs(k);
        text = this.model.line(k, ms);
      } else {
        const e = k - periodic;
        ms = this.r.endMs! - (this.ending.length - e);
        text = this.ending[e] ?? '';
      }
    }
    return { ms, stamp: rfc3339Nano(ms, Math.floor(unit(this.seed, i, 9) * 1e6)), text };
  }
}
