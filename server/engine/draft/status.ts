/**
 * The root's status mapping from what its status holds: the conditions present (when their types are
 * words of the common vocabulary: Ready, Running, Available, Succeeded, Complete, Failed, Suspended), a
 * phase-like string field (`phase`, `state`, `jobStatus` …) with the observed value and its usual
 * siblings, and a `suspend` boolean in the spec (suspended when true, and the suspend/resume actions).
 */
import type { StatusDefinition, StatusMappingKey, StatusMatcher, SuspendDefinition } from '../definition/types.ts';
import { isObj, jqPath, type Step } from './paths.ts';

export interface StatusDraft {
  statusDefinition: StatusDefinition;
  suspendDefinition?: SuspendDefinition;
  guesses: Array<{ path: string; why: string }>;
  notes: string[];
}

/** Condition types whose meaning is plain, and the status they mean when True. */
const CONDITION_MEANING: Array<[RegExp, StatusMappingKey]> = [
  [/^(Ready|Running|Available)$/, 'running'],
  [/^(Succeeded|Complete|Completed)$/, 'completed'],
  [/^Failed$/, 'failed'],
  [/^(Suspended|Stopped)$/, 'suspended'],
];

/** Phase values by meaning (lowercase); the observed value's spelling decides how the siblings are written. */
const PHASE_WORDS: Record<StatusMappingKey, string[]> = {
  running: ['running', 'ready', 'healthy', 'successful', 'available', 'active'],
  completed: ['succeeded', 'completed', 'complete', 'finished'],
  failed: ['failed', 'error'],
  initializing: ['pending', 'initializing', 'creating', 'starting', 'provisioning', 'notready', 'not_ready'],
  degraded: ['degraded', 'unhealthy'],
  suspended: ['suspended', 'stopped', 'paused'],
  suspending: [],
  resuming: [],
};

/** Phase-like fields of `status`, most conventional first. */
const PHASE_FIELDS = ['phase', 'state', 'status', 'jobDeploymentStatus', 'jobStatus', 'serviceStatus'];

function spellLike(sample: string, word: string): string {
  if (sample === sample.toUpperCase()) return word.toUpperCase();
  if (sample[0] === sample[0].toUpperCase()) return word[0].toUpperCase() + word.slice(1);
  return word;
}

function meaningOf(value: string): StatusMappingKey | null {
  const v = value.toLowerCase().replace(/[\s-]/g, '');
  for (const [k, words] of Object.entries(PHASE_WORDS) as Array<[StatusMappingKey, string[]]>) if (words.includes(v)) return k;
  return null;
}

/** `spec.…suspend: <boolean>` outside any pod description, nearest the top first. */
export function findSuspend(spec: unknown, skip: (steps: Step[]) => boolean): Step[] | null {
  let found: Step[] | null = null;
  const walk = (v: unknown, steps: Step[]) => {
    if (found || !isObj(v) || skip(steps)) return;
    if (typeof v.suspend === 'boolean') {
      found = [...steps, { key: 'suspend' }];
      return;
    }
    for (const [k, x] of Object.entries(v)) if (isObj(x)) walk(x, [...steps, { key: k }]);
  };
  walk(spec, [{ key: 'spec' }]);
  return found;
}

export function draftStatus(root: Record<string, unknown>, suspendAt: Step[] | null, base: string): StatusDraft {
  const status = isObj(root.status) ? root.status : {};
  const guesses: StatusDraft['guesses'] = [];
  const notes: string[] = [];
  const mappings: Partial<Record<StatusMappingKey, StatusMatcher[]>> = {};
  const add = (k: StatusMappingKey, m: StatusMatcher) => (mappings[k] ??= []).push(m);
  const def: StatusDefinition = { statusMappings: mappings };

  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isObj) : [];
  if (conditions.length > 0) {
    // Explicit field names: a definition read from a file gets no API-server defaults (pitfall P-20).
    def.conditionsDefinition = { path: '.status.conditions', typeFieldName: 'type', statusFieldName: 'status', messageFieldName: 'message', reasonFieldName: 'reason' };
    const types = [...new Set(conditions.map((c) => c.type).filter((t): t is string => typeof t === 'string'))];
    const unread: string[] = [];
    for (const t of types) {
      const meaning = CONDITION_MEANING.find(([re]) => re.test(t))?.[1];
      if (!meaning) {
        unread.push(t);
        continue;
      }
      add(meaning, { byConditions: [{ type: t, status: 'True' }] });
      // A readiness condition that is False: not ready yet, which for a workload is initializing.
      if (meaning === 'running') add('initializing', { byConditions: [{ type: t, status: 'False' }] });
    }
    if (unread.length > 0) notes.push(`conditions ${unread.join(', ')} are present but their meaning is not obvious; they are read but mapped to no status`);
    guesses.push({ path: `${base}.statusDefinition.statusMappings`, why: `mapped from the condition types present now (${types.join(', ') || 'none'}); conditions the operator sets only in other states are not known` });
  }

  const phaseField = PHASE_FIELDS.find((f) => typeof status[f] === 'string' && status[f] !== '');
  if (phaseField) {
    const observed = status[phaseField] as string;
    def.phaseDefinition = { path: jqPath([{ key: 'status' }, { key: phaseField }]) };
    const meaning = meaningOf(observed);
    if (meaning) {
      for (const [k, words] of Object.entries(PHASE_WORDS) as Array<[StatusMappingKey, string[]]>) {
        const spelled = new Set(words.slice(0, 2).map((w) => spellLike(observed, w)));
        if (k === meaning) spelled.add(observed);
        for (const v of spelled) add(k, { byPhase: v });
      }
      guesses.push({ path: `${base}.statusDefinition.phaseDefinition`, why: `status.${phaseField} is "${observed}" (${meaning}); the other values mapped are the usual words spelled alike, not seen` });
    } else {
      notes.push(`status.${phaseField} is "${observed}", which names no status of the vocabulary: the phase is read but mapped to nothing`);
    }
  }

  if (suspendAt) {
    const path = jqPath(suspendAt);
    if (!mappings.suspended) add('suspended', { byExpression: { expression: `${path} == true`, expectedResult: 'true' } });
    guesses.push({ path: `${base}.suspendDefinition`, why: `${path} is a boolean in the spec: suspended when true, resumed when false` });
    return { statusDefinition: def, suspendDefinition: { suspendActions: [{ path, value: 'true' }], resumeActions: [{ path, value: 'false' }] }, guesses, notes };
  }
  if (Object.keys(mappings).length === 0) notes.push('the status holds no conditions and no phase: every state is Undefined until a mapping is written');
  return { statusDefinition: def, guesses, notes };
}
