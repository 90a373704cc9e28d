/**
 * `events.k8s.io/v1` Events: the same stored objects as core `v1` Events, seen through the newer API's
 * field names, as the real API server serves both from one registry. The conversion (pure) follows
 * upstream's: `involvedObject` → `regarding`, `message` → `note`, `reportingComponent` →
 * `reportingController`, and the fields the new API retired keep their values as `deprecatedSource`,
 * `deprecatedFirstTimestamp`, `deprecatedLastTimestamp` and `deprecatedCount`.
 */

import type { KubeObject } from '../store/object-store.ts';
import type { ResourceDescriptor } from './registry.ts';

type Fields = Record<string, (obj: KubeObject) => string>;

function str(v: unknown): string {
  return v === undefined || v === null ? '' : String(v);
}

function ref(o: KubeObject, f: string): string {
  return str((o.involvedObject as Record<string, unknown> | undefined)?.[f]);
}

const REF_FIELDS = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'];

/** `source` selects on the component, or the reporting controller when the Event has no source (both APIs). */
function sourceOf(o: KubeObject): string {
  return str((o.source as { component?: string } | undefined)?.component) || str(o.reportingComponent);
}

/** The field selectors of one Events API: its name for the object (`involvedObject` / `regarding`) and for the reporter. */
function eventFields(about: string, reporter: string): Fields {
  const f: Fields = {
    reason: (o) => str(o.reason),
    type: (o) => str(o.type),
    source: sourceOf,
    [reporter]: (o) => str(o.reportingComponent),
  };
  for (const k of REF_FIELDS) f[`${about}.${k}`] = (o) => ref(o, k);
  return f;
}

/** Field selectors of core Events, read off the stored (core) object. */
export const coreEventFields = (): Fields => eventFields('involvedObject', 'reportingComponent');

/** Field selectors of events.k8s.io Events (`regarding.*`, `reportingController`), also on the stored object. */
export const eventsV1Fields = (): Fields => eventFields('regarding', 'reportingController');

/** A stored core Event as events.k8s.io/v1 shows it. */
export function toEventsV1(o: KubeObject): KubeObject {
  const out: KubeObject = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: o.metadata };
  const set = (k: string, v: unknown): void => {
    if (v !== undefined && v !== null && v !== '') out[k] = v;
  };
  // A legacy-recorded Event has no eventTime; upstream shows it as null (readers fall back to deprecatedFirstTimestamp).
  out.eventTime = o.eventTime ?? null;
  set('series', o.series);
  set('reportingController', o.reportingComponent);
  set('reportingInstance', o.reportingInstance);
  set('action', o.action);
  set('reason', o.reason);
  set('regarding', o.involvedObject);
  set('related', o.related);
  set('note', o.message);
  set('type', o.type);
  const source = o.source as Record<string, unknown> | undefined;
  if (source && Object.keys(source).length > 0) out.deprecatedSource = source;
  set('deprecatedFirstTimestamp', o.firstTimestamp);
  set('deprecatedLastTimestamp', o.lastTimestamp);
  set('deprecatedCount', o.count);
  return out;
}

/** The events.k8s.io/v1 resource: read verbs over the core Events' storage. */
export function eventsV1Descriptor(): ResourceDescriptor {
  return {
    group: 'events.k8s.io',
    versions: ['v1'],
    kind: 'Event',
    listKind: 'EventList',
    plural: 'events',
    singular: 'event',
    namespaced: true,
    shortNames: ['ev'],
    categories: [],
    subresources: [],
    builtin: true,
    allowUnconditionalUpdate: true,
    generation: false,
    fields: eventsV1Fields(),
    view: { group: '', kind: 'Event', present: toEventsV1 },
    verbs: ['get', 'list', 'watch'],
  };
}
