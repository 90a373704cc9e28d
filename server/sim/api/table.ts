/**
 * Table output (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`) for `kubectl get`: the usual
 * columns of the built-in printers and `additionalPrinterColumns` for CRs (pure).
 */

import type { KubeObject } from '../store/object-store.ts';
import { humanAge as age, humanDuration } from '../../../lib/format/duration.ts';
import { evaluateJsonPath } from './jsonpath-lite.ts';
import type { PrinterColumn, ResourceDescriptor } from './registry.ts';

export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRow {
  cells: unknown[];
  object?: unknown;
}

export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1';
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  columnDefinitions: ColumnDefinition[];
  rows: TableRow[];
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

type Get = (path: string) => unknown;

interface BuiltinColumn {
  name: string;
  type?: string;
  format?: string;
  priority?: number;
  description?: string;
  cell: (o: KubeObject, get: Get, now: number) => unknown;
}

function getter(o: KubeObject): Get {
  return (path) => {
    let cur: unknown = o;
    for (const p of path.split('.')) {
      if (typeof cur !== 'object' || cur === null) return undefined;
      cur = (cur as Record<string, unknown>)[p];
    }
    return cur;
  };
}

const nameCol: BuiltinColumn = { name: 'Name', format: 'name', description: 'Name must be unique within a namespace.', cell: (o) => o.metadata.name };
const ageCol: BuiltinColumn = { name: 'Age', type: 'string', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.', cell: (o, _g, now) => age(o.metadata.creationTimestamp, now) };
const none = (v: unknown): unknown => (v === undefined || v === null || v === '' ? '<none>' : v);
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const len = (v: unknown): number => (Array.isArray(v) ? v.length : typeof v === 'object' && v !== null ? Object.keys(v).length : 0);

interface ContainerStatus {
  name?: string;
  ready?: boolean;
  restartCount?: number;
  state?: { waiting?: { reason?: string }; terminated?: { reason?: string; exitCode?: number; signal?: number }; running?: unknown };
}

/** The STATUS column of `kubectl get pods`, following the real printer's order of precedence. */
export function podStatusReason(o: KubeObject): string {
  const status = (o.status ?? {}) as Record<string, unknown>;
  const spec = (o.spec ?? {}) as Record<string, unknown>;
  let reason = (status.reason as string | undefined) || (status.phase as string | undefined) || 'Pending';
  const inits = (status.initContainerStatuses as ContainerStatus[] | undefined) ?? [];
  const initTotal = ((spec.initContainers as unknown[] | undefined) ?? []).length;
  let initializing = false;
  for (let i = 0; i < inits.length; i++) {
    const c = inits[i];
    const term = c.state?.terminated;
    if (term && term.exitCode === 0) continue;
    initializing = true;
    if (term) reason = term.reason ? `Init:${term.reason}` : term.signal ? `Init:Signal:${term.signal}` : `Init:ExitCode:${term.exitCode}`;
    else if (c.state?.waiting?.reason && c.state.waiting.reason !== 'PodInitializing') reason = `Init:${c.state.waiting.reason}`;
    else reason = `Init:${i}/${initTotal}`;
    break;
  }
  if (!initializing) {
    const cs = (status.containerStatuses as ContainerStatus[] | undefined) ?? [];
    let hasRunning = false;
    for (let i = cs.length - 1; i >= 0; i--) {
      const c = cs[i];
      if (c.state?.waiting?.reason) reason = c.state.waiting.reason;
      else if (c.state?.terminated) {
        const t = c.state.terminated;
        reason = t.reason ? t.reason : t.signal ? `Signal:${t.signal}` : `ExitCode:${t.exitCode}`;
      } else if (c.state?.running && c.ready) hasRunning = true;
    }
    if (reason === 'Completed' && hasRunning) reason = 'Running';
  }
  if (o.metadata.deletionTimestamp) reason = status.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
  return reason;
}

function containerSummary(o: KubeObject, path: string, field: 'name' | 'image'): string {
  const cs = (getter(o)(path) as Array<Record<string, string>> | undefined) ?? [];
  return cs.map((c) => c[field]).join(',') || '<none>';
}

function selectorString(sel: unknown): string {
  if (typeof sel !== 'object' || sel === null) return '<none>';
  const s = sel as { matchLabels?: Record<string, string>; matchExpressions?: Array<{ key: string; operator: string; values?: string[] }> };
  const parts = Object.entries(s.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of s.matchExpressions ?? []) {
    const op = e.operator.toLowerCase();
    if (op === 'exists') parts.push(e.key);
    else if (op === 'doesnotexist') parts.push(`!${e.key}`);
    else parts.push(`${e.key} ${op} (${(e.values ?? []).join(',')})`);
  }
  return parts.join(',') || '<none>';
}

function mapSelector(sel: unknown): string {
  if (typeof sel !== 'object' || sel === null) return '<none>';
  return Object.entries(sel as Record<string, string>).map(([k, v]) => `${k}=${v}`).join(',') || '<none>';
}

const workloadWide: BuiltinColumn[] = [
  { name: 'Containers', priority: 1, cell: (o) => containerSummary(o, 'spec.template.spec.containers', 'name') },
  { name: 'Images', priority: 1, cell: (o) => containerSummary(o, 'spec.template.spec.containers', 'image') },
  { name: 'Selector', priority: 1, cell: (o) => selectorString((o.spec as Record<string, unknown> | undefined)?.selector) },
];

function jobStatus(o: KubeObject): string {
  const conds = ((o.status as Record<string, unknown> | undefined)?.conditions as Array<{ type: string; status: string }> | undefined) ?? [];
  const has = (t: string) => conds.some((c) => c.type === t && c.status === 'True');
  if (has('Complete')) return 'Complete';
  if (has('Failed')) return 'Failed';
  if (o.metadata.deletionTimestamp) return 'Terminating';
  if (has('SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  if (has('FailureTarget')) return 'FailureTarget';
  if (has('Suspended')) return 'Suspended';
  return 'Running';
}

function durationBetween(start: unknown, end: unknown, now: number): string {
  if (typeof start !== 'string') return '';
  const s = Date.parse(start);
  const e = typeof end === 'string' ? Date.parse(end) : now;
  return humanDuration(e - s);
}

function servicePorts(o: KubeObject): string {
  const ports = ((o.spec as Record<string, unknown> | undefined)?.ports as Array<{ port: number; nodePort?: number; protocol?: string }> | undefined) ?? [];
  return ports.map((p) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`).join(',') || '<none>';
}

function nodeStatus(o: KubeObject): string {
  const conds = ((o.status as Record<string, unknown> | undefined)?.conditions as Array<{ type: string; status: string }> | undefined) ?? [];
  const ready = conds.find((c) => c.type === 'Ready');
  let s = !ready ? 'Unknown' : ready.status === 'True' ? 'Ready' : ready.status === 'False' ? 'NotReady' : 'Unknown';
  if ((o.spec as Record<string, unknown> | undefined)?.unschedulable) s += ',SchedulingDisabled';
  return s;
}

function nodeRoles(o: KubeObject): string {
  const roles = Object.keys(o.metadata.labels ?? {})
    .filter((k) => k.startsWith('node-role.kubernetes.io/'))
    .map((k) => k.slice('node-role.kubernetes.io/'.length))
    .filter(Boolean);
  return roles.sort().join(',') || '<none>';
}

function nodeAddress(o: KubeObject, type: string): string {
  const a = ((o.status as Record<string, unknown> | undefined)?.addresses as Array<{ type: string; address: string }> | undefined) ?? [];
  return a.find((x) => x.type === type)?.address ?? '<none>';
}

/** An Event's fields under either API's names (core `v1`, or `events.k8s.io/v1` with its renamed fields). */
function eventView(g: Get): { first: unknown; last: unknown; count: number; kind: string; name: string; fieldPath: string; source: string; message: string } {
  const either = (core: string, v1: string): unknown => g(core) ?? g(v1);
  const eventTime = g('eventTime');
  const first = either('firstTimestamp', 'deprecatedFirstTimestamp') ?? eventTime;
  let last = either('lastTimestamp', 'deprecatedLastTimestamp') ?? first;
  let count = num(either('count', 'deprecatedCount'));
  // As the real printer: a series' count and last observation win; no count at all means one.
  if (g('series.count') !== undefined) {
    count = num(g('series.count'));
    last = g('series.lastObservedTime') ?? last;
  } else if (count === 0) count = 1;
  const component = String(either('source.component', 'deprecatedSource.component') ?? '') || String(either('reportingComponent', 'reportingController') ?? '');
  const instance = String(either('source.host', 'deprecatedSource.host') ?? '') || String(g('reportingInstance') ?? '');
  return {
    first,
    last,
    count,
    kind: String(either('involvedObject.kind', 'regarding.kind') ?? ''),
    name: String(either('involvedObject.name', 'regarding.name') ?? ''),
    fieldPath: String(either('involvedObject.fieldPath', 'regarding.fieldPath') ?? ''),
    source: component ? (instance ? `${component}, ${instance}` : component) : '',
    message: String(either('message', 'note') ?? ''),
  };
}

/** The columns of `kubectl get events`, LAST SEEN showing "3m (x5 over 10m)" for repeats like the real printer. */
const EVENT_COLUMNS: BuiltinColumn[] = [
  { name: 'Last Seen', cell: (o, g, now) => {
    const e = eventView(g);
    const last = age(e.last ?? o.metadata.creationTimestamp, now);
    return e.count > 1 ? `${last} (x${e.count} over ${age(e.first ?? o.metadata.creationTimestamp, now)})` : last;
  } },
  { name: 'Type', cell: (o) => o.type ?? '' },
  { name: 'Reason', cell: (o) => o.reason ?? '' },
  { name: 'Object', cell: (o, g) => {
    const e = eventView(g);
    return `${e.kind.toLowerCase()}/${e.name}`;
  } },
  { name: 'Subobject', priority: 1, cell: (o, g) => eventView(g).fieldPath },
  { name: 'Source', priority: 1, cell: (o, g) => eventView(g).source },
  { name: 'Message', cell: (o, g) => eventView(g).message },
  { name: 'First Seen', priority: 1, cell: (o, g, now) => age(eventView(g).first ?? o.metadata.creationTimestamp, now) },
  { name: 'Count', priority: 1, cell: (o, g) => String(eventView(g).count) },
  { name: 'Name', format: 'name', priority: 1, cell: (o) => o.metadata.name },
];

const PRINTERS: Record<string, BuiltinColumn[]> = {
  '/pods': [
    nameCol,
    { name: 'Ready', description: 'The aggregate readiness state of this pod for accepting traffic.', cell: (o) => {
      const cs = ((o.status as Record<string, unknown> | undefined)?.containerStatuses as ContainerStatus[] | undefined) ?? [];
      const total = (((o.spec as Record<string, unknown> | undefined)?.containers as unknown[] | undefined) ?? []).length;
      return `${cs.filter((c) => c.ready).length}/${total}`;
    } },
    { name: 'Status', description: 'The aggregate status of the containers in this pod.', cell: (o) => podStatusReason(o) },
    { name: 'Restarts', type: 'string', description: 'The number of times the containers in this pod have been restarted.', cell: (o) => {
      const cs = ((o.status as Record<string, unknown> | undefined)?.containerStatuses as ContainerStatus[] | undefined) ?? [];
      return String(cs.reduce((n, c) => n + (c.restartCount ?? 0), 0));
    } },
    ageCol,
    { name: 'IP', priority: 1, cell: (o, g) => none(g('status.podIP')) },
    { name: 'Node', priority: 1, cell: (o, g) => none(g('spec.nodeName')) },
    { name: 'Nominated Node', priority: 1, cell: (o, g) => none(g('status.nominatedNodeName')) },
    { name: 'Readiness Gates', priority: 1, cell: (o, g) => {
      const gates = (g('spec.readinessGates') as unknown[] | undefined) ?? [];
      return gates.length ? `0/${gates.length}` : '<none>';
    } },
  ],
  '/nodes': [
    nameCol,
    { name: 'Status', cell: nodeStatus },
    { name: 'Roles', cell: nodeRoles },
    ageCol,
    { name: 'Version', cell: (o, g) => none(g('status.nodeInfo.kubeletVersion')) },
    { name: 'Internal-IP', priority: 1, cell: (o) => nodeAddress(o, 'InternalIP') },
    { name: 'External-IP', priority: 1, cell: (o) => nodeAddress(o, 'ExternalIP') },
    { name: 'OS-Image', priority: 1, cell: (o, g) => none(g('status.nodeInfo.osImage')) },
    { name: 'Kernel-Version', priority: 1, cell: (o, g) => none(g('status.nodeInfo.kernelVersion')) },
    { name: 'Container-Runtime', priority: 1, cell: (o, g) => none(g('status.nodeInfo.containerRuntimeVersion')) },
  ],
  '/namespaces': [nameCol, { name: 'Status', cell: (o, g) => g('status.phase') ?? 'Active' }, ageCol],
  '/services': [
    nameCol,
    { name: 'Type', cell: (o, g) => g('spec.type') ?? 'ClusterIP' },
    { name: 'Cluster-IP', cell: (o, g) => none(g('spec.clusterIP')) },
    { name: 'External-IP', cell: (o, g) => {
      const ing = (g('status.loadBalancer.ingress') as Array<{ ip?: string; hostname?: string }> | undefined) ?? [];
      const ext = [...ing.map((i) => i.ip ?? i.hostname ?? ''), ...((g('spec.externalIPs') as string[] | undefined) ?? [])].filter(Boolean);
      return ext.join(',') || (g('spec.type') === 'LoadBalancer' ? '<pending>' : '<none>');
    } },
    { name: 'Port(s)', cell: servicePorts },
    ageCol,
    { name: 'Selector', priority: 1, cell: (o, g) => mapSelector(g('spec.selector')) },
  ],
  '/configmaps': [nameCol, { name: 'Data', type: 'integer', cell: (o) => len(o.data) + len(o.binaryData) }, ageCol],
  '/secrets': [nameCol, { name: 'Type', cell: (o) => o.type ?? 'Opaque' }, { name: 'Data', type: 'integer', cell: (o) => len(o.data) }, ageCol],
  '/serviceaccounts': [nameCol, { name: 'Secrets', type: 'integer', cell: (o) => len(o.secrets) }, ageCol],
  '/events': EVENT_COLUMNS,
  'events.k8s.io/events': EVENT_COLUMNS,
  'apps/deployments': [
    nameCol,
    { name: 'Ready', cell: (o, g) => `${num(g('status.readyReplicas'))}/${num(g('spec.replicas') ?? 1)}` },
    { name: 'Up-to-date', type: 'integer', cell: (o, g) => num(g('status.updatedReplicas')) },
    { name: 'Available', type: 'integer', cell: (o, g) => num(g('status.availableReplicas')) },
    ageCol,
    ...workloadWide,
  ],
  'apps/replicasets': [
    nameCol,
    { name: 'Desired', type: 'integer', cell: (o, g) => num(g('spec.replicas') ?? 1) },
    { name: 'Current', type: 'integer', cell: (o, g) => num(g('status.replicas')) },
    { name: 'Ready', type: 'integer', cell: (o, g) => num(g('status.readyReplicas')) },
    ageCol,
    ...workloadWide,
  ],
  'apps/statefulsets': [nameCol, { name: 'Ready', cell: (o, g) => `${num(g('status.readyReplicas'))}/${num(g('spec.replicas') ?? 1)}` }, ageCol, ...workloadWide.slice(0, 2)],
  'apps/daemonsets': [
    nameCol,
    { name: 'Desired', type: 'integer', cell: (o, g) => num(g('status.desiredNumberScheduled')) },
    { name: 'Current', type: 'integer', cell: (o, g) => num(g('status.currentNumberScheduled')) },
    { name: 'Ready', type: 'integer', cell: (o, g) => num(g('status.numberReady')) },
    { name: 'Up-to-date', type: 'integer', cell: (o, g) => num(g('status.updatedNumberScheduled')) },
    { name: 'Available', type: 'integer', cell: (o, g) => num(g('status.numberAvailable')) },
    { name: 'Node Selector', cell: (o, g) => mapSelector(g('spec.template.spec.nodeSelector')) },
    ageCol,
    ...workloadWide,
  ],
  'batch/jobs': [
    nameCol,
    { name: 'Status', cell: jobStatus },
    { name: 'Completions', cell: (o, g) => {
      const completions = g('spec.completions');
      const succeeded = num(g('status.succeeded'));
      return completions === undefined || completions === null ? `${succeeded}/1 of ${num(g('spec.parallelism') ?? 1)}` : `${succeeded}/${completions}`;
    } },
    { name: 'Duration', cell: (o, g, now) => durationBetween(g('status.startTime'), g('status.completionTime'), now) },
    ageCol,
    ...workloadWide,
  ],
  'batch/cronjobs': [
    nameCol,
    { name: 'Schedule', cell: (o, g) => g('spec.schedule') ?? '' },
    { name: 'Timezone', cell: (o, g) => none(g('spec.timeZone')) },
    { name: 'Suspend', type: 'boolean', cell: (o, g) => g('spec.suspend') === true },
    { name: 'Active', type: 'integer', cell: (o, g) => len(g('status.active')) },
    { name: 'Last Schedule', cell: (o, g, now) => (g('status.lastScheduleTime') ? age(g('status.lastScheduleTime'), now) : '<none>') },
    ageCol,
  ],
  '/persistentvolumeclaims': [
    nameCol,
    { name: 'Status', cell: (o, g) => g('status.phase') ?? 'Pending' },
    { name: 'Volume', cell: (o, g) => g('spec.volumeName') ?? '' },
    { name: 'Capacity', cell: (o, g) => g('status.capacity.storage') ?? '' },
    { name: 'Access Modes', cell: (o, g) => ((g('status.accessModes') as string[] | undefined) ?? []).map((m) => ({ ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' })[m] ?? m).join(',') },
    { name: 'StorageClass', cell: (o, g) => none(g('spec.storageClassName')) },
    ageCol,
  ],
  'autoscaling/horizontalpodautoscalers': [
    nameCol,
    { name: 'Reference', cell: (o, g) => `${String(g('spec.scaleTargetRef.kind') ?? '')}/${String(g('spec.scaleTargetRef.name') ?? '')}` },
    { name: 'MinPods', type: 'integer', cell: (o, g) => num(g('spec.minReplicas') ?? 1) },
    { name: 'MaxPods', type: 'integer', cell: (o, g) => num(g('spec.maxReplicas')) },
    { name: 'Replicas', type: 'integer', cell: (o, g) => num(g('status.currentReplicas')) },
    ageCol,
  ],
  'coordination.k8s.io/leases': [nameCol, { name: 'Holder', cell: (o, g) => g('spec.holderIdentity') ?? '' }, ageCol],
  'apiextensions.k8s.io/customresourcedefinitions': [nameCol, { name: 'Created At', type: 'date', cell: (o) => o.metadata.creationTimestamp }],
};

function definitionOf(c: { name: string; type?: string; format?: string; description?: string; priority?: number }): ColumnDefinition {
  return { name: c.name, type: c.type ?? 'string', format: c.format ?? '', description: c.description ?? '', priority: c.priority ?? 0 };
}

/** A CR cell, following the CRD table convertor: strings via JSONPath text, dates as ages, missing → null. */
function crCell(obj: KubeObject, col: PrinterColumn, now: number): unknown {
  let values: unknown[];
  try {
    values = evaluateJsonPath(obj, col.jsonPath);
  } catch {
    return null;
  }
  if (values.length === 0) return null;
  const v = values[0];
  switch (col.type) {
    case 'date':
      return typeof v === 'string' ? age(v, now) : null;
    case 'integer':
      return typeof v === 'number' ? Math.trunc(v) : null;
    case 'number':
      return typeof v === 'number' ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    default:
      return values.map((x) => (typeof x === 'object' ? JSON.stringify(x) : String(x))).join(' ');
  }
}

export interface TableOptions {
  includeObject?: IncludeObject;
  now?: number;
  resourceVersion?: string;
  continueToken?: string;
  remainingItemCount?: number;
  /** The version the client asked for (CR columns are per version). */
  version: string;
  noHeaders?: boolean;
}

function rowObject(obj: KubeObject, include: IncludeObject): unknown {
  if (include === 'None') return undefined;
  if (include === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

export function buildTable(desc: ResourceDescriptor, objects: KubeObject[], opts: TableOptions): Table {
  const now = opts.now ?? Date.now();
  const include = opts.includeObject ?? 'Metadata';
  let defs: ColumnDefinition[];
  let cells: (o: KubeObject) => unknown[];
  const printer = desc.builtin ? PRINTERS[`${desc.group}/${desc.plural}`] : undefined;
  if (printer) {
    defs = printer.map(definitionOf);
    cells = (o) => {
      const g = getter(o);
      return printer.map((c) => c.cell(o, g, now));
    };
  } else if (!desc.builtin) {
    const cols = desc.columns?.[opts.version] ?? [];
    const effective: PrinterColumn[] = cols.length > 0 ? cols : [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }];
    defs = [definitionOf({ ...nameCol, type: 'string' }), ...effective.map((c) => definitionOf(c))];
    cells = (o) => [o.metadata.name, ...effective.map((c) => crCell(o, c, now))];
  } else {
    defs = [definitionOf({ ...nameCol, type: 'string' }), definitionOf(ageCol)];
    cells = (o) => [o.metadata.name, age(o.metadata.creationTimestamp, now)];
  }
  const metadata: Table['metadata'] = {};
  if (opts.resourceVersion) metadata.resourceVersion = opts.resourceVersion;
  if (opts.continueToken) metadata.continue = opts.continueToken;
  if (opts.remainingItemCount !== undefined) metadata.remainingItemCount = opts.remainingItemCount;
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    columnDefinitions: opts.noHeaders ? [] : defs,
    rows: objects.map((o) => {
      const row: TableRow = { cells: cells(o) };
      const ro = rowObject(o, include);
      if (ro !== undefined) row.object = ro;
      return row;
    }),
  };
}
