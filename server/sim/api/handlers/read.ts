/** get and list: one object or a page of them, as JSON or as a Table, lists streamed in chunks. */

import { encodeJson } from '../../store/deep-json.ts';
import type { ResourceRequest } from '../context.ts';
import { decodeContinue, encodeContinue, wantsTable } from '../request.ts';
import { sendJson } from '../respond.ts';
import { parseFieldSelector } from '../selectors.ts';
import { encodeObject, writeJoined } from '../serialize.ts';
import { ApiError, badRequest, invalid } from '../status.ts';
import { buildTable } from '../table.ts';
import { current, includeObject, listHead, presenter, selector, storageApiVersion, storageKind } from './resource.ts';
import { scaleOf } from './scale.ts';

export function getOne({ ctx, req, res, url, desc, p }: ResourceRequest): void {
  const fs = url.searchParams.get('fieldSelector');
  if (fs) {
    const nameReq = parseFieldSelector(fs).find((r) => r.field === 'metadata.name' && r.op === 'eq');
    if (nameReq && nameReq.value !== p.name) throw badRequest('fieldSelector metadata.name doesn\'t match requested name');
  }
  const obj = current(ctx.store, desc, p);
  if (p.subresource === 'scale') return sendJson(res, 200, scaleOf(desc, obj));
  const out = presenter(desc, p.version)(obj);
  if (wantsTable(req.headers.accept)) {
    return sendJson(res, 200, buildTable(desc, [out], { now: ctx.now(), version: p.version, includeObject: includeObject(url.searchParams), resourceVersion: ctx.store.resourceVersion() }));
  }
  sendJson(res, 200, encodeObject(out));
}

export async function list({ ctx, req, res, url, desc, p }: ResourceRequest): Promise<void> {
  const q = url.searchParams;
  const store = ctx.store;
  const rv = q.get('resourceVersion');
  const rvMatch = q.get('resourceVersionMatch');
  const cont = q.get('continue');
  if (rvMatch && !rv) throw invalid('ListOptions', 'meta.k8s.io', '', 'resourceVersionMatch', 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided', 'FieldValueForbidden');
  if (cont && (rv || rvMatch)) throw badRequest('specifying resource version is not allowed when using continue');
  if (rv && rv !== '0' && !/^\d+$/.test(rv)) throw badRequest(`Invalid value: "${rv}": resourceVersion must be an integer`);
  if (rv && Number(rv) > Number(store.resourceVersion())) {
    throw new ApiError(504, 'Timeout', `Too large resource version: ${rv}, current: ${store.resourceVersion()}`, { causes: [{ type: 'ResourceVersionTooLarge', message: `Too large resource version` }], retryAfterSeconds: 1 });
  }
  const sel = selector(desc, p.version, q);
  const token = cont ? decodeContinue(cont) : undefined;
  const limitRaw = q.get('limit');
  const limit = limitRaw && /^\d+$/.test(limitRaw) ? Number(limitRaw) : 0;
  // The snapshot version: a continued list reports the first page's version (later pages read live data,
  // the real server's documented fallback for an inconsistent continuation).
  const listRv = token ? String(token.rv) : store.resourceVersion();
  const page = store.listPage(storageApiVersion(desc), storageKind(desc), p.namespace, {
    labels: sel.labels,
    match: sel.filtered ? sel.match : undefined,
    start: token?.start,
    limit,
  });
  const items = page.items;
  const nextToken = page.nextKey ? encodeContinue({ rv: Number(listRv), start: page.nextKey }) : undefined;
  const remaining = page.nextKey && !sel.filtered ? page.remaining : undefined;
  const present = presenter(desc, p.version);
  const meta: Record<string, unknown> = { resourceVersion: listRv };
  if (nextToken) meta.continue = nextToken;
  if (remaining !== undefined) meta.remainingItemCount = remaining;
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
  if (wantsTable(req.headers.accept)) {
    const table = buildTable(desc, items.map(present), { now: ctx.now(), version: p.version, includeObject: includeObject(q), resourceVersion: listRv, continueToken: nextToken, remainingItemCount: remaining });
    const head = `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":${JSON.stringify(table.metadata)},"columnDefinitions":${JSON.stringify(table.columnDefinitions)},"rows":[`;
    await writeJoined(res, head, table.rows.length, (i) => encodeJson(table.rows[i]), ']}');
    return;
  }
  await writeJoined(res, listHead(desc, p.version, meta), items.length, (i) => encodeObject(present(items[i])), ']}');
}
