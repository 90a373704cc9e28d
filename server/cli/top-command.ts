/**
 * `wmap top workloads`: like `kubectl top pods`, but per workload and for GPUs — the workloads
 * holding GPUs, most idle GPUs first (then lowest utilization), with utilization, GPU memory and for
 * how long they have been idle. Figures without readings print `n/a`; stderr says where the readings
 * come from and how old they are.
 */
import { stringify } from 'yaml';
import { formatIdle, formatMemory, formatPercent, printRowTable, ROW_COLUMNS, type RowColumn } from '../../lib/rows/index.ts';
import { formatGpus } from '../../lib/format/gpus.ts';
import type { WorkloadRow } from '../workloads/index.ts';
import { connectOnce, selectRows, warnUsage, type LiveFlags } from './live-commands.ts';
import { UsageError, type Io } from './offline.ts';

const column = (key: RowColumn['key']) => ROW_COLUMNS.find((c) => c.key === key)!;

const TOP_COLUMNS: RowColumn[] = [
  column('namespace'),
  column('kind'),
  column('name'),
  { ...column('gpus'), cliHeader: 'GPUS(ALLOC)', text: (r) => (r.gpus.unknown.includes('allocated') ? '?' : formatGpus(r.gpus.allocated)) },
  { ...column('util'), text: (r) => formatPercent(r.usage?.utilization ?? null) },
  { ...column('memory'), text: (r) => formatMemory(r.usage?.memory ?? null) },
  { ...column('idle'), cliHeader: 'IDLE(SINCE)', text: (r, now) => formatIdle(r.usage?.idle ?? null, r.usage?.idleSince ?? null, now) },
  { ...column('roles') },
];

/** Most idle GPUs first, then the least used; unknown figures after known ones. */
export function topOrder(rows: readonly WorkloadRow[]): WorkloadRow[] {
  const idle = (r: WorkloadRow) => r.usage?.idle ?? -1;
  const util = (r: WorkloadRow) => r.usage?.utilization ?? Number.POSITIVE_INFINITY;
  return [...rows].sort((a, b) => idle(b) - idle(a) || util(a) - util(b) || b.gpus.allocated - a.gpus.allocated || (a.id < b.id ? -1 : 1));
}

export async function cmdTopWorkloads(flags: LiveFlags, io: Io): Promise<number> {
  const out = flags.output ?? '';
  if (!['', 'json', 'yaml'].includes(out)) throw new UsageError(`unknown output format "${out}" (json, yaml)`);
  if (flags.usage === false) throw new UsageError('top shows utilization: --no-usage leaves it nothing to show');
  const { live, namespace } = await connectOnce(flags, true);
  try {
    const now = Date.now();
    // Only workloads holding GPUs: the others have no utilization to rank.
    const rows = topOrder(selectRows(live.index.allRows(), flags, namespace, now).filter((r) => r.usage !== null));
    warnUsage(live.clusters(), io, now);
    if (out === 'json') io.out(JSON.stringify(rows.map((r) => ({ id: r.id, namespace: r.namespace, kind: r.kind, name: r.name, gpus: r.gpus.allocated, usage: r.usage })), null, 2));
    else if (out === 'yaml') io.out(stringify(rows.map((r) => ({ id: r.id, usage: r.usage }))).trimEnd());
    else if (rows.length === 0) io.err(flags.allNamespaces ? 'No workloads hold GPUs.' : `No workloads hold GPUs in ${namespace} namespace.`);
    else io.out(printRowTable(rows, TOP_COLUMNS.filter((c) => c.key !== 'namespace' || flags.allNamespaces), now));
    return 0;
  } finally {
    live.stop();
  }
}
