'use client';

/** `GET /api/nodes`, refetched every 15 s; one query shared by the nodes page and the table's totals strip. */
import { useQuery } from '@tanstack/react-query';
import type { NodesPayload } from '../../contract/index.ts';

export const NODES_REFRESH_MS = 15_000;

async function fetchNodes(): Promise<NodesPayload> {
  const res = await fetch('/api/nodes', { cache: 'no-store' });
  const body = (await res.json().catch(() => null)) as (NodesPayload & { error?: { message?: string } }) | null;
  if (!res.ok || !body) throw new Error(body?.error?.message ?? `HTTP ${res.status}`);
  return body;
}

export function useNodes() {
  return useQuery({ queryKey: ['nodes'], queryFn: fetchNodes, refetchInterval: NODES_REFRESH_MS });
}
