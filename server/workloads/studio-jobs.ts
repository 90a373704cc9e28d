/**
 * The studio's jobs, run in a worker pool with time and memory limits (server/auth/validation.ts
 * startJobRunner) because their input is a client's definition text, or a whole workload: a draft
 * proposed from a live workload, and a trial of a definition on live objects. Pure over the objects
 * the route gathered from the index; nothing here reaches a cluster.
 */
import type { DraftAnswer, TrialAnswer, TrialObjectResult } from '../../contract/index.ts';
import { draftDefinition, type KubeObject } from '../engine/index.ts';
import { trialDefinition } from './definition-trial.ts';

export interface DraftJob {
  kind: 'draft';
  root: KubeObject;
  owned: KubeObject[];
}

export interface TrialJob {
  kind: 'trial';
  text: string;
  gpuResources?: string[];
  targets: Array<{ row: TrialObjectResult['row']; root: KubeObject; owned: KubeObject[] }>;
}

export type StudioJob = DraftJob | TrialJob;

function trial(job: TrialJob): TrialAnswer {
  const results: TrialObjectResult[] = [];
  let errors: TrialAnswer['errors'] = [];
  for (const t of job.targets) {
    const r = trialDefinition(job.text, t.root, t.owned, { gpuResources: job.gpuResources, cluster: t.row.cluster, origin: 'studio' });
    errors = r.definitionErrors;
    results.push({ row: t.row, tree: r.tree, raw: r.raw, differences: r.differences.filter((d) => d.code !== 'definition') });
  }
  const w = results.find((r) => r.tree)?.tree?.workload;
  const [group, version] = w ? (w.apiVersion.includes('/') ? w.apiVersion.split('/') : ['', w.apiVersion]) : ['', ''];
  return { valid: errors.length === 0, errors, rootKind: w ? { group, version, kind: w.kind } : null, results };
}

export function runStudioJob(job: StudioJob): DraftAnswer | TrialAnswer {
  if (job.kind === 'trial') return trial(job);
  const d = draftDefinition(job.root, job.owned);
  return { yaml: d.yaml, guesses: d.guesses, notes: d.notes };
}
