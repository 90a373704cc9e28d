/**
 * The row query's specification as one table: a URL query and the rows it must give, in order.
 * Every client is tested against it — the shared module (query.test.ts), the list API and the
 * stream (app/api/api.test.ts) — so the same URL gives the same answer everywhere. Test data only.
 */
import type { WorkloadRow } from '../../contract/index.ts';
import { makeRow } from './test-rows.ts';

export const CASE_NOW = Date.parse('2026-12-02T10:00:00Z');

export const CASE_ROWS: WorkloadRow[] = [
  makeRow({ name: 'a-train', namespace: 'team-a', kind: 'JobSet', allocated: 12, status: 'Running', createdAt: '2026-12-01T00:00:00Z', utilization: 92, idle: 0 }),
  makeRow({ name: 'b-serve', namespace: 'team-b', kind: 'InferenceService', apiVersion: 'serving.kserve.io/v1beta1', allocated: 1, status: 'Running', cluster: 'east', createdAt: '2026-12-02T09:00:00Z', utilization: 2, idle: 1, idleSince: '2026-12-02T09:30:00Z' }),
  makeRow({ name: 'c-wait', namespace: 'team-a', kind: 'PyTorchJob', apiVersion: 'kubeflow.org/v1', allocated: 0, requested: 8, desired: 8, status: 'Initializing', statusReason: 'Unschedulable' }),
  makeRow({ name: 'd-cpu', namespace: 'team-b', kind: 'Deployment', apiVersion: 'apps/v1', allocated: 0, status: 'Completed', createdAt: null }),
];

export interface QueryCase {
  /** What the case shows, for the test's name. */
  what: string;
  query: string;
  /** The rows' names, in order. */
  names: string[];
  /** Parameters that cannot be read (the API answers 400; the dashboard uses their defaults). */
  problems?: string[];
  /** The CEL expression cannot be used (the API answers 400; the dashboard filters nothing and says why). */
  celError?: boolean;
}

export const QUERY_CASES: QueryCase[] = [
  { what: 'no query: every row, by name', query: '', names: ['a-train', 'b-serve', 'c-wait', 'd-cpu'] },
  { what: 'a list is any of', query: 'status=Running,Completed', names: ['a-train', 'b-serve', 'd-cpu'] },
  { what: 'repeated parameters are a list too', query: 'status=Running&status=Completed', names: ['a-train', 'b-serve', 'd-cpu'] },
  { what: 'status is case-insensitive', query: 'status=running', names: ['a-train', 'b-serve'] },
  { what: 'different filters are all of', query: 'status=Running&namespace=team-b', names: ['b-serve'] },
  { what: 'kind is case-insensitive', query: 'kind=pytorchjob', names: ['c-wait'] },
  { what: 'kind with its group', query: 'kind=InferenceService.serving.kserve.io', names: ['b-serve'] },
  { what: 'kind with another group matches nothing', query: 'kind=InferenceService.example.com', names: [] },
  { what: 'cluster', query: 'cluster=east', names: ['b-serve'] },
  { what: 'namespace is exact', query: 'namespace=TEAM-A', names: [] },
  { what: 'GPU range, inclusive, on allocated', query: 'minGpus=1&maxGpus=12', names: ['a-train', 'b-serve'] },
  { what: 'GPU minimum', query: 'minGpus=8', names: ['a-train'] },
  { what: 'GPU range on requested', query: 'minGpus=8&gpuField=requested', names: ['a-train', 'c-wait'] },
  { what: 'zero is a real bound', query: 'maxGpus=0', names: ['c-wait', 'd-cpu'] },
  { what: 'preset: using GPUs', query: 'preset=using', names: ['a-train', 'b-serve'] },
  { what: 'preset: waiting for GPUs (requested > allocated)', query: 'preset=waiting', names: ['c-wait'] },
  { what: 'preset: idle GPUs (rows without readings are not idle)', query: 'preset=idle', names: ['b-serve'] },
  { what: 'preset: underused (< 30 %)', query: 'preset=underused', names: ['b-serve'] },
  { what: 'utilization range; rows without readings are in none', query: 'minUtil=50', names: ['a-train'] },
  { what: 'utilization maximum', query: 'maxUtil=50', names: ['b-serve'] },
  { what: 'utilization sorts lowest first; no readings last', query: 'sort=utilization', names: ['b-serve', 'a-train', 'c-wait', 'd-cpu'] },
  { what: 'idle GPUs sort most first; unknown last', query: 'sort=idle', names: ['b-serve', 'a-train', 'c-wait', 'd-cpu'] },
  { what: 'CEL over utilization: no readings is no match, not 0', query: `cel=${encodeURIComponent('utilization < 30')}`, names: ['b-serve'] },
  { what: 'CEL over the usage object', query: `cel=${encodeURIComponent('usage != null && usage.idle > 0')}`, names: ['b-serve'] },
  { what: 'free text is case-insensitive', query: 'q=TEAM-A', names: ['a-train', 'c-wait'] },
  { what: 'free text: every term, over reason too', query: 'q=team-a%20unschedulable', names: ['c-wait'] },
  { what: 'free text over the kind', query: 'q=inferenceservice', names: ['b-serve'] },
  { what: 'free text over the API group', query: 'q=kubeflow', names: ['c-wait'] },
  { what: 'free text that matches nothing', query: 'q=nothing-like-this', names: [] },
  { what: 'numbers sort largest first by default', query: 'sort=allocated', names: ['a-train', 'b-serve', 'c-wait', 'd-cpu'] },
  { what: 'the old sort name gpus is allocated', query: 'sort=gpus', names: ['a-train', 'b-serve', 'c-wait', 'd-cpu'] },
  { what: 'sort by requested', query: 'sort=requested', names: ['a-train', 'c-wait', 'b-serve', 'd-cpu'] },
  { what: 'an explicit order', query: 'sort=allocated&order=asc', names: ['c-wait', 'd-cpu', 'b-serve', 'a-train'] },
  { what: 'names descending', query: 'sort=name&order=desc', names: ['d-cpu', 'c-wait', 'b-serve', 'a-train'] },
  { what: 'status sorts problems first; ties by cluster, namespace, name', query: 'sort=status', names: ['c-wait', 'b-serve', 'a-train', 'd-cpu'] },
  { what: 'sort by kind', query: 'sort=kind', names: ['d-cpu', 'b-serve', 'a-train', 'c-wait'] },
  { what: 'age ascending is youngest first; unknown creation is oldest', query: 'sort=age', names: ['b-serve', 'c-wait', 'a-train', 'd-cpu'] },
  { what: 'sort by cluster', query: 'sort=cluster', names: ['b-serve', 'a-train', 'c-wait', 'd-cpu'] },
  { what: 'CEL over the row', query: `cel=${encodeURIComponent('gpus.allocated >= 8 && status == "Running"')}`, names: ['a-train'] },
  { what: 'CEL with age in seconds', query: `cel=${encodeURIComponent('age < 7200')}`, names: ['b-serve'] },
  { what: 'CEL and plain filters together', query: `cel=${encodeURIComponent('gpus.desired > 0')}&namespace=team-a&sort=desired`, names: ['a-train', 'c-wait'] },
  { what: 'a CEL syntax error filters nothing', query: `cel=${encodeURIComponent('gpus.allocated >=')}`, names: ['a-train', 'b-serve', 'c-wait', 'd-cpu'], celError: true },
  { what: 'an unreadable bound', query: 'minGpus=-3&maxGpus=abc', names: ['a-train', 'b-serve', 'c-wait', 'd-cpu'], problems: ['minGpus', 'maxGpus'] },
  { what: 'an unreadable utilization bound', query: 'minUtil=150&maxUtil=x', names: ['a-train', 'b-serve', 'c-wait', 'd-cpu'], problems: ['minUtil', 'maxUtil'] },
  { what: 'an unknown sort, order, field and preset', query: 'sort=bogus&order=sideways&gpuField=x&preset=nope', names: ['a-train', 'b-serve', 'c-wait', 'd-cpu'], problems: ['sort', 'order', 'gpuField', 'preset'] },
];
