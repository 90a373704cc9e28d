/**
 * The simulator's control endpoint (`/__sim/…`, loopback and admin token only): fault settings,
 * a restart on the same port, the store's state for tests, and the GPU ground truth (`/__sim/usage`,
 * optionally `?at=<ISO time>`: what the DCGM exporters report in that moment's 10-second bucket).
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { isPlainObject } from '../../store/object-utils.ts';
import type { Identity } from '../authn/user.ts';
import { isPrivileged } from '../authn/user.ts';
import type { ServerContext } from '../context.ts';
import type { FaultController } from '../faults.ts';
import { readJsonBody } from '../request-body.ts';
import { sendJson } from '../respond.ts';
import { ApiError, badRequest, methodNotAllowed, notFoundPath } from '../status.ts';

const LOOPBACK = ['127.0.0.1', '::1', '::ffff:127.0.0.1'];

export async function handleControl(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, path: string, requester: Identity | undefined): Promise<void> {
  const { faults, store } = ctx;
  const remote = req.socket.remoteAddress ?? '';
  if (!LOOPBACK.includes(remote)) throw new ApiError(403, 'Forbidden', 'the simulator control endpoint is only served on loopback');
  // The admin: the kubeconfig's token (system:masters) or an admin access rule.
  if (!requester || !(requester.legacy ? requester.legacy.admin : isPrivileged(requester.user))) throw new ApiError(403, 'Forbidden', 'the simulator control endpoint needs the admin token');
  if (path === '/__sim/faults') {
    if (req.method === 'GET') return sendJson(res, 200, faults.get());
    if (req.method === 'DELETE') {
      faults.reset();
      return sendJson(res, 200, faults.get());
    }
    if (req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH') {
      const body = await readJsonBody(req);
      if (!isPlainObject(body)) throw badRequest('fault settings must be a JSON object');
      const { dropWatches, compact, ...settings } = body as Record<string, unknown>;
      try {
        if (req.method === 'PUT') faults.reset();
        faults.set(settings as Parameters<FaultController['set']>[0]);
      } catch (e) {
        throw badRequest(e instanceof Error ? e.message : String(e));
      }
      if (dropWatches === true) faults.dropWatches();
      if (compact === true) store.compact();
      return sendJson(res, 200, faults.get());
    }
    throw methodNotAllowed('GET, POST, PUT, DELETE');
  }
  if (path === '/__sim/restart' && req.method === 'POST') {
    // Answer first, then drop every connection and listen again on the same port.
    sendJson(res, 202, { restarting: true });
    res.on('finish', () => {
      setTimeout(() => void ctx.restart(), 10);
    });
    return;
  }
  if (path === '/__sim/state' && req.method === 'GET') {
    return sendJson(res, 200, { resourceVersion: store.resourceVersion(), oldestResourceVersion: store.oldestResourceVersion(), openWatches: ctx.watches.count() });
  }
  if (path === '/__sim/usage' && req.method === 'GET' && ctx.usage) {
    const at = new URL(req.url ?? '/', 'http://localhost').searchParams.get('at');
    const ms = at ? Date.parse(at) : undefined;
    if (ms !== undefined && !Number.isFinite(ms)) throw badRequest(`at: "${at}" is not a time (RFC 3339 expected)`);
    return sendJson(res, 200, ctx.usage(ms));
  }
  throw notFoundPath();
}
