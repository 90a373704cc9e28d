/** The shapes of `GET /api/definitions`, `/api/definitions/{name}` and the validate call (the contract's). */
export type { DefinitionItem, DefinitionDetail as DefinitionDetailItem, ValidateResult, EngineError as DefinitionError } from '../../contract/index.ts';

export async function getJson<T>(url: string, init?: RequestInit): Promise<T> {
  const res = await fetch(url, { cache: 'no-store', ...init });
  const body = (await res.json().catch(() => null)) as (T & { error?: { message?: string } }) | null;
  if (!res.ok) throw Object.assign(new Error(body?.error?.message ?? `HTTP ${res.status}`), { status: res.status });
  return body as T;
}
