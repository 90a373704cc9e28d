'use client';

/**
 * `GET …/usage/history`: every 60 s while the cluster keeps history (Prometheus); once otherwise, for
 * the endpoint's reason why there is none. The key holds `history`, so a source that gains or loses
 * history is asked again.
 */
import { useQuery } from '@tanstack/react-query';
import type { UsageHistory } from '../../contract/index.ts';
import { fetchApiJson } from './fetch-json.ts';

export const HISTORY_REFRESH_MS = 60_000;

export function useUsageHistory(workloadApiUrl: string, enabled: boolean, history: boolean) {
  return useQuery({
    queryKey: ['usage-history', workloadApiUrl, history],
    queryFn: () => fetchApiJson<UsageHistory>(`${workloadApiUrl}/usage/history`),
    enabled,
    refetchInterval: history ? HISTORY_REFRESH_MS : false,
    staleTime: history ? HISTORY_REFRESH_MS / 2 : Number.POSITIVE_INFINITY,
    retry: 1,
  });
}
