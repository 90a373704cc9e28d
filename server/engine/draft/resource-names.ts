/**
 * Resource names an operator translates. Some specs name a GPU by a word of their own (`resources.limits.gpu:
 * "1"`) that the operator turns into the extended resource the pods ask for (`nvidia.com/gpu: 1`); read
 * as written, the template would desire no GPUs at all. The translation is learned from the live pods —
 * a bare key of the spec whose amount is the pods' amount of a GPU resource the spec does not name — and
 * written into the resources path as a renaming.
 */
import { isDefaultGpuResource } from '../gpu.ts';
import type { KubeObject } from '../k8s.ts';
import { parseQuantity } from '../quantity.ts';
import { isObj } from './paths.ts';

/** Names Kubernetes gives meaning to: never a translation of a GPU. */
const STANDARD = /^(cpu|memory|ephemeral-storage|storage|pods|hugepages-.*)$/;

function podGpuTotals(pod: KubeObject): Map<string, number> {
  const out = new Map<string, number>();
  const spec = isObj(pod.spec) ? pod.spec : {};
  for (const c of Array.isArray(spec.containers) ? spec.containers : []) {
    if (!isObj(c) || !isObj(c.resources)) continue;
    const req = isObj(c.resources.requests) ? c.resources.requests : {};
    const lim = isObj(c.resources.limits) ? c.resources.limits : {};
    for (const name of new Set([...Object.keys(req), ...Object.keys(lim)])) {
      if (!isDefaultGpuResource(name)) continue;
      const n = parseQuantity(req[name] ?? lim[name]);
      if (n !== null) out.set(name, (out.get(name) ?? 0) + n);
    }
  }
  return out;
}

/** Spec key → pod resource, agreed on by every source that has pods; empty when nothing needs renaming. */
export function learnResourceNames(resources: readonly unknown[], podsBySource: ReadonlyArray<readonly KubeObject[]>): Map<string, string> {
  const found = new Map<string, string>();
  for (let i = 0; i < resources.length; i++) {
    const r = resources[i];
    const pod = podsBySource[i]?.[0];
    if (!pod || !isObj(r)) continue;
    const spec = { ...(isObj(r.requests) ? r.requests : {}), ...(isObj(r.limits) ? r.limits : {}) };
    for (const [gpu, amount] of podGpuTotals(pod)) {
      if (spec[gpu] !== undefined) continue;
      const key = Object.keys(spec).find((k) => !k.includes('/') && !STANDARD.test(k) && parseQuantity(spec[k]) === amount);
      if (!key) continue;
      if (found.has(key) && found.get(key) !== gpu) return new Map();
      found.set(key, gpu);
    }
  }
  return found;
}

/** `<path> | <renaming>`: requests and limits with the spec's keys replaced by the pods' resource names. */
export function renamedResources(path: string, names: ReadonlyMap<string, string>): string {
  const cases = [...names].map(([from, to], i) => `${i === 0 ? 'if' : 'elif'} .key == ${JSON.stringify(from)} then ${JSON.stringify(to)}`).join(' ');
  const rename = `with_entries({key: (${cases} else .key end), value: .value})`;
  return `${path} | if type == "object" then map_values(if type == "object" then ${rename} else . end) else . end`;
}
