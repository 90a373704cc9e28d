/** Label and field selectors with the grammar and matching rules of apimachinery (pure). */

export type LabelOp = 'eq' | 'neq' | 'in' | 'notin' | 'exists' | 'notexists' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  op: LabelOp;
  values: string[];
}

export class SelectorError extends Error {}

const KEY_RE = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const VALUE_RE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Parses `a=b,c!=d,e in (f,g),!h,i` into requirements (AND). Throws SelectorError like the real parser. */
export function parseLabelSelector(input: string): LabelRequirement[] {
  const s = input;
  let i = 0;
  const reqs: LabelRequirement[] = [];
  const ws = () => {
    while (i < s.length && /\s/.test(s[i])) i++;
  };
  const ident = (): string => {
    ws();
    const start = i;
    while (i < s.length && !/[\s,=!()<>]/.test(s[i])) i++;
    return s.slice(start, i);
  };
  const checkKey = (k: string) => {
    if (!k || !KEY_RE.test(k) || k.length > 316) throw new SelectorError(`unable to parse requirement: invalid label key "${k}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`);
  };
  const checkValue = (v: string) => {
    if (v.length > 63 || !VALUE_RE.test(v)) throw new SelectorError(`unable to parse requirement: invalid label value: "${v}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`);
  };
  ws();
  if (i >= s.length) return reqs;
  for (;;) {
    ws();
    if (s[i] === '!') {
      i++;
      const key = ident();
      checkKey(key);
      reqs.push({ key, op: 'notexists', values: [] });
    } else {
      const key = ident();
      checkKey(key);
      ws();
      const rest = s.slice(i);
      let op: LabelOp | undefined;
      if (rest.startsWith('==')) { op = 'eq'; i += 2; }
      else if (rest.startsWith('!=')) { op = 'neq'; i += 2; }
      else if (rest.startsWith('=')) { op = 'eq'; i += 1; }
      else if (rest.startsWith('>')) { op = 'gt'; i += 1; }
      else if (rest.startsWith('<')) { op = 'lt'; i += 1; }
      else if (/^notin[\s(]/.test(rest)) { op = 'notin'; i += 5; }
      else if (/^in[\s(]/.test(rest)) { op = 'in'; i += 2; }
      if (!op) {
        if (i < s.length && s[i] !== ',') throw new SelectorError(`unable to parse requirement: found '${s[i]}', expected: in, notin, =, ==, !=, gt, lt`);
        reqs.push({ key, op: 'exists', values: [] });
      } else if (op === 'in' || op === 'notin') {
        ws();
        if (s[i] !== '(') throw new SelectorError(`found '${s[i] ?? ''}', expected: '('`);
        i++;
        const values: string[] = [];
        for (;;) {
          const v = ident();
          checkValue(v);
          values.push(v);
          ws();
          if (s[i] === ',') { i++; continue; }
          if (s[i] === ')') { i++; break; }
          throw new SelectorError(`found '${s[i] ?? ''}', expected: ',', or ')'`);
        }
        reqs.push({ key, op, values });
      } else {
        const v = ident();
        if (op === 'gt' || op === 'lt') {
          if (!/^-?\d+$/.test(v)) throw new SelectorError(`unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer`);
        } else checkValue(v);
        reqs.push({ key, op, values: [v] });
      }
    }
    ws();
    if (i >= s.length) break;
    if (s[i] !== ',') throw new SelectorError(`found '${s[i]}', expected: ',' or 'end of string'`);
    i++;
  }
  return reqs;
}

/** `!=` and `notin` also match objects that lack the key, as in apimachinery. */
export function matchLabels(reqs: LabelRequirement[], labels: Record<string, string> | undefined): boolean {
  for (const r of reqs) {
    const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
    const v = has ? labels![r.key] : undefined;
    switch (r.op) {
      case 'eq':
      case 'in':
        if (!has || !r.values.includes(v!)) return false;
        break;
      case 'neq':
      case 'notin':
        if (has && r.values.includes(v!)) return false;
        break;
      case 'exists':
        if (!has) return false;
        break;
      case 'notexists':
        if (has) return false;
        break;
      case 'gt':
      case 'lt': {
        if (!has || !/^-?\d+$/.test(v!)) return false;
        const n = Number(v);
        const want = Number(r.values[0]);
        if (r.op === 'gt' ? !(n > want) : !(n < want)) return false;
        break;
      }
    }
  }
  return true;
}

/** Equality requirements that an index can serve (the rest is checked per object). */
export function equalityLabels(reqs: LabelRequirement[]): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  let any = false;
  for (const r of reqs) {
    if (r.op === 'eq' || (r.op === 'in' && r.values.length === 1)) {
      out[r.key] = r.values[0];
      any = true;
    }
  }
  return any ? out : undefined;
}

export interface FieldRequirement {
  field: string;
  op: 'eq' | 'neq';
  value: string;
}

/** Parses `a=b,c!=d` with `\,` `\=` `\\` escapes. */
export function parseFieldSelector(input: string): FieldRequirement[] {
  const reqs: FieldRequirement[] = [];
  if (input.trim() === '') return reqs;
  const terms: string[] = [];
  let cur = '';
  for (let i = 0; i < input.length; i++) {
    const c = input[i];
    if (c === '\\' && i + 1 < input.length) {
      cur += c + input[++i];
    } else if (c === ',') {
      terms.push(cur);
      cur = '';
    } else cur += c;
  }
  terms.push(cur);
  for (const term of terms) {
    const m = /^((?:[^=!\\]|\\.)*?)\s*(==|!=|=)\s*(.*)$/.exec(term);
    if (!m || m[1].trim() === '') throw new SelectorError(`invalid selector: '${input}'; can't understand '${term}'`);
    reqs.push({ field: m[1].trim(), op: m[2] === '!=' ? 'neq' : 'eq', value: m[3].replace(/\\(.)/g, '$1') });
  }
  return reqs;
}

export function matchFields(reqs: FieldRequirement[], value: (field: string) => string): boolean {
  for (const r of reqs) {
    const v = value(r.field);
    if (r.op === 'eq' ? v !== r.value : v === r.value) return false;
  }
  return true;
}
