/** Row builders for the dashboard's unit tests (not shipped in pages). */
import type { WorkloadRow } from '../../contract/index.ts';
import { workloadId } from './identity.ts';

export interface RowInput {
  cluster?: string;
  namespace?: string;
  kind?: string;
  apiVersion?: string;
  name?: string;
  status?: WorkloadRow['status'];
  statusReason?: string | null;
  allocated?: number;
  requested?: number;
  desired?: number;
  resource?: string;
  ready?: number;
  total?: number;
  roles?: WorkloadRow['roles'];
  createdAt?: string | null;
  /** No definition describes the row (its desired GPUs are unknown). */
  noDefinition?: boolean;
  /** Utilization (percent) of its allocated GPUs; absent or null: no readings ("n/a"). */
  utilization?: number | null;
  /** Devices' worth idle; absent or null: not known. */
  idle?: number | null;
  idleSince?: string;
}

/** The row's usage: none without allocated GPUs, readings only when a utilization is given. */
function usageOf(i: RowInput, allocated: number): WorkloadRow['usage'] {
  if (!(allocated > 0)) return null;
  const util = i.utilization ?? null;
  return {
    allocated,
    measured: util === null ? 0 : allocated,
    utilization: util,
    used: util === null ? null : (allocated * util) / 100,
    memory: null,
    idle: i.idle ?? null,
    idleSince: i.idleSince ?? null,
    pods: { gpu: 1, withMetrics: util === null ? 0 : 1 },
    source: util === null ? 'none' : 'prometheus',
    at: util === null ? null : '2026-12-01T12:00:00Z',
  };
}

export function makeRow(i: RowInput = {}): WorkloadRow {
  const cluster = i.cluster ?? 'sim';
  const namespace = i.namespace ?? 'default';
  const kind = i.kind ?? 'JobSet';
  const name = i.name ?? 'train';
  const resource = i.resource ?? 'nvidia.com/gpu';
  const amounts = (n: number) => (n ? { [resource]: n } : {});
  const allocated = i.allocated ?? 0;
  const requested = i.requested ?? allocated;
  const desired = i.desired ?? requested;
  const roles = i.roles ?? [];
  return {
    id: workloadId({ cluster, namespace, kind, apiVersion: i.apiVersion ?? 'jobset.x-k8s.io/v1alpha2', name }),
    cluster,
    namespace,
    apiVersion: i.apiVersion ?? 'jobset.x-k8s.io/v1alpha2',
    kind,
    name,
    uid: `uid-${name}`,
    status: i.status ?? 'Running',
    statuses: [i.status ?? 'Running'],
    statusReason: i.statusReason ?? null,
    gpus: {
      allocated,
      requested,
      desired,
      byResource: { allocated: amounts(allocated), requested: amounts(requested), desired: amounts(desired) },
      unknown: i.noDefinition ? ['desired'] : [],
    },
    pods: { ready: i.ready ?? 0, total: i.total ?? 0 },
    roles,
    rolesSummary: roles.map((r) => `${r.pods} ${r.name}`).join(' · '),
    createdAt: i.createdAt === undefined ? '2026-12-01T10:00:00Z' : i.createdAt,
    definition: i.noDefinition ? { name: '', source: 'none' } : { name: 'jobset-x-k8s-io-jobset-v1alpha2', source: 'catalog' },
    ownership: { ownedBy: null, broken: null },
    errors: [],
    stale: null,
    usage: usageOf(i, allocated),
  };
}

const KINDS = ['JobSet', 'PyTorchJob', 'RayCluster', 'Deployment', 'Job', 'LeaderWorkerSet', 'InferenceService'];
const STATUSES: WorkloadRow['status'][] = ['Running', 'Running', 'Running', 'Initializing', 'Completed', 'Failed', 'Suspended', 'Degraded'];

/** `n` varied rows, deterministic (a tiny LCG), for sizing and speed tests. */
export function manyRows(n: number, seed = 1): WorkloadRow[] {
  let s = seed >>> 0;
  const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const rows: WorkloadRow[] = [];
  for (let k = 0; k < n; k++) {
    const gpus = [0, 1, 2, 4, 8, 16, 32][Math.floor(rnd() * 7)];
    const requested = gpus;
    const allocated = rnd() < 0.8 ? requested : Math.floor(requested / 2);
    rows.push(
      makeRow({
        cluster: `c${k % 3}`,
        namespace: `team-${k % 40}`,
        kind: KINDS[k % KINDS.length],
        name: `wl-${k.toString(36)}-${Math.floor(rnd() * 1e6).toString(36)}`,
        status: STATUSES[Math.floor(rnd() * STATUSES.length)],
        allocated,
        requested,
        desired: requested,
        ready: Math.floor(rnd() * 8),
        total: 8,
        createdAt: new Date(Date.UTC(2026, 10, 1) + Math.floor(rnd() * 30 * 86400e3)).toISOString(),
      }),
    );
  }
  return rows;
}
