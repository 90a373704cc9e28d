/** The shapes of `GET /api/definitions` and `/api/definitions/{name}`. */
import type { DefinitionComponent } from './definition-graph.ts';

export interface DefinitionError {
  code: string;
  message: string;
  path: string;
}

export interface DefinitionItem {
  name: string;
  source: 'catalog' | 'cluster' | string;
  cluster: string | null;
  kind: string;
  apiVersion: string;
  valid: boolean;
  errors: DefinitionError[];
  workloads: number;
  components: DefinitionComponent[];
}

export interface DefinitionDetailItem extends DefinitionItem {
  yaml: string;
}

export interface ValidateResult {
  valid: boolean;
  definitions: DefinitionItem[];
  errors: DefinitionError[];
}

export async function getJson<T>(url: string, init?: RequestInit): Promise<T> {
  const res = await fetch(url, { cache: 'no-store', ...init });
  const body = (await res.json().catch(() => null)) as (T & { error?: { message?: string } }) | null;
  if (!res.ok) throw Object.assign(new Error(body?.error?.message ?? `HTTP ${res.status}`), { status: res.status });
  return body as T;
}
