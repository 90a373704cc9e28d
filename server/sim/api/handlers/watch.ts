/**
 * watch: a resourceVersion to resume from (replayed from the store's history, or 410 when it is
 * too old), or the current state as synthetic ADDED events, then live changes through the hub.
 */

import type { HistoryEntry } from '../../store/memory-store.ts';
import { StoreError } from '../../store/object-store.ts';
import type { KubeObject } from '../../store/object-store.ts';
import type { ResourceRequest } from '../context.ts';
import { boolParam, wantsTable } from '../request.ts';
import { encodeJson } from '../../store/deep-json.ts';
import { encodeObject } from '../serialize.ts';
import { badRequest, failure, invalid } from '../status.ts';
import { buildTable } from '../table.ts';
import { WatchSession } from '../watch.ts';
import { apiVersionOf, includeObject, presenter, selector, storageApiVersion, storageGk, storageKind } from './resource.ts';

export function watch({ ctx, req, res, url, desc, p }: ResourceRequest): void {
  const { store, faults, watches } = ctx;
  const q = url.searchParams;
  if (p.name) {
    // `GET …/{name}?watch=1`: a watch restricted to that name.
    const fs = q.get('fieldSelector');
    q.set('fieldSelector', fs ? `${fs},metadata.name=${p.name}` : `metadata.name=${p.name}`);
  }
  const sel = selector(desc, p.version, q);
  const rv = q.get('resourceVersion') ?? '';
  const sendInitial = q.has('sendInitialEvents') ? boolParam(q.get('sendInitialEvents')) : undefined;
  if (sendInitial !== undefined && q.get('resourceVersionMatch') !== 'NotOlderThan') {
    throw invalid('ListOptions', 'meta.k8s.io', '', 'sendInitialEvents', 'Forbidden: sendInitialEvents is forbidden for watch unless resourceVersionMatch is set to NotOlderThan', 'FieldValueForbidden');
  }
  if (rv !== '' && !/^\d+$/.test(rv)) throw badRequest(`Invalid value: "${rv}": resourceVersion must be an integer`);
  const bookmarks = boolParam(q.get('allowWatchBookmarks'));
  const timeoutRaw = q.get('timeoutSeconds');
  // Without a timeout the real server picks 30–60 minutes; short defaults make clients back off.
  const timeoutMs = timeoutRaw && /^\d+$/.test(timeoutRaw) ? Number(timeoutRaw) * 1000 : (1800 + Math.floor(Math.random() * 1800)) * 1000;
  const present = presenter(desc, p.version);
  const table = wantsTable(req.headers.accept);
  const include = includeObject(q);
  const encode = table
    ? (o: KubeObject, first: boolean) => encodeJson(buildTable(desc, [present(o)], { now: ctx.now(), version: p.version, includeObject: include, noHeaders: !first, resourceVersion: o.metadata.resourceVersion }))
    : (o: KubeObject) => encodeObject(present(o));
  const gk = storageGk(desc);
  const explicitRv = rv !== '' && rv !== '0' && sendInitial !== true;
  let replay: HistoryEntry[] = [];
  let gone: StoreError | undefined;
  if (explicitRv) {
    if (faults.watchGone()) gone = new StoreError(410, 'Expired', `too old resource version: ${rv} (${store.resourceVersion()})`);
    else {
      try {
        replay = store.historySince(Number(rv));
      } catch (e) {
        if (e instanceof StoreError && e.status === 410) gone = e;
        else throw e;
      }
    }
  }
  const session: WatchSession = new WatchSession(res, {
    filter: { gk, namespace: p.namespace, match: sel.match },
    encode,
    bookmarks,
    kind: desc.kind,
    apiVersion: apiVersionOf(desc, p.version),
    currentRv: () => store.resourceVersion(),
    bookmarkIntervalMs: ctx.bookmarkIntervalMs,
    timeoutMs,
    onClose: () => watches.remove(gk, session),
  });
  if (gone) {
    session.error(failure(410, 'Expired', gone.message));
    return;
  }
  watches.add(gk, session);
  if (explicitRv) {
    for (const e of replay) session.deliver(e);
    return;
  }
  // "Get state and start at most recent": synthetic ADDED events for what exists now.
  for (const o of store.list(storageApiVersion(desc), storageKind(desc), { namespace: p.namespace, labels: sel.labels })) {
    if (sel.match(o)) session.send('ADDED', o);
  }
  if (sendInitial && bookmarks) session.bookmark({ 'k8s.io/initial-events-end': 'true' });
}
