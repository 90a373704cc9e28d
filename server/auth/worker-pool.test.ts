/** The worker pool under jobs that never end, exhaust the heap or the stack, or pile up. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { WorkerPool } from './worker-pool.ts';

const module = fileURLToPath(new URL('./test-jobs.ts', import.meta.url));
const limits = { timeMs: 1500, maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 8, stackSizeMb: 1 };

function pool(exportName: string, o: { size?: number; maxQueue?: number } = {}) {
  return new WorkerPool<unknown, unknown>({ module, exportName, limits, ...o });
}

test('a job runs off the main thread and answers; the pool is reused', async () => {
  const p = pool('echo');
  try {
    assert.deepEqual(await p.run('a'), { ok: true, value: 'echo:a' });
    assert.deepEqual(await p.run('b'), { ok: true, value: 'echo:b' });
  } finally {
    await p.close();
  }
});

test('a job that never ends is stopped at its time limit while the main thread stays free; the next job gets a fresh worker', async () => {
  const p = pool('spin');
  try {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 50);
    const t0 = Date.now();
    const out = await p.run(null);
    clearInterval(timer);
    assert.equal(out.ok, false);
    assert.equal(!out.ok && out.limit, 'time');
    assert.ok(Date.now() - t0 < limits.timeMs + 3000);
    assert.ok(ticks >= 10, `the main thread kept running (${ticks} ticks)`);
    const again = await p.run(null);
    assert.equal(!again.ok && again.limit, 'time');
  } finally {
    await p.close();
  }
});

test('a job that exhausts its heap ends only its worker and is reported as memory', async () => {
  const p = pool('hog');
  try {
    const out = await p.run(null);
    assert.equal(!out.ok && out.limit, 'memory', JSON.stringify(out));
  } finally {
    await p.close();
  }
});

test('unbounded recursion is a stack limit, and a thrown error keeps its first line', async () => {
  const r = pool('recurse');
  const f = pool('fail');
  try {
    const deep = await r.run(0);
    assert.equal(!deep.ok && deep.limit, 'stack');
    const failed = await f.run(null);
    assert.deepEqual(failed, { ok: false, limit: 'error', message: 'Error: the job failed' });
  } finally {
    await r.close();
    await f.close();
  }
});

test('a full queue answers at once; an aborted queued job is dropped; a closed pool refuses', async () => {
  const p = pool('spin', { size: 1, maxQueue: 1 });
  const running = p.run(null);
  const abort = new AbortController();
  const queued = p.run(null, abort.signal);
  const refused = await p.run(null);
  assert.equal(!refused.ok && refused.limit, 'queue');
  abort.abort();
  assert.equal((await queued as { limit?: string }).limit, 'aborted');
  await p.close();
  assert.equal((await running as { limit?: string }).limit, 'unavailable');
  const after = await p.run(null);
  assert.equal(!after.ok && after.limit, 'unavailable');
});
