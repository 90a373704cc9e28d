/**
 * Prometheus text exposition (format 0.0.4), the samples only: what a DCGM exporter's `/metrics`
 * answers. Comments (`# HELP`, `# TYPE`) and blank lines are skipped; a line that is not a sample
 * is counted as malformed and skipped (one bad line must not hide a node's GPUs).
 *
 * Hand-written because it is small and on the hot path: direct mode parses every GPU node's
 * exporter every refresh, and only a few metric names are wanted (`keep`), so unwanted lines are
 * dropped after reading their name, before their labels are parsed.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface ParsedExposition {
  samples: Sample[];
  /** Lines that are neither comments nor samples (the first few, for the error message). */
  malformed: number;
  firstMalformed: string | null;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

/** Parses `text`, keeping the samples whose metric name `keep` accepts (all when absent). */
export function parseExposition(text: string, keep?: (name: string) => boolean): ParsedExposition {
  const out: ParsedExposition = { samples: [], malformed: 0, firstMalformed: null };
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end).trim();
    start = end + 1;
    if (line === '' || line.startsWith('#')) continue;
    const m = NAME.exec(line);
    if (!m) {
      bad(out, line);
      continue;
    }
    const name = m[0];
    if (keep && !keep(name)) continue;
    const sample = parseRest(name, line.slice(name.length));
    if (sample) out.samples.push(sample);
    else bad(out, line);
  }
  return out;
}

function bad(out: ParsedExposition, line: string): void {
  out.malformed++;
  out.firstMalformed ??= line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** `{a="x",b="y"} 12.5 [timestamp]` after the metric name; null when malformed. */
function parseRest(name: string, rest: string): Sample | null {
  const labels: Record<string, string> = {};
  let i = 0;
  if (rest[0] === '{') {
    i = 1;
    for (;;) {
      while (rest[i] === ' ' || rest[i] === ',') i++;
      if (rest[i] === '}') {
        i++;
        break;
      }
      const key = NAME.exec(rest.slice(i));
      if (!key) return null;
      i += key[0].length;
      while (rest[i] === ' ') i++;
      if (rest[i] !== '=') return null;
      i++;
      while (rest[i] === ' ') i++;
      if (rest[i] !== '"') return null;
      i++;
      let value = '';
      for (;;) {
        const c = rest[i];
        if (c === undefined) return null;
        if (c === '"') break;
        if (c === '\\') {
          const n = rest[i + 1];
          value += n === 'n' ? '\n' : n === '"' ? '"' : n === '\\' ? '\\' : `\\${n ?? ''}`;
          i += 2;
          continue;
        }
        value += c;
        i++;
      }
      i++;
      labels[key[0]] = value;
    }
  }
  const fields = rest.slice(i).trim().split(/\s+/);
  if (fields.length < 1 || fields.length > 2 || fields[0] === '') return null;
  const value = parseValue(fields[0]);
  if (value === null) return null;
  return { name, labels, value };
}

/** A sample value as Prometheus writes it: a float, `NaN`, `+Inf`, `-Inf`. */
function parseValue(s: string): number | null {
  if (s === 'NaN') return Number.NaN;
  if (s === '+Inf' || s === 'Inf') return Number.POSITIVE_INFINITY;
  if (s === '-Inf') return Number.NEGATIVE_INFINITY;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) return null;
  return Number(s);
}
