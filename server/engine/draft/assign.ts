/**
 * Which source each live pod was made from, on the evidence the objects carry: labels the spec puts on
 * pods, label values that name a source (a map key, an entry's name, a field name: `ray.io/node-type:
 * head` ↔ `headGroupSpec`), and containers (names and images). Evidence shared by every source says
 * nothing and is not counted. A pod with no evidence, or as much for two sources, is left unassigned:
 * the draft must not pretend to know.
 */
import { isObj } from './paths.ts';
import type { PodSource } from './sources.ts';
import type { KubeObject } from '../k8s.ts';

export interface Assignment {
  /** Per pod (same order as given), the index of its source, or -1. */
  source: number[];
  /** Per pod, the scores it got against each source (for notes on ties). */
  scores: number[][];
}

function labelsOf(o: KubeObject): Record<string, string> {
  const l = o.metadata?.labels;
  return isObj(l) ? (l as Record<string, string>) : {};
}

function podContainers(pod: KubeObject): Array<{ name?: string; image?: string }> {
  const spec = isObj(pod.spec) ? pod.spec : {};
  const list = Array.isArray(spec.containers) ? spec.containers : [];
  return list.filter(isObj).map((c) => ({ name: typeof c.name === 'string' ? c.name : undefined, image: typeof c.image === 'string' ? c.image : undefined }));
}

/** How strongly a label value names a word of the spec: equal 4; a dash-separated part of it 2; a word's prefix 2. */
function nameStrength(value: string, token: string): number {
  const v = value.toLowerCase();
  const t = token.toLowerCase();
  if (v.length < 2 || t.length < 2) return 0;
  if (v === t) return 4;
  if (v.endsWith(`-${t}`) || v.startsWith(`${t}-`) || v.includes(`-${t}-`)) return 2;
  if (v.length >= 4 && t.startsWith(v)) return 2;
  return 0;
}

export function assignPods(sources: readonly PodSource[], pods: readonly KubeObject[]): Assignment {
  // Words and label pairs that every source has tell none apart.
  const tokenCount = new Map<string, number>();
  for (const s of sources) for (const t of new Set(s.tokens.map((x) => x.toLowerCase()))) tokenCount.set(t, (tokenCount.get(t) ?? 0) + 1);
  const pairCount = new Map<string, number>();
  for (const s of sources) for (const [k, v] of Object.entries(s.labels)) pairCount.set(`${k}=${v}`, (pairCount.get(`${k}=${v}`) ?? 0) + 1);
  const n = sources.length;

  const scores = pods.map((pod) => {
    const labels = labelsOf(pod);
    const values = Object.values(labels).filter((v) => typeof v === 'string');
    const containers = podContainers(pod);
    return sources.map((s) => {
      let score = 0;
      for (const [k, v] of Object.entries(s.labels)) {
        if (n > 1 && pairCount.get(`${k}=${v}`) === n) continue;
        if (labels[k] === v) score += 3;
        else if (labels[k] !== undefined) score -= 3;
      }
      for (const t of new Set(s.tokens.map((x) => x.toLowerCase()))) {
        if (n > 1 && tokenCount.get(t) === n) continue;
        let best = 0;
        for (const v of values) best = Math.max(best, nameStrength(v, t));
        score += best;
      }
      score += containerScore(s.containers, containers);
      return score;
    });
  });

  const source = scores.map((row) => {
    if (n === 1) return row[0] >= 0 ? 0 : -1;
    let best = -1;
    let bestScore = 0;
    let tie = false;
    row.forEach((x, i) => {
      if (x > bestScore) {
        best = i;
        bestScore = x;
        tie = false;
      } else if (x === bestScore && x > 0) tie = true;
    });
    return tie ? -1 : best;
  });
  return { source, scores };
}

/** Containers agree: +1 for the same names, +1 for the same images; names that share nothing: −2. */
function containerScore(spec: ReadonlyArray<{ name?: string; image?: string }>, pod: ReadonlyArray<{ name?: string; image?: string }>): number {
  if (spec.length === 0 || pod.length === 0) return 0;
  let score = 0;
  const specNames = spec.map((c) => c.name).filter((x): x is string => !!x);
  const podNames = new Set(pod.map((c) => c.name).filter((x): x is string => !!x));
  if (specNames.length > 0) {
    if (specNames.every((x) => podNames.has(x))) score += 1;
    else if (!specNames.some((x) => podNames.has(x))) score -= 2;
  }
  const specImages = spec.map((c) => c.image).filter((x): x is string => !!x);
  const podImages = new Set(pod.map((c) => c.image).filter((x): x is string => !!x));
  if (specImages.length > 0) {
    if (specImages.every((x) => podImages.has(x))) score += 1;
    else if (!specImages.some((x) => podImages.has(x))) score -= 2;
  }
  return score;
}
