/**
 * The definition studio: a draft proposed from a live workload, and a trial of a definition text
 * against live objects — the workload tree it gives next to kubectl's raw view, with every
 * difference called out.
 */
import type { EngineError, WorkloadTree } from './tree.ts';

export interface DraftAnswer {
  yaml: string;
  /** Choices the draft is unsure of: the field path and why. */
  guesses: Array<{ path: string; why: string }>;
  notes: string[];
}

export interface TrialDifference {
  /** `unclaimed-pod`, `empty-role`, `replicas`, `gpus`, … (stable codes). */
  code: string;
  message: string;
}

export interface RawPod {
  name: string;
  phase: string;
  node: string | null;
  /** The pod's controller (kind/name). */
  owner: string | null;
  /** GPU requests from the pod's own spec, by resource. */
  gpus: Record<string, number>;
}

export interface TrialObjectResult {
  row: { id: string; cluster: string; namespace: string; apiVersion: string; kind: string; name: string };
  /** The tree with the trial definition (null when the definition could not be compiled). */
  tree: WorkloadTree | null;
  /** kubectl's view: what the root owns and every pod with its GPU requests, independent of the definition. */
  raw: { owned: Array<{ kind: string; name: string; owner: string | null }>; pods: RawPod[]; gpus: { requested: Record<string, number>; allocated: Record<string, number> } };
  differences: TrialDifference[];
}

export interface TrialAnswer {
  valid: boolean;
  /** The definition's own errors (field paths). */
  errors: EngineError[];
  /** The root kind the definition describes, when it could be read. */
  rootKind: { group: string; version: string; kind: string } | null;
  results: TrialObjectResult[];
}

/** A cluster's Karta CRD as the studio sees it (`missing`, `older`, `different`, `current`, `unknown`). */
export interface CrdView {
  state: 'missing' | 'older' | 'different' | 'current' | 'unknown';
  servedVersions: string[];
  summary: string;
}

/** What a cluster has: its CRD, its definitions (with the one that wins per root kind), label mismatches. */
export interface RegistryView {
  cluster: string;
  crd: CrdView;
  definitions: Array<{ name: string; source: 'catalog' | 'cluster'; kind: string; root: string; state: 'serves' | 'shadowed' | 'invalid'; shadowedBy: string | null; overrides: string[]; labels: string | null }>;
  labelMismatches: Array<{ name: string; message: string }>;
  problems: string[];
  /** What you may do here (self access reviews): register Kartas, install the CRD. */
  may: { register: { allowed: boolean; reason: string }; installCrd: { allowed: boolean; reason: string } };
}

export type RegisterResult = 'planned' | 'dry-run' | 'applied' | 'unchanged' | 'conflict' | 'refused' | 'invalid' | 'disabled';

/** The answer of a registration's preview or write. */
export interface RegisterAnswerView {
  crd: CrdView;
  /** The CRD's install, when one was needed and asked for. */
  crdInstall: { summary: string; diff: string; result: string; message: string } | null;
  plan: { action: 'create' | 'update'; name: string; summary: string; diff: string; resourceVersion: string; errors: Array<{ code: string; message: string; path: string }>; warnings: string[] } | null;
  result: RegisterResult;
  message: string;
  notes: string[];
}
