'use client';

import { useCallback, useDeferredValue, useEffect, useId, useMemo, useState } from 'react';
import type { WorkloadStatusName, WorkloadTree, WorkloadUsage } from '../../contract/index.ts';
import { buildGraph } from './build-graph.ts';
import { FlowGraph } from './FlowGraph.tsx';

export interface StructureGraphProps {
  tree: WorkloadTree;
  status: WorkloadStatusName;
  usage: WorkloadUsage | null;
  /** A pod node was clicked: the page opens that pod's panel. */
  onSelectPod?: (podName: string) => void;
  /** The pod whose panel is open (highlighted). */
  selectedPod?: string | null;
  label: string;
  className?: string;
}

/** Past this many pods some lists collapse, and a search box finds pods wherever they are. */
const SEARCH_ABOVE = 12;

/**
 * The workload's structure graph with its own view state (expanded lists, the page of each, a pod
 * search): what the workload page shows. A pod selected elsewhere (the pods list) is brought into view.
 */
export function StructureGraph({ tree, status, usage, onSelectPod, selectedPod = null, label, className }: StructureGraphProps) {
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [pages, setPages] = useState<ReadonlyMap<string, number>>(new Map());
  const [search, setSearch] = useState('');
  // The list just opened or paged: the view fits to it.
  const [focus, setFocus] = useState<string | null>(null);
  // Typing stays responsive on 10,000 pods: the graph follows the box when React has time.
  const query = useDeferredValue(search);
  // The selected pod is revealed once when it changes; afterwards the user's paging wins.
  const [reveal, setReveal] = useState<string | null>(selectedPod);
  const [lastSelected, setLastSelected] = useState<string | null>(selectedPod);
  if (selectedPod !== lastSelected) {
    setLastSelected(selectedPod);
    setReveal(selectedPod);
  }
  // A search found the pod and was cleared: the pod stays in view, on its page of the full list.
  const [lastQuery, setLastQuery] = useState(query);
  if (query !== lastQuery) {
    setLastQuery(query);
    if (query.trim() === '' && selectedPod) setReveal(selectedPod);
  }
  const model = useMemo(() => buildGraph(tree, status, { expanded, pages, usage, search: query, selectedPod, reveal }), [tree, status, expanded, pages, usage, query, selectedPod, reveal]);
  useEffect(() => {
    if (reveal === null) return;
    const r = model.revealed;
    if (r) {
      if (r.expand.length) setExpanded((s) => new Set([...s, ...r.expand]));
      if (r.pages.length) setPages((m) => new Map([...m, ...r.pages]));
      const inner = [...r.expand, ...r.pages.map(([k]) => k)].pop();
      if (inner) setFocus(inner);
    }
    setReveal(null);
  }, [model, reveal]);
  const onToggle = useCallback(
    (key: string) => {
      const opening = !expanded.has(key);
      setExpanded((s) => {
        const n = new Set(s);
        if (n.has(key)) n.delete(key);
        else n.add(key);
        return n;
      });
      setFocus(opening ? key : null);
    },
    [expanded],
  );
  const onPage = useCallback((key: string, page: number) => {
    setPages((m) => new Map(m).set(key, page));
    setFocus(key);
  }, []);
  const searchId = useId();
  const podCount = tree.pods.length + tree.unmatchedPods.length;
  const found = model.search;
  return (
    <div className={`flex flex-col ${className ?? ''}`} data-testid="structure-graph-panel">
      {podCount > SEARCH_ABOVE && (
        <div className="flex flex-wrap items-center gap-2 border-b border-slate-200 px-2 py-1 text-xs dark:border-slate-700">
          <label htmlFor={searchId} className="text-slate-700 dark:text-slate-200">
            Find pod
          </label>
          <input
            id={searchId}
            type="search"
            value={search}
            onChange={(e) => {
              setSearch(e.target.value);
              setFocus(null);
            }}
            onKeyDown={(e) => {
              // Enter opens the first match, as a search box's Enter usually does.
              if (e.key === 'Enter' && found?.first && onSelectPod) onSelectPod(found.first);
              if (e.key === 'Escape') setSearch('');
            }}
            placeholder="pod or node name"
            className="w-56 rounded border border-slate-300 bg-white px-2 py-0.5 text-slate-900 placeholder:text-slate-600 dark:border-slate-500 dark:bg-slate-900 dark:text-slate-100 dark:placeholder:text-slate-300"
            data-testid="graph-search"
            autoComplete="off"
            spellCheck={false}
          />
          <span role="status" className="text-slate-700 dark:text-slate-200" data-testid="graph-search-result">
            {found ? (found.matches === 0 ? 'no pod matches' : found.matches === 1 ? '1 pod matches' : `${found.matches.toLocaleString('en-US')} pods match`) : ''}
          </span>
          {selectedPod && (
            <span className="ml-auto truncate text-slate-700 dark:text-slate-200" data-testid="graph-selected-pod" data-pod={selectedPod}>
              Selected: {selectedPod}
            </span>
          )}
        </div>
      )}
      <FlowGraph model={model} onToggle={onToggle} onPage={onPage} onSelectPod={onSelectPod} focus={focus} label={label} className="min-h-0 w-full flex-1" />
    </div>
  );
}
