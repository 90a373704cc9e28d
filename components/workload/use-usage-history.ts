'use client';

/**
 * `GET …/usage/history`: every 60 s while the cluster keeps history (Prometheus); once otherwise, for
 * the endpoint's reason why there is none. The key holds `history`, so a source that gains or loses
 * history is asked again.
 */
import { useQuery } from '@tanstack/react-query';
import type { UsageHistory } from '../../contract/index.ts';

export const HISTORY_REFRESH_MS = 60_000;

async function fetchHistory(url: string): Promise<UsageHistory> {
  const res = await fetch(url, { cache: 'no-store' });
  const body = (await res.json().catch(() => null)) as (UsageHistory & { error?: { message?: string } }) | null;
  if (!res.ok || !body) throw new Error(body?.error?.message ?? `HTTP ${res.status}`);
  return body;
}

export function useUsageHistory(workloadApiUrl: string, enabled: boolean, history: boolean) {
  return useQuery({
    queryKey: ['usage-history', workloadApiUrl, history],
    queryFn: () => fetchHistory(`${workloadApiUrl}/usage/history`),
    enabled,
    refetchInterval: history ? HISTORY_REFRESH_MS : false,
    staleTime: history ? HISTORY_REFRESH_MS / 2 : Number.POSITIVE_INFINITY,
    retry: 1,
  });
}
