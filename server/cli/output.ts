/**
 * kubectl's output options for the objects a command prints (rows, workload trees): `-o json|yaml|
 * wide|name|jsonpath=…|custom-columns=…`, `--sort-by`, `--no-headers`. Lists are seen as kubectl
 * sees them: a `v1 List` with `items` for jsonpath, each item for custom-columns. Pure.
 */
import { stringify } from 'yaml';
import { columnPath, evaluatePath, parseTemplate, renderTemplate, TemplateError, valueText, type Template } from './jsonpath.ts';
import { UsageError } from './errors.ts';

export type Output =
  | { kind: 'default' }
  | { kind: 'wide' }
  | { kind: 'json' }
  | { kind: 'yaml' }
  | { kind: 'name' }
  | { kind: 'tree' }
  | { kind: 'jsonpath'; template: Template }
  | { kind: 'custom-columns'; columns: Array<{ header: string; path: string }> };

type FormatName = 'json' | 'yaml' | 'wide' | 'name' | 'jsonpath' | 'custom-columns' | 'tree';

/** Strips one pair of quotes a shell left in (`jsonpath='{.a}'` written inside another quoting). */
function unquoted(s: string): string {
  return /^'.*'$|^".*"$/s.test(s) ? s.slice(1, -1) : s;
}

/** `-o` as given; `allowed` are the formats the command offers (the message lists them, as kubectl's does). */
export function parseOutput(spec: string | undefined, allowed: readonly FormatName[]): Output {
  if (spec === undefined || spec === '') return { kind: 'default' };
  const eq = spec.indexOf('=');
  const name = (eq < 0 ? spec : spec.slice(0, eq)) as FormatName;
  const arg = eq < 0 ? '' : unquoted(spec.slice(eq + 1));
  if (!allowed.includes(name) || ((name === 'jsonpath' || name === 'custom-columns') !== (eq >= 0))) {
    throw new UsageError(`unable to match a printer suitable for the output format "${spec}", allowed formats are: ${allowed.map((a) => (a === 'jsonpath' || a === 'custom-columns' ? `${a}=…` : a)).join(', ')}`);
  }
  try {
    if (name === 'jsonpath') return { kind: 'jsonpath', template: parseTemplate(arg) };
    if (name === 'custom-columns') {
      const columns = arg.split(',').map((c) => {
        const i = c.indexOf(':');
        if (i <= 0) throw new UsageError(`unexpected custom-columns spec: ${c}, expected <header>:<json-path-expr>`);
        return { header: c.slice(0, i), path: columnPath(c.slice(i + 1)) };
      });
      return { kind: 'custom-columns', columns };
    }
  } catch (e) {
    if (e instanceof TemplateError) throw new UsageError(`error parsing ${name} template ${arg}: ${e.message}`);
    throw e;
  }
  return { kind: name } as Output;
}

/** What kubectl prints for several objects with -o json|yaml|jsonpath. */
export function listOf(items: readonly unknown[]): { apiVersion: 'v1'; kind: 'List'; metadata: { resourceVersion: string }; items: unknown[] } {
  return { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items: [...items] };
}

/** Columns padded as kubectl pads them (three spaces, the last unpadded), with or without the header. */
export function columnsTable(header: readonly string[], rows: readonly string[][], noHeaders: boolean): string {
  const lines = noHeaders ? rows : [header, ...rows];
  if (lines.length === 0) return '';
  const widths = header.map((_, i) => Math.max(...lines.map((l) => (l[i] ?? '').length)));
  return lines.map((l) => l.map((c, i) => (i === l.length - 1 ? c : c.padEnd(widths[i]))).join('   ')).join('\n');
}

export function customColumns(items: readonly unknown[], columns: ReadonlyArray<{ header: string; path: string }>, noHeaders: boolean): string {
  const rows = items.map((it) => columns.map((c) => {
    const vs = evaluatePath(c.path, it, it).filter((v) => v !== undefined && v !== null);
    return vs.length === 0 ? '<none>' : vs.map(valueText).join(',');
  }));
  return columnsTable(columns.map((c) => c.header), rows, noHeaders);
}

/**
 * `--sort-by` with a JSONPath (kubectl's: the first value of the path per item; numbers by value,
 * strings by their bytes, items without a value first). Stable.
 */
export function sortByPath<T>(items: readonly T[], spec: string): T[] {
  let path: string;
  try {
    path = columnPath(spec);
  } catch (e) {
    throw new UsageError(`couldn't parse --sort-by ${spec}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const keyed = items.map((it, i) => ({ it, i, v: evaluatePath(path, it, it)[0] }));
  const rank = (v: unknown) => (v === undefined || v === null ? 0 : typeof v === 'number' || typeof v === 'boolean' ? 1 : 2);
  keyed.sort((a, b) => {
    const ra = rank(a.v);
    const rb = rank(b.v);
    if (ra !== rb) return ra - rb;
    if (ra === 1) return Number(a.v) - Number(b.v) || a.i - b.i;
    if (ra === 2) {
      const x = valueText(a.v);
      const y = valueText(b.v);
      return x < y ? -1 : x > y ? 1 : a.i - b.i;
    }
    return a.i - b.i;
  });
  return keyed.map((k) => k.it);
}

/**
 * Prints objects in a machine format: json / yaml (one object as itself, several as given by
 * `whole`), name, jsonpath (on `whole`), custom-columns (per item). Returns false for the formats
 * the caller renders itself (default, wide, tree).
 */
export function printMachine(out: Output, items: readonly unknown[], whole: unknown, opts: { name: (item: unknown) => string; noHeaders: boolean }, print: (s: string) => void): boolean {
  switch (out.kind) {
    case 'json':
      print(JSON.stringify(whole, null, 2));
      return true;
    case 'yaml':
      print(stringify(whole).trimEnd());
      return true;
    case 'name':
      for (const it of items) print(opts.name(it));
      return true;
    case 'jsonpath': {
      const text = renderTemplate(out.template, whole);
      if (text !== '') print(text.replace(/\n$/, ''));
      return true;
    }
    case 'custom-columns': {
      const text = customColumns(items, out.columns, opts.noHeaders);
      if (text !== '') print(text);
      return true;
    }
    default:
      return false;
  }
}
