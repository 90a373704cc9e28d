/**
 * The HTTP API's payloads (`app/api/**`): what the server sends and the dashboard reads. Types only.
 * Errors are always `ApiErrorBody`; cluster credentials never appear in any of these.
 */
import type { WorkloadRow } from './row.ts';
import type { EngineError, WorkloadTree } from './tree.ts';
import type { WorkloadUsage } from './usage.ts';

export interface ApiErrorBody {
  error: { code: string; message: string };
}

/** `GET /api/workloads`: the rows that pass the query, sorted, one page of them. */
export interface WorkloadPage {
  /** Rows that pass the filters (before paging). */
  total: number;
  rows: WorkloadRow[];
  /** GPUs and pods summed over every row that passes the filters (not only this page). */
  totals: RowTotals;
}

export interface RowTotals {
  workloads: number;
  allocated: number;
  requested: number;
  /** Summed over the rows whose desired GPUs are known. */
  desired: number;
  /** Rows whose figure is unknown (see the row's `gpus.unknown`), left out of that sum. */
  allocatedUnknown: number;
  requestedUnknown: number;
  desiredUnknown: number;
  podsReady: number;
  podsTotal: number;
  /** Rows whose pods cannot be read, left out of the pod counts. */
  podsUnknown: number;
  /** GPUs' worth in use (Σ utilization × worth) over the rows' measured GPUs; null when none has readings. */
  used: number | null;
  /** Devices' worth with readings (what `used` is out of). */
  measured: number;
  /** Devices' worth idle over the rows whose idle state is known; null when none is. */
  idle: number | null;
}

/** `GET /api/workloads/{cluster}/{namespace}/{kind}/{name}` */
export interface WorkloadDetail {
  row: WorkloadRow;
  tree: WorkloadTree;
  /** The root object as the cluster holds it (trimmed to what the engine reads). */
  object: unknown;
  definition: { name: string; source: string; yaml: string };
  /**
   * The root and everything it validly owns, as the cluster holds it: each object with the uid of
   * its owner in this list (null for the root), pods with their phase, node and GPUs. The raw
   * ownership tree, and for a workload without a definition the starting point for writing one.
   * At most `OWNED_LIMIT` objects; `ownedTruncated` says how many more there are.
   */
  owned: OwnedObject[];
  ownedTruncated: number;
  /** GPU utilization per workload, role, instance and pod; null when the workload holds no allocated GPUs. */
  usage: WorkloadUsage | null;
}

export interface OwnedObject {
  uid: string;
  owner: string | null;
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  pod: { phase: string; node: string | null; gpus: number; allocated: boolean } | null;
}

export interface DefinitionComponent {
  name: string;
  parent: string | null;
  kind: string;
  hasPodDefinition: boolean;
}

/** One entry of `GET /api/definitions`. */
export interface DefinitionItem {
  name: string;
  source: 'catalog' | 'cluster';
  cluster: string | null;
  kind: string;
  apiVersion: string;
  valid: boolean;
  errors: EngineError[];
  /** How many rows this definition serves (per cluster for cluster definitions). */
  workloads: number;
  components: DefinitionComponent[];
  /**
   * `valid` serves with no problem; `invalid` cannot be loaded (see `errors`); `failing` errors on
   * some live workloads (or does not fit them, so another definition serves them); `quarantined`
   * exceeded its evaluation limits and is not evaluated; `shadowed` is valid but another definition
   * serves the same kind and version (see `shadowedBy`). `valid` (the boolean) is true only for `valid`
   * and `shadowed`.
   */
  status: 'valid' | 'invalid' | 'failing' | 'quarantined' | 'shadowed';
  /** The definitions that win over this one, per cluster (precedence in README "Definitions"). */
  shadowedBy: Array<{ cluster: string; name: string; source: string }>;
  /** Live workloads on which it currently fails, with one example. */
  failing: { workloads: number; example: { code: string; message: string } | null };
  /** Clusters in which it is quarantined, and why. */
  quarantined: Array<{ cluster: string; reason: string; since: string }>;
}

/** `GET /api/definitions/{name}` */
export interface DefinitionDetail extends DefinitionItem {
  yaml: string;
}

/** `POST /api/definitions/validate` */
export interface ValidateResult {
  valid: boolean;
  definitions: DefinitionItem[];
  errors: EngineError[];
}
