/**
 * `GET /api/v1/namespaces/{ns}/pods/{name}/log`: the simulated kubelet's container logs (lines from
 * logs/log-lines.ts), with the API server's and kubelet's rules: which container (required when there are
 * several), which run (`previous`), `sinceSeconds` / `sinceTime`, `tailLines`, `limitBytes`,
 * `timestamps`, and `follow` — a chunked text/plain stream that sends lines as the simulated clock
 * reaches them and ends when the container stops or the client goes. Nothing is kept per pod.
 */

import type { ServerResponse } from 'node:http';
import type { Container, ContainerStatus, Pod } from '../../controllers/types.ts';
import type { LogRun } from '../../logs/log-lines.ts';
import { RunLog } from '../../logs/log-lines.ts';
import type { ResourceRequest } from '../context.ts';
import { boolParam } from '../request.ts';
import { ApiError, badRequest, invalid } from '../status.ts';
import { current } from './resource.ts';

/** How often a follow stream looks for new lines (real time). */
const FOLLOW_POLL_MS = 200;
/** Lines per write while catching up, so a long log goes out in chunks with back-pressure. */
const BATCH = 500;

interface LogQuery {
  container?: string;
  previous: boolean;
  follow: boolean;
  timestamps: boolean;
  tailLines?: number;
  limitBytes?: number;
  sinceSeconds?: number;
  sinceTime?: number;
}

function nonNegative(q: URLSearchParams, name: string, min: number): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw badRequest(`invalid value "${v}" for ${name}`);
  const n = Number(v);
  if (n < min) throw invalid('PodLogOptions', '', '', name, `Invalid value: ${n}: must be greater than ${min === 0 ? 'or equal to 0' : min - 1}`);
  return n;
}

function parseQuery(q: URLSearchParams): LogQuery {
  const sinceRaw = q.get('sinceTime');
  const sinceTime = sinceRaw ? Date.parse(sinceRaw) : undefined;
  if (sinceRaw && Number.isNaN(sinceTime)) throw badRequest(`parsing time "${sinceRaw}" as "2006-01-02T15:04:05Z07:00": cannot parse`);
  const sinceSeconds = nonNegative(q, 'sinceSeconds', 1);
  if (sinceSeconds !== undefined && sinceTime !== undefined) throw invalid('PodLogOptions', '', '', 'sinceSeconds', 'Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified', 'FieldValueForbidden');
  return {
    container: q.get('container') || undefined,
    previous: boolParam(q.get('previous')),
    follow: boolParam(q.get('follow')),
    timestamps: boolParam(q.get('timestamps')),
    tailLines: nonNegative(q, 'tailLines', 0),
    limitBytes: nonNegative(q, 'limitBytes', 1),
    sinceSeconds,
    sinceTime,
  };
}

/** The API server's choice of container: the only one, or the one named (with the real messages). */
function pickContainer(pod: Pod, name: string | undefined): { container: Container; init: boolean } {
  const main = pod.spec.containers ?? [];
  const inits = pod.spec.initContainers ?? [];
  const podName = pod.metadata.name!;
  if (!name) {
    if (main.length === 1) return { container: main[0], init: false };
    if (main.length === 0) throw badRequest(`a container name must be specified for pod ${podName}`);
    let msg = `a container name must be specified for pod ${podName}, choose one of: [${main.map((c) => c.name).join(' ')}]`;
    if (inits.length > 0) msg += ` or one of the init containers: [${inits.map((c) => c.name).join(' ')}]`;
    throw badRequest(msg);
  }
  const m = main.find((c) => c.name === name);
  if (m) return { container: m, init: false };
  const i = inits.find((c) => c.name === name);
  if (i) return { container: i, init: true };
  throw badRequest(`container ${name} is not valid for pod ${podName}`);
}

/** The run whose log is asked for, with the kubelet's errors when there is none (validateContainerLogStatus). */
function runOf(pod: Pod, container: Container, init: boolean, previous: boolean): LogRun {
  const statuses = (init ? pod.status?.initContainerStatuses : pod.status?.containerStatuses) ?? [];
  const st: ContainerStatus | undefined = statuses.find((s) => s.name === container.name);
  const podName = pod.metadata.name!;
  const name = container.name;
  if (!st) throw badRequest(`container "${name}" in pod "${podName}" is waiting to start: ContainerCreating`);
  const last = st.lastState?.terminated;
  const lastRun = (): LogRun => ({ pod, container, run: Math.max(0, st.restartCount - 1), startMs: Date.parse(last!.startedAt ?? pod.status?.startTime ?? ''), endMs: Date.parse(last!.finishedAt ?? ''), exitCode: last!.exitCode, exitReason: last!.reason });
  if (previous) {
    if (!last?.finishedAt) throw badRequest(`previous terminated container "${name}" in pod "${podName}" not found`);
    return lastRun();
  }
  const { running, terminated, waiting } = st.state ?? {};
  if (running) return { pod, container, run: st.restartCount, startMs: Date.parse(running.startedAt) };
  if (terminated?.finishedAt) {
    return { pod, container, run: st.restartCount, startMs: Date.parse(terminated.startedAt ?? pod.status?.startTime ?? ''), endMs: Date.parse(terminated.finishedAt), exitCode: terminated.exitCode, exitReason: terminated.reason };
  }
  if (last?.finishedAt) return lastRun();
  const reason = waiting?.reason;
  if (reason === 'ErrImagePull') throw badRequest(`container "${name}" in pod "${podName}" is waiting to start: image can't be pulled`);
  if (reason === 'ImagePullBackOff') throw badRequest(`container "${name}" in pod "${podName}" is waiting to start: trying and failing to pull image`);
  if (reason) throw badRequest(`container "${name}" in pod "${podName}" is waiting to start: ${reason}`);
  throw badRequest(`container "${name}" in pod "${podName}" is waiting to start - no logs yet`);
}

let following = 0;

/** Follow streams open right now, in this process (tests check that none outlives its client). */
export function openFollowStreams(): number {
  return following;
}

/** Writes text, resolving once the socket can take more (back-pressure), or at once if it is gone. */
function write(res: ServerResponse, text: string): Promise<void> {
  if (res.destroyed || res.writableEnded) return Promise.resolve();
  if (res.write(text)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

/** Writes lines of a run's log as asked (timestamps, limitBytes counted over the whole response). */
class LogWriter {
  private bytes = 0;
  constructor(
    private readonly res: ServerResponse,
    private readonly q: LogQuery,
  ) {}

  /** True once limitBytes is reached. */
  get full(): boolean {
    return this.q.limitBytes !== undefined && this.bytes >= this.q.limitBytes;
  }

  /** Sends lines [from, to) in batches; stops early at limitBytes. */
  async send(log: RunLog, from: number, to: number): Promise<void> {
    for (let i = from; i < to && !this.full && !this.res.destroyed; i += BATCH) {
      let chunk = '';
      for (let j = i; j < Math.min(to, i + BATCH); j++) {
        const l = log.line(j);
        chunk += this.q.timestamps ? `${l.stamp} ${l.text}\n` : `${l.text}\n`;
      }
      if (this.q.limitBytes !== undefined) {
        const left = this.q.limitBytes - this.bytes;
        const buf = Buffer.from(chunk, 'utf8');
        if (buf.length > left) chunk = buf.subarray(0, left).toString('utf8');
        this.bytes += Math.min(buf.length, left);
      }
      await write(this.res, chunk);
    }
  }
}

/** The first line to send: after sinceSeconds / sinceTime, then only the last tailLines of what is there. */
function firstLine(log: RunLog, q: LogQuery, nowMs: number, total: number): number {
  let from = 0;
  if (q.sinceSeconds !== undefined) from = log.firstAtOrAfter(nowMs - q.sinceSeconds * 1000);
  else if (q.sinceTime !== undefined) from = log.firstAtOrAfter(q.sinceTime);
  if (q.tailLines !== undefined) from = Math.max(from, total - q.tailLines);
  return Math.min(from, total);
}

export async function podLog({ ctx, req, res, url, p }: ResourceRequest, desc: ResourceRequest['desc']): Promise<void> {
  if ((req.method ?? 'GET') !== 'GET') throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', undefined, { Allow: 'GET' });
  const q = parseQuery(url.searchParams);
  const pod = current(ctx.store, desc, p) as Pod;
  const { container, init } = pickContainer(pod, q.container);
  const headers = { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private' };
  // An unscheduled pod has no kubelet to ask: the API server answers an empty log.
  if (!pod.spec.nodeName) {
    res.writeHead(200, headers);
    res.end();
    return;
  }
  const now = ctx.now();
  const run = runOf(pod, container, init, q.previous);
  const log = new RunLog(run);
  const total = log.count(now);
  const writer = new LogWriter(res, q);
  res.writeHead(200, headers);
  const from = firstLine(log, q, now, total);
  await writer.send(log, from, total);
  if (!q.follow || run.endMs !== undefined || writer.full) {
    res.end();
    return;
  }
  await follow(ctx, res, writer, log, { pod, container, init, sent: total });
}

/** Keeps sending the followed run's new lines until it ends, the pod goes, or the client disconnects. */
function follow(ctx: ResourceRequest['ctx'], res: ServerResponse, writer: LogWriter, log: RunLog, s: { pod: Pod; container: Container; init: boolean; sent: number }): Promise<void> {
  const ns = s.pod.metadata.namespace;
  const name = s.pod.metadata.name!;
  const uid = s.pod.metadata.uid;
  const statusOf = (pod: Pod | undefined): ContainerStatus | undefined =>
    ((s.init ? pod?.status?.initContainerStatuses : pod?.status?.containerStatuses) ?? []).find((c) => c.name === s.container.name);
  const followedId = statusOf(s.pod)?.containerID;
  following++;
  return new Promise((resolve) => {
    let busy = false;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      following--;
      clearInterval(timer);
      res.off('close', finish);
      if (!res.writableEnded && !res.destroyed) res.end();
      resolve();
    };
    const tick = async (): Promise<void> => {
      if (busy || done) return;
      busy = true;
      try {
        const pod = ctx.store.get('v1', 'Pod', ns, name) as Pod | undefined;
        if (!pod || pod.metadata.uid !== uid) return finish();
        const st = statusOf(pod);
        // The run ended when its container is no longer the running one: its last lines and ending, then the end.
        const ended = !st?.state.running || st.containerID !== followedId;
        let ending: RunLog | undefined;
        if (ended) {
          const t = st?.state.terminated?.containerID === followedId ? st?.state.terminated : st?.lastState.terminated;
          const endMs = t?.finishedAt ? Date.parse(t.finishedAt) : ctx.now();
          ending = new RunLog({ ...log.r, endMs, exitCode: t?.exitCode, exitReason: t?.reason });
        }
        const source = ending ?? log;
        const total = source.count(ctx.now());
        if (total > s.sent) {
          await writer.send(source, s.sent, total);
          s.sent = total;
        }
        if (ended || writer.full) finish();
      } finally {
        busy = false;
      }
    };
    const timer = setInterval(() => void tick(), FOLLOW_POLL_MS);
    res.on('close', finish);
  });
}
