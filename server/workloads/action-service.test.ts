/**
 * The dashboard's write path over an index fed directly: what is offered and why not, and what a
 * preview and an apply do — writes off, forbidden, a workload changed since the preview, a status
 * write that is no change, a write that raced the index — with every apply attempt in the audit trail.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jobSetObjects } from '../engine/test-support.ts';
import type { KubeObject } from '../engine/index.ts';
import { captureLogs } from '../log/test-support.ts';
import { directIndex } from './test-support.ts';
import type { WorkloadIndex } from './workload-index.ts';
import { offeredActions, previewFingerprint, runWorkloadAction, type ActionContext } from './action-service.ts';
import type { ObjectWriter } from './actions.ts';
import { recentAudit } from './audit-trail.ts';

const indexOf = directIndex;

interface Fake extends ObjectWriter {
  calls: string[];
  /** The next write answers as kube-apiserver does for a failed patch test. */
  failNext?: boolean;
}

function writer(): Fake {
  const w: Fake = {
    calls: [],
    async patchJson(ref, ops, dry) {
      w.calls.push(`patch ${ref.name} ${dry ? 'dry' : 'write'}`);
      if (!dry && w.failNext) {
        w.failNext = false;
        throw Object.assign(new Error('the server rejected our request due to an error in our request'), { status: 422 });
      }
      return { apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: ref.name, namespace: ref.namespace }, spec: { suspend: true, ops: ops.length } } as KubeObject;
    },
    async deleteObject(ref, o) {
      w.calls.push(`delete ${ref.name} ${o.propagationPolicy} ${o.dryRun ? 'dry' : 'write'}`);
      return {};
    },
  };
  return w;
}

function ctxOf(index: WorkloadIndex, o: Partial<ActionContext> = {}): ActionContext & { writer: Fake } {
  return {
    index,
    cluster: 'c1',
    rootUid: 'uid-train',
    writer: writer(),
    who: { user: 'alice', via: 'token' },
    writes: { enabled: true, reason: null },
    may: async () => ({ allowed: true, reason: 'ok' }),
    ...o,
  } as ActionContext & { writer: Fake };
}

test('the offer: roles as wmap tree names them with their containers; resume only when suspended; writes off or forbidden say why', async () => {
  const index = indexOf(jobSetObjects());
  const offer = await offeredActions(ctxOf(index));
  assert.ok(!('error' in offer));
  assert.deepEqual(offer.roles.map((r) => r.name), ['leader', 'worker']);
  assert.ok(offer.roles[0].containers.length > 0);
  const by = (o: typeof offer, a: string) => o.actions.find((x) => x.action === a)!;
  assert.deepEqual(by(offer, 'suspend'), { action: 'suspend', available: true, reason: null });
  assert.deepEqual(by(offer, 'resume'), { action: 'resume', available: false, reason: 'not suspended' });
  const off = await offeredActions(ctxOf(index, { writes: { enabled: false, reason: 'the server runs with --read-only' } }));
  assert.ok(!('error' in off));
  assert.ok(off.actions.every((a) => !a.available && a.reason === 'the server runs with --read-only'));
  const forbidden = await offeredActions(ctxOf(index, { may: async (verb) => ({ allowed: verb === 'delete', reason: `alice may not ${verb} jobsets` }) }));
  assert.ok(!('error' in forbidden));
  assert.deepEqual(by(forbidden, 'labels'), { action: 'labels', available: false, reason: 'alice may not patch jobsets' });
  assert.deepEqual(by(forbidden, 'delete'), { action: 'delete', available: true, reason: null });
});

test('a preview is the plan and the server dry run; apply with what was previewed writes after its own dry run', async () => {
  const logs = captureLogs('error');
  try {
    const index = indexOf(jobSetObjects());
    const ctx = ctxOf(index);
    const preview = await runWorkloadAction(ctx, [{ action: 'suspend' }], 'preview');
    assert.equal(preview.result, 'dry-run');
    assert.ok(preview.plan?.diff.includes('+  suspend: true'), preview.plan?.diff);
    assert.deepEqual(ctx.writer.calls, ['patch train dry']);
    const applied = await runWorkloadAction(ctx, [{ action: 'suspend' }], 'apply', { resourceVersion: preview.plan!.resourceVersion, fingerprint: preview.plan!.fingerprint });
    assert.equal(applied.result, 'applied');
    assert.deepEqual(ctx.writer.calls, ['patch train dry', 'patch train dry', 'patch train write']);
    assert.deepEqual(recentAudit().slice(0, 1).map((e) => [e.who, e.via, e.action, e.dryRun, e.result]), [['alice', 'token', 'suspend', 'none', 'applied']]);
  } finally {
    logs.restore();
  }
});

test('refusals are audited and send nothing: writes off, forbidden, changed since the preview', async () => {
  const logs = captureLogs('error');
  try {
    const objects = jobSetObjects();
    const index = indexOf(objects);
    const off = ctxOf(index, { writes: { enabled: false, reason: 'writes are off in shared mode unless the server runs with --allow-writes' } });
    assert.equal((await runWorkloadAction(off, [{ action: 'suspend' }], 'apply')).result, 'disabled');
    const forbidden = ctxOf(index, { may: async () => ({ allowed: false, reason: 'carol may not patch jobsets.jobset.x-k8s.io in namespace default' }) });
    const f = await runWorkloadAction(forbidden, [{ action: 'suspend' }], 'apply');
    assert.deepEqual([f.result, f.message], ['forbidden', 'carol may not patch jobsets.jobset.x-k8s.io in namespace default']);
    const ctx = ctxOf(index);
    const preview = await runWorkloadAction(ctx, [{ action: 'suspend' }], 'preview');
    // Someone changes the spec meanwhile.
    const root = structuredClone(objects[0]);
    root.metadata!.resourceVersion = '101';
    (root.metadata as { labels?: Record<string, string> }).labels = { changed: 'yes' };
    index.upsertMany('c1', [root]);
    index.flush();
    const c = await runWorkloadAction(ctx, [{ action: 'suspend' }], 'apply', { resourceVersion: preview.plan!.resourceVersion, fingerprint: preview.plan!.fingerprint });
    assert.equal(c.result, 'conflict');
    assert.match(c.message, /changed since you looked \(you saw resourceVersion 100, it is now 101\)/);
    assert.equal(c.plan?.resourceVersion, '101');
    assert.deepEqual([off.writer.calls, forbidden.writer.calls, ctx.writer.calls], [[], [], ['patch train dry']]);
    // The preview's server dry run is an attempt too (dry run "server").
    assert.deepEqual(recentAudit().slice(0, 4).map((e) => [e.result, e.dryRun]), [['conflict', 'none'], ['dry-run', 'server'], ['forbidden', 'none'], ['disabled', 'none']]);
  } finally {
    logs.restore();
  }
});

test('a status write since the preview is no conflict; a write that raced the index is tried again once it has caught up', async () => {
  const logs = captureLogs('error');
  try {
    const objects = jobSetObjects();
    const index = indexOf(objects);
    const ctx = ctxOf(index);
    const preview = await runWorkloadAction(ctx, [{ action: 'suspend' }], 'preview');
    const statusOnly = structuredClone(objects[0]) as KubeObject & { status?: unknown };
    statusOnly.metadata!.resourceVersion = '102';
    statusOnly.status = { restarts: 1 };
    assert.equal(previewFingerprint(statusOnly), preview.plan!.fingerprint);
    index.upsertMany('c1', [statusOnly]);
    index.flush();
    // The cluster is ahead again: the first write fails its test; the index then gets the newer status-only version.
    ctx.writer.failNext = true;
    setTimeout(() => {
      const newer = structuredClone(statusOnly);
      newer.metadata!.resourceVersion = '103';
      index.upsertMany('c1', [newer]);
    }, 150);
    const a = await runWorkloadAction(ctx, [{ action: 'suspend' }], 'apply', { resourceVersion: preview.plan!.resourceVersion, fingerprint: preview.plan!.fingerprint });
    assert.equal(a.result, 'applied', a.message);
    assert.equal(a.plan?.resourceVersion, '103');
    assert.deepEqual(ctx.writer.calls.slice(1), ['patch train dry', 'patch train write', 'patch train dry', 'patch train write']);
  } finally {
    logs.restore();
  }
});
