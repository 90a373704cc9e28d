// The entry of a WorkerPool worker (worker-pool.ts): loads TypeScript through tsx, then the one
// function it runs, says it is ready, and answers each job. A stack overflow is caught here and
// reported as such; running out of heap ends this worker, which the pool reports.
import { parentPort, workerData } from 'node:worker_threads';

if (workerData.module.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
const fn = (await import(workerData.module))[workerData.exportName];
if (typeof fn !== 'function') throw new Error(`${workerData.module} exports no function ${workerData.exportName}`);

parentPort.on('message', async ({ input }) => {
  try {
    parentPort.postMessage({ ok: true, value: await fn(input) });
  } catch (e) {
    const message = String(e instanceof Error ? e.message : e).split('\n')[0];
    const kind = e instanceof RangeError && /call stack/i.test(message) ? 'stack' : 'error';
    parentPort.postMessage({ ok: false, kind, message: `${e instanceof Error ? `${e.name}: ` : ''}${message}` });
  }
});
parentPort.postMessage({ ready: true });
