'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { OwnershipPanel } from './OwnershipPanel.tsx';
import Link from 'next/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { stringify } from 'yaml';
import type { WorkloadDetail as WorkloadDetailPayload, WorkloadRow } from '../../contract/index.ts';
import { StructureGraph } from '../graph/StructureGraph.tsx';
import { clockTime } from '../live/connection-label.ts';
import { useConnection, useLiveRow } from '../live/LiveProvider.tsx';
import { viewFreshness } from '../live/view-freshness.ts';
import { KindIcon } from '../ui/KindIcon.tsx';
import { StatusBadge } from '../ui/StatusBadge.tsx';
import { ActionsBar } from '../actions/ActionsBar.tsx';
import { humanAge } from '../../lib/format/duration.ts';
import { formatGpus } from '../../lib/format/gpus.ts';
import { tableHref } from '../workloads/last-view.ts';
import { keyId, workloadApi } from '../workloads/workload-href.ts';
import type { WorkloadKey } from '../workloads/workload-href.ts';
import { DefinitionPanel, GangPanel, GpuPanel, Panel, PodsPanel, RolesPanel, StatusPanel } from './Panels.tsx';
import { UsagePanel } from './UsagePanel.tsx';
import { EventsPanel } from './EventsPanel.tsx';
import { PodPanel } from './PodPanel.tsx';
import { rowWhyText } from './why-text.ts';

type Detail = WorkloadDetailPayload;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function fetchDetail(url: string): Promise<Detail> {
  const res = await fetch(url, { cache: 'no-store' });
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new HttpError(res.status, body?.error?.message ?? `HTTP ${res.status}`);
  }
  return (await res.json()) as Detail;
}

function sameRow(a: WorkloadRow, b: WorkloadRow): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function Message({ title, detail }: { title: string; detail?: string }) {
  return (
    <div role="status" className="flex flex-1 flex-col items-center justify-center gap-2 p-8 text-center">
      <p className="text-base font-medium">{title}</p>
      {detail && <p className="max-w-xl text-sm text-slate-500 dark:text-slate-400">{detail}</p>}
      <Link href="/" className="text-sm text-sky-700 hover:underline dark:text-sky-400">
        ← All workloads
      </Link>
    </div>
  );
}

export function WorkloadDetail({ k }: { k: WorkloadKey }) {
  const id = keyId(k);
  const url = workloadApi(k);
  const qc = useQueryClient();
  const query = useQuery({
    queryKey: ['workload', id],
    queryFn: () => fetchDetail(url),
    retry: (n, e) => !(e instanceof HttpError && e.status === 404) && n < 2,
    refetchInterval: 15_000,
  });
  // The live row is the one the server resolved (a link may name a bare kind; the row id has its group).
  const { row, hasSnapshot } = useLiveRow(query.data?.row.id ?? id);
  const connection = useConnection();
  const freshness = viewFreshness(connection.state, connection.hasSnapshot);
  // The open pod panel is part of the URL: a link to it works, and Back closes it.
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const selectedPod = search.get('pod');
  // Opening pushes a history entry; closing one opened here goes back (so Back does not reopen it).
  const openedHere = useRef(false);
  const hrefWithPod = useCallback(
    (pod: string | null) => {
      const q = new URLSearchParams(search.toString());
      if (pod) q.set('pod', pod);
      else q.delete('pod');
      const qs = q.toString();
      return qs ? `${pathname}?${qs}` : pathname;
    },
    [pathname, search],
  );
  const selectPod = useCallback(
    (pod: string) => {
      if (selectedPod) router.replace(hrefWithPod(pod), { scroll: false });
      else {
        openedHere.current = true;
        router.push(hrefWithPod(pod), { scroll: false });
      }
    },
    [router, hrefWithPod, selectedPod],
  );
  useEffect(() => {
    if (!selectedPod) openedHere.current = false;
  }, [selectedPod]);
  const closePod = useCallback(() => {
    if (openedHere.current) {
      openedHere.current = false;
      router.back();
    } else router.replace(hrefWithPod(null), { scroll: false });
  }, [router, hrefWithPod]);
  const [goneAt, setGoneAt] = useState<number | null>(null);

  // The stream carries rows, not trees: when this workload's row differs from the loaded one,
  // fetch the tree again (at most once a second; the last change is always fetched). Changes that
  // leave the row alone (a pod's node, restarts) are picked up by the periodic refetch.
  const triggered = useRef<WorkloadRow | undefined>(undefined);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const lastFetch = useRef(0);
  const loaded = query.data;
  useEffect(() => {
    if (!hasSnapshot) return;
    if (row === undefined) {
      if (loaded) setGoneAt((g) => g ?? Date.now());
      return;
    }
    setGoneAt(null);
    if (!loaded || triggered.current === row || sameRow(row, loaded.row)) return;
    triggered.current = row;
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      lastFetch.current = Date.now();
      void qc.invalidateQueries({ queryKey: ['workload', id] });
    }, Math.max(0, lastFetch.current + 1000 - Date.now()));
  }, [row, hasSnapshot, qc, id, loaded]);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const data = query.data;
  const status = row?.status ?? data?.row.status ?? 'Undefined';
  const yamlText = useMemo(() => (data ? stringify(data.object, { lineWidth: 0 }) : ''), [data]);

  if (query.isPending) return <Message title="Loading the workload…" detail={`Resolving ${k.kind} ${k.namespace}/${k.name} in cluster ${k.cluster}.`} />;
  if (query.isError && !data) {
    const e = query.error;
    if (e instanceof HttpError && e.status === 404) return <Message title="Workload not found" detail={`There is no ${k.kind} ${k.namespace === '_' ? '' : `${k.namespace}/`}${k.name} in cluster ${k.cluster}. It may have been deleted.`} />;
    return <Message title="Could not load the workload" detail={e.message} />;
  }
  if (!data) return null;
  const shown = row ?? data.row;
  const tree = data.tree;
  // Out of date as a whole (no live stream, or kinds it is built from cannot be read): dimmed, and said.
  const staleText = freshness.stale ? freshness.text : shown.stale ? `Possibly out of date since ${clockTime(Date.parse(shown.stale.since))}: ${shown.stale.reason}.` : null;

  return (
    <div className="flex flex-col gap-3">
      <nav aria-label="Breadcrumb" className="text-sm">
        <Link href={tableHref()} className="text-sky-700 hover:underline dark:text-sky-400">
          ← Workloads
        </Link>
      </nav>
      <header className="flex flex-wrap items-center gap-3">
        <KindIcon apiVersion={shown.apiVersion} kind={shown.kind} size="lg" />
        <div className="min-w-0">
          <h1 className="truncate text-xl font-semibold" data-testid="workload-name">
            {shown.name}
          </h1>
          <p className="text-sm text-slate-500 dark:text-slate-400">
            {shown.kind} · {shown.apiVersion} · namespace {shown.namespace || '(cluster-scoped)'} · cluster {shown.cluster} · age {humanAge(shown.createdAt, Date.now())}
          </p>
        </div>
        <span data-testid="workload-status">
          <StatusBadge status={shown.status} reason={shown.statusReason} others={shown.statuses} />
        </span>
        <div className="ml-auto flex gap-4 text-sm tabular-nums" data-testid="workload-gpus">
          <span>
            GPUs allocated <b data-testid="gpus-allocated">{formatGpus(shown.gpus.allocated)}</b>
          </span>
          <span>
            requested <b data-testid="gpus-requested">{formatGpus(shown.gpus.requested)}</b>
          </span>
          <span>
            desired <b data-testid="gpus-desired" title={shown.gpus.unknown.includes('desired') ? 'unknown: no definition says what this workload asks for' : undefined}>{shown.gpus.unknown.includes('desired') ? '?' : formatGpus(shown.gpus.desired)}</b>
          </span>
          <span data-testid="workload-pods">
            pods {shown.pods.ready}/{shown.pods.total} ready{shown.pods.done ? ` · ${shown.pods.done} done` : ''}
          </span>
        </div>
      </header>
      <ActionsBar api={url} kind={shown.kind} name={shown.name} />
      {shown.why && (
        <p className="rounded-md border border-sky-300 bg-sky-50 px-3 py-1.5 text-sm text-sky-950 dark:border-sky-800 dark:bg-sky-950/50 dark:text-sky-100" data-testid="workload-why">
          <span className="font-semibold">Why: </span>
          {rowWhyText(shown.why)}
        </p>
      )}
      {goneAt !== null && (
        <p role="alert" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-1.5 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200">
          This workload was deleted at {clockTime(goneAt)}. Showing its last known state.
        </p>
      )}
      {staleText && (
        <p role="status" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-1.5 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200" data-testid="workload-stale">
          {staleText}
        </p>
      )}
      {query.isError && data && (
        <p role="status" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-1.5 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200">
          Could not refresh: {query.error.message}. Showing the last loaded state.
        </p>
      )}
      <div className={`flex flex-col gap-3 ${staleText ? 'opacity-60' : ''}`} data-stale={staleText ? 'true' : undefined} data-testid="workload-body">
      <div className="grid gap-3 lg:grid-cols-[minmax(0,1fr)_380px]">
        <Panel title="Structure" id="panel-structure" actions={
            <span className="text-xs text-slate-600 dark:text-slate-400">
              {tree.pods.length} pods{tree.unmatchedPods.length ? ` + ${tree.unmatchedPods.length} unmatched` : ''}
            </span>
          }>
          <StructureGraph tree={tree} status={status} usage={data.usage ?? null} onSelectPod={selectPod} selectedPod={selectedPod} label={`Structure of ${shown.kind} ${shown.name}`} className="h-[540px] w-full" />
        </Panel>
        <div className="flex flex-col gap-3">
          <StatusPanel tree={tree} />
          <GpuPanel tree={tree} />
          <DefinitionPanel definition={data.definition} cluster={shown.cluster} rowId={shown.id} />
        </div>
      </div>
      <EventsPanel api={url} />
      <UsagePanel tree={tree} usage={data.usage ?? null} api={url} />
      <RolesPanel tree={tree} />
      <PodsPanel tree={tree} usage={data.usage ?? null} onSelectPod={selectPod} />
      <OwnershipPanel detail={data} />
      <GangPanel tree={tree} />
      <Panel title="Root object (YAML)" id="panel-yaml">
        <details>
          <summary className="cursor-pointer text-sm text-sky-700 dark:text-sky-400">
            Show {shown.kind} {shown.name}
          </summary>
          <pre className="mt-2 max-h-[480px] overflow-auto rounded bg-slate-50 p-3 text-xs dark:bg-slate-900" data-testid="root-yaml">
            {yamlText}
          </pre>
        </details>
      </Panel>
      </div>
      {selectedPod && (
        <PodPanel
          key={selectedPod}
          cluster={shown.cluster}
          namespace={shown.namespace}
          name={selectedPod}
          uid={[...tree.pods, ...tree.unmatchedPods].find((p) => p.name === selectedPod)?.uid}
          onClose={closePod}
        />
      )}
    </div>
  );
}
