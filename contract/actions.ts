/**
 * Acting on a workload from the dashboard: what is offered (and why not), a plan's preview, and the
 * outcome of a write. The action specs themselves are the server's `ActionSpec` (same JSON).
 */

export type ActionName = 'suspend' | 'resume' | 'labels' | 'annotations' | 'image' | 'env' | 'resources' | 'delete';

export type ActionSpecJson =
  | { action: 'suspend' | 'resume' }
  | { action: 'labels' | 'annotations'; role?: string; set: Record<string, string | null> }
  | { action: 'image'; role: string; container: string; image: string }
  | { action: 'env'; role: string; container: string; set: Record<string, string | null> }
  | { action: 'resources'; role: string; container: string; requests?: Record<string, string | null>; limits?: Record<string, string | null> }
  | { action: 'delete'; propagation: 'Foreground' | 'Background' | 'Orphan' };

export interface OfferedAction {
  action: ActionName;
  /** False: the button is shown disabled with `reason`. */
  available: boolean;
  reason: string | null;
}

export interface ActionsOffer {
  /** Who would act (the user's name as the cluster knows it). */
  user: string;
  writes: { enabled: boolean; reason: string | null };
  /** The root's resourceVersion the offer was made from. */
  resourceVersion: string;
  actions: OfferedAction[];
  /** Roles with pod templates and their containers (for image, env, resources, labels). */
  roles: Array<{ name: string; containers: Array<{ name: string; init: boolean }> }>;
}

export interface PlanView {
  summary: string;
  /** Unified diff of the root object (YAML). */
  diff: string;
  /** The JSON patch (first operation: the resourceVersion test), empty for a delete. */
  patch: unknown[];
  delete: { propagationPolicy: string; resourceVersion: string; dependents: Array<{ kind: string; count: number }> } | null;
  noChange: boolean;
  errors: Array<{ code: string; message: string; path?: string }>;
  /** The resourceVersion planned from: sent back with the write. */
  resourceVersion: string;
  /** A digest of the root without its status and bookkeeping: sent back with the write, so that a status update alone is no conflict. */
  fingerprint: string;
}

export type ActionResult = 'planned' | 'dry-run' | 'applied' | 'unchanged' | 'conflict' | 'refused' | 'invalid' | 'forbidden' | 'disabled';

export interface ActionAnswer {
  plan: PlanView | null;
  result: ActionResult;
  message: string;
  /** What the API server made of it (the server dry run's or the write's answer), as a diff. */
  diff: string;
}

export interface AuditItem {
  at: string;
  who: string;
  via: string;
  cluster: string;
  action: string;
  object: { apiVersion: string; kind: string; namespace: string; name: string };
  summary: string;
  dryRun: string;
  result: string;
  message: string;
}
