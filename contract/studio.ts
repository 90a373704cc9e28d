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
