'use client';

import type { ReactNode } from 'react';
import type { ClusterUsage, UsageFigures, WorkloadTree, WorkloadUsage } from '../../contract/index.ts';
import { formatGpus } from '../../lib/format/gpus.ts';
import { formatMemory, formatPercent } from '../../lib/rows/index.ts';
import { useLiveClusters, useNow } from '../live/LiveProvider.tsx';
import { ClusterUsageSummary } from '../usage/ClusterUsageSummary.tsx';
import { UsageHistoryChart } from '../usage/UsageHistoryChart.tsx';
import { UtilBar } from '../usage/UtilBar.tsx';
import { idleForText, idleRuleText, naReason, SOURCE_LABEL } from '../usage/usage-text.ts';
import { Panel } from './Panels.tsx';
import { roleUsageRows, usedOfText } from './usage-model.ts';
import { useUsageHistory } from './use-usage-history.ts';

const th = 'px-2 py-1 text-left text-xs font-medium uppercase text-slate-500 dark:text-slate-400';
const td = 'px-2 py-1';

/** `4 idle for 45m`, `0`, or `n/a` while the idle state is not known. */
function IdleText({ f, now }: { f: UsageFigures; now: number }) {
  if (f.idle === null) return <span className="text-slate-500 dark:text-slate-400" title="Not known yet: a GPU is idle once it stays below the idle threshold for the whole idle window">n/a</span>;
  if (f.idle === 0) return <span className="text-slate-600 dark:text-slate-400">0</span>;
  const since = idleForText(f.idleSince, now);
  return (
    <span className="font-semibold text-amber-700 dark:text-amber-400" data-testid="idle-gpus">
      {formatGpus(f.idle)} idle{since ? ` ${since}` : ''}
    </span>
  );
}

function FiguresRow({ label, f, source, now, indent = false }: { label: string; f: UsageFigures; source: WorkloadUsage['source']; now: number; indent?: boolean }) {
  const why = naReason({ source, pods: f.pods });
  return (
    <tr className="border-t border-slate-100 dark:border-slate-800" data-testid={indent ? 'instance-usage' : 'role-usage'} data-role={label}>
      <th scope="row" className={`${td} text-left font-medium ${indent ? 'pl-6 font-normal text-slate-600 dark:text-slate-300' : ''}`}>
        {label}
      </th>
      <td className={`${td} w-40`}>
        <UtilBar utilization={f.utilization} naTitle={why} label={`Utilization of ${label}`} />
      </td>
      <td className={`${td} text-right tabular-nums`}>{usedOfText(f, formatGpus)}</td>
      <td className={`${td} text-right tabular-nums`}>{f.memory ? formatMemory(f.memory) : <span className="text-slate-500 dark:text-slate-400" title={why}>n/a</span>}</td>
      <td className={`${td} text-right tabular-nums`}>
        <IdleText f={f} now={now} />
      </td>
      <td className={`${td} text-right tabular-nums text-slate-600 dark:text-slate-400`}>
        {f.pods.withMetrics} / {f.pods.gpu}
      </td>
    </tr>
  );
}

function RolesUsageTable({ tree, usage, now }: { tree: WorkloadTree; usage: WorkloadUsage; now: number }) {
  const rows = roleUsageRows(tree, usage);
  if (rows.length === 0) return null;
  return (
    <table className="w-full tabular-nums" data-testid="roles-usage" aria-label="Utilization by role">
      <thead>
        <tr>
          <th className={th}>Role</th>
          <th className={th}>Utilization</th>
          <th className={`${th} text-right`} title="GPUs' worth in use (utilization × GPUs) out of those allocated">GPUs used / alloc</th>
          <th className={`${th} text-right`}>GPU memory</th>
          <th className={`${th} text-right`}>Idle GPUs</th>
          <th className={`${th} text-right`} title="GPU pods with readings / GPU pods">Pods measured</th>
        </tr>
      </thead>
      <tbody>
        {rows.flatMap((r) => [
          <FiguresRow key={r.name} label={r.name} f={r.figures} source={usage.source} now={now} />,
          ...r.instances.map((i) => <FiguresRow key={`${r.name}/${i.component}/${i.instance}`} label={`${r.name} ${i.instance || i.component}`} f={i.figures} source={usage.source} now={now} indent />),
        ])}
      </tbody>
    </table>
  );
}

function HistorySection({ api, usage }: { api: string; usage: WorkloadUsage }) {
  const q = useUsageHistory(api, true, usage.history);
  let body: ReactNode;
  if (q.isPending) body = <p className="text-slate-600 dark:text-slate-400">{usage.history ? 'Loading the last hour…' : ' '}</p>;
  else if (q.isError) body = <p role="status" className="text-amber-700 dark:text-amber-400">History unavailable: {q.error.message}</p>;
  else if (!q.data.available) body = <p className="text-slate-600 dark:text-slate-400" data-testid="usage-history-reason">History unavailable: {q.data.reason ?? 'the cluster keeps none'}.</p>;
  else body = <UsageHistoryChart history={q.data} idleThresholdPercent={usage.idle.thresholdPercent} />;
  return (
    <section aria-label="Utilization over the last hour" className="flex flex-col gap-1">
      <h3 className="text-xs font-medium uppercase text-slate-500 dark:text-slate-400">Last hour, per role</h3>
      {body}
    </section>
  );
}

/** When the stream carries no utilization for the cluster (switched off there), what the detail itself says. */
function DetailSource({ usage, now }: { usage: WorkloadUsage; now: number }) {
  return (
    <p className="text-xs text-slate-600 dark:text-slate-300" data-testid="cluster-usage" data-source={usage.source}>
      Utilization: <b>{SOURCE_LABEL[usage.source]}</b>
      {usage.at ? ` · readings of ${new Date(usage.at).toLocaleTimeString()} (${Math.max(0, Math.round((now - Date.parse(usage.at)) / 1000))} s old)` : ''} · {idleRuleText(usage.idle)}
    </p>
  );
}

/**
 * The workload's GPU utilization: its own figures, one row per role (and per instance when a role has
 * several), so that a role idling beside a saturated one is plain, and the last hour per role.
 */
export function UsagePanel({ tree, usage, api }: { tree: WorkloadTree; usage: WorkloadUsage | null; api: string }) {
  const clusters = useLiveClusters();
  const now = useNow(5000);
  const cluster: ClusterUsage | undefined = clusters.find((c) => c.name === tree.workload.cluster)?.usage;
  if (!usage) {
    return (
      <Panel title="Utilization" id="panel-usage">
        <p className="text-slate-600 dark:text-slate-400" data-testid="usage-none">
          This workload holds no allocated GPUs: there is no utilization to show.
        </p>
      </Panel>
    );
  }
  const w = usage.workload;
  const why = naReason({ source: usage.source, pods: w.pods }, cluster);
  return (
    <Panel title="Utilization" id="panel-usage">
      <div className="flex flex-col gap-3" data-testid="usage-panel">
        {cluster ? <ClusterUsageSummary usage={cluster} now={now} /> : <DetailSource usage={usage} now={now} />}
        <dl className="grid grid-cols-2 gap-x-6 gap-y-1 sm:grid-cols-5" data-testid="workload-usage">
          <div className="flex flex-col">
            <dt className="text-xs text-slate-600 dark:text-slate-400">Utilization</dt>
            <dd className="w-32 text-base font-semibold">
              <UtilBar utilization={w.utilization} naTitle={why} label="Workload utilization" title={w.utilization === null ? undefined : `${formatPercent(w.utilization)} average over the GPUs with readings`} />
            </dd>
          </div>
          <div className="flex flex-col">
            <dt className="text-xs text-slate-600 dark:text-slate-400">GPUs used / allocated</dt>
            <dd className="tabular-nums">{usedOfText(w, formatGpus)}</dd>
          </div>
          <div className="flex flex-col">
            <dt className="text-xs text-slate-600 dark:text-slate-400">GPU memory</dt>
            <dd className="tabular-nums">{w.memory ? formatMemory(w.memory) : <span className="text-slate-500 dark:text-slate-400" title={why}>n/a</span>}</dd>
          </div>
          <div className="flex flex-col">
            <dt className="text-xs text-slate-600 dark:text-slate-400">Idle GPUs</dt>
            <dd className="tabular-nums">
              <IdleText f={w} now={now} />
            </dd>
          </div>
          <div className="flex flex-col">
            <dt className="text-xs text-slate-600 dark:text-slate-400">GPU pods measured</dt>
            <dd className="tabular-nums">
              {w.pods.withMetrics} of {w.pods.gpu}
            </dd>
          </div>
        </dl>
        <RolesUsageTable tree={tree} usage={usage} now={now} />
        <HistorySection api={api} usage={usage} />
      </div>
    </Panel>
  );
}
