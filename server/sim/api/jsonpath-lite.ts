/**
 * The JSONPath subset that CRD `additionalPrinterColumns` and `selectableFields` use
 * (`.a.b`, `.a[0]`, `.a[-1:]`, `.a[*].b`, `.a[?(@.type=="Ready")].status`, escaped dots in keys).
 * Pure; no script evaluation. Missing keys yield no results, as with AllowMissingKeys.
 */

type Step =
  | { t: 'key'; key: string }
  | { t: 'index'; index: number }
  | { t: 'slice'; start?: number; end?: number }
  | { t: 'all' }
  | { t: 'filter'; path: string[]; op: '==' | '!=' | 'exists'; value?: string | number | boolean };

const cache = new Map<string, Step[]>();

function parse(path: string): Step[] {
  const cached = cache.get(path);
  if (cached) return cached;
  let s = path.trim();
  if (s.startsWith('{') && s.endsWith('}')) s = s.slice(1, -1);
  if (s.startsWith('$')) s = s.slice(1);
  const steps: Step[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === '.') {
      i++;
      let key = '';
      while (i < s.length && s[i] !== '.' && s[i] !== '[') {
        if (s[i] === '\\' && i + 1 < s.length) {
          key += s[i + 1];
          i += 2;
        } else key += s[i++];
      }
      if (key === '*') steps.push({ t: 'all' });
      else if (key) steps.push({ t: 'key', key });
    } else if (c === '[') {
      const end = s.indexOf(']', i);
      if (end < 0) throw new Error(`unterminated [ in ${path}`);
      const inner = s.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === '*') steps.push({ t: 'all' });
      else if (/^-?\d+$/.test(inner)) steps.push({ t: 'index', index: Number(inner) });
      else if (/^-?\d*:-?\d*$/.test(inner)) {
        const [a, b] = inner.split(':');
        steps.push({ t: 'slice', start: a === '' ? undefined : Number(a), end: b === '' ? undefined : Number(b) });
      } else if (/^['"].*['"]$/.test(inner)) steps.push({ t: 'key', key: inner.slice(1, -1).replace(/\\(.)/g, '$1') });
      else if (inner.startsWith('?(')) {
        const expr = inner.slice(2, inner.endsWith(')') ? -1 : undefined).trim();
        const m = /^@((?:\.[A-Za-z0-9_\-/]+)+)\s*(?:(==|!=)\s*(.+))?$/.exec(expr);
        if (!m) throw new Error(`unsupported filter ${inner} in ${path}`);
        const fpath = m[1].slice(1).split('.');
        let value: string | number | boolean | undefined;
        if (m[3] !== undefined) {
          const raw = m[3].trim();
          if (/^['"].*['"]$/.test(raw)) value = raw.slice(1, -1);
          else if (raw === 'true' || raw === 'false') value = raw === 'true';
          else value = Number(raw);
        }
        steps.push({ t: 'filter', path: fpath, op: (m[2] as '==' | '!=' | undefined) ?? 'exists', value });
      } else throw new Error(`unsupported subscript [${inner}] in ${path}`);
    } else if (/\s/.test(c)) i++;
    else {
      // A leading key without a dot (`metadata.name`).
      let key = '';
      while (i < s.length && s[i] !== '.' && s[i] !== '[') key += s[i++];
      steps.push({ t: 'key', key });
    }
  }
  cache.set(path, steps);
  return steps;
}

function child(v: unknown, key: string): unknown {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>)[key] : undefined;
}

/** All values the path selects. Throws on syntax this subset does not know. */
export function evaluateJsonPath(obj: unknown, path: string): unknown[] {
  let cur: unknown[] = [obj];
  for (const st of parse(path)) {
    const next: unknown[] = [];
    for (const v of cur) {
      switch (st.t) {
        case 'key': {
          const c = child(v, st.key);
          if (c !== undefined) next.push(c);
          break;
        }
        case 'index':
          if (Array.isArray(v)) {
            const idx = st.index < 0 ? v.length + st.index : st.index;
            if (idx >= 0 && idx < v.length) next.push(v[idx]);
          }
          break;
        case 'slice':
          if (Array.isArray(v)) {
            const norm = (n: number | undefined, d: number) => (n === undefined ? d : n < 0 ? Math.max(0, v.length + n) : Math.min(n, v.length));
            next.push(...v.slice(norm(st.start, 0), norm(st.end, v.length)));
          }
          break;
        case 'all':
          if (Array.isArray(v)) next.push(...v);
          else if (typeof v === 'object' && v !== null) next.push(...Object.values(v));
          break;
        case 'filter':
          if (Array.isArray(v)) {
            for (const item of v) {
              let x: unknown = item;
              for (const k of st.path) x = child(x, k);
              if (st.op === 'exists' ? x !== undefined : st.op === '==' ? x === st.value : x !== st.value) next.push(item);
            }
          }
          break;
      }
    }
    cur = next;
  }
  return cur;
}
