/**
 * kubectl's selectors, matched on our side (the workload's root object carries the labels; the
 * lists are of many kinds, so the API server cannot filter them for us). Pure.
 * - Label selectors (`-l`): `key=value`, `key==value`, `key!=value`, `key in (a,b)`, `key notin (a,b)`,
 *   `key`, `!key`, comma-separated, all of them must hold. As in Kubernetes, `!=` and `notin` also
 *   match objects without the key.
 * - Field selectors (`--field-selector`): `field=value`, `field==value`, `field!=value` over the
 *   fields a caller supports; any other field is an error naming the supported ones.
 */
import { labelValueProblem, qualifiedNameProblem } from '../engine/index.ts';

export type Requirement =
  | { key: string; op: 'exists' | 'absent' }
  | { key: string; op: 'in' | 'notin'; values: string[] };

export class SelectorError extends Error {}

/** Splits at commas outside parentheses. */
function terms(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of s) {
    if (c === '(') depth++;
    if (c === ')') depth--;
    if (c === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out.map((t) => t.trim()).filter((t) => t !== '');
}

function checkKey(key: string, selector: string): string {
  const problem = qualifiedNameProblem(key);
  if (problem) throw new SelectorError(`unable to parse requirement: invalid label key "${key}": ${problem} (in "${selector}")`);
  return key;
}

function checkValue(v: string, selector: string): string {
  const problem = labelValueProblem(v);
  if (problem) throw new SelectorError(`unable to parse requirement: invalid label value "${v}": ${problem} (in "${selector}")`);
  return v;
}

export function parseLabelSelector(selector: string): Requirement[] {
  const out: Requirement[] = [];
  for (const t of terms(selector)) {
    let m: RegExpExecArray | null;
    if ((m = /^!\s*([^\s=!(),]+)$/.exec(t))) out.push({ key: checkKey(m[1], selector), op: 'absent' });
    else if ((m = /^([^\s=!(),]+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(t))) {
      const values = m[3].split(',').map((v) => v.trim()).filter((v) => v !== '');
      if (values.length === 0) throw new SelectorError(`unable to parse requirement: for 'in', 'notin' operators, values set can't be empty (in "${selector}")`);
      out.push({ key: checkKey(m[1], selector), op: m[2] as 'in' | 'notin', values: values.map((v) => checkValue(v, selector)) });
    } else if ((m = /^([^\s=!(),]+)\s*(==|=|!=)\s*([^\s=!(),]*)$/.exec(t))) {
      out.push({ key: checkKey(m[1], selector), op: m[2] === '!=' ? 'notin' : 'in', values: [checkValue(m[3], selector)] });
    } else if ((m = /^([^\s=!(),]+)$/.exec(t))) out.push({ key: checkKey(m[1], selector), op: 'exists' });
    else throw new SelectorError(`unable to parse requirement: "${t}" (in "${selector}")`);
  }
  return out;
}

export function labelsMatch(reqs: readonly Requirement[], labels: Readonly<Record<string, string>> | undefined): boolean {
  const l = labels ?? {};
  return reqs.every((r) => {
    const has = Object.prototype.hasOwnProperty.call(l, r.key);
    switch (r.op) {
      case 'exists': return has;
      case 'absent': return !has;
      case 'in': return has && r.values.includes(l[r.key]);
      case 'notin': return !has || !r.values.includes(l[r.key]);
    }
  });
}

export interface FieldRequirement {
  field: string;
  value: string;
  negated: boolean;
}

/** `--field-selector`; `fields` are the supported field names. */
export function parseFieldSelector(selector: string, fields: readonly string[]): FieldRequirement[] {
  const out: FieldRequirement[] = [];
  for (const t of terms(selector)) {
    const m = /^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/.exec(t);
    if (!m) throw new SelectorError(`invalid selector: '${selector}'; can't understand '${t}'`);
    if (!fields.includes(m[1])) throw new SelectorError(`field label not supported: ${m[1]} (supported: ${fields.join(', ')})`);
    out.push({ field: m[1], value: m[3].trim(), negated: m[2] === '!=' });
  }
  return out;
}

/** `get(field)` is the object's value of a supported field (compared as strings; phases case-insensitively by the caller). */
export function fieldsMatch(reqs: readonly FieldRequirement[], get: (field: string) => string | null): boolean {
  return reqs.every((r) => ((get(r.field) ?? '') === r.value) !== r.negated);
}
