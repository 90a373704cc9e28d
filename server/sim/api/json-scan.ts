/**
 * Pre-decoding scans of request bodies (pure), for what JSON.parse and the yaml package do not tell:
 *
 * - nesting depth, against the API server's decoder limit: Go's JSON scanner (sigs.k8s.io/json,
 *   internal/golang/encoding/json/scanner.go `maxNestingDepth = 10000`, error "invalid character '{'
 *   exceeded max depth") and go-yaml (sigs.k8s.io/yaml goyaml.v2/scannerc.go `max_flow_level` /
 *   `max_indents` = 10000, error "yaml: exceeded max depth of 10000");
 * - the literal text of numbers whose JavaScript value does not say how they were written (`1e15`,
 *   `1.0`, `3e9`, integers beyond 2^53, `1e1000`), because the real server's messages quote the literal
 *   and decode `1e15` as a float64 but `1000000000000000` as an int64.
 */

/** The real decoders' nesting limit. */
export const MAX_NESTING_DEPTH = 10_000;

/** Literal text of non-canonical numbers, by value path (see pathKey). */
export type NumberLiterals = Map<string, string>;

/** The key of a value path: object keys and array indexes, as the walkers of decoded values build it. */
export function pathKey(segments: ReadonlyArray<string | number>): string {
  let s = '';
  for (const seg of segments) s += typeof seg === 'number' ? `\u0001#${seg}` : `\u0001.${seg}`;
  return s;
}

export interface JsonScan {
  /** Set when the nesting goes beyond the limit: the character that opened one level too many. */
  tooDeep?: { char: string };
  numbers: NumberLiterals;
}

function isDigitStart(c: number): boolean {
  return c === 45 /* - */ || (c >= 48 && c <= 57);
}

/**
 * Scans JSON text: depth (stops at the first level beyond `maxDepth`) and non-canonical number literals.
 * Malformed text is left to JSON.parse, which reports it.
 */
export function scanJson(text: string, maxDepth = MAX_NESTING_DEPTH): JsonScan {
  const numbers: NumberLiterals = new Map();
  // One frame per open container: its path, and for objects the key being read.
  const path: Array<string | number> = [];
  const kinds: Array<'o' | 'a'> = [];
  let expectKey = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      let j = i + 1;
      let escaped = false;
      for (; j < n; j++) {
        const d = text.charCodeAt(j);
        if (d === 92) {
          escaped = true;
          j++;
        } else if (d === 34) break;
      }
      if (expectKey && kinds[kinds.length - 1] === 'o') {
        const raw = text.slice(i + 1, j);
        let key = raw;
        if (escaped) {
          try {
            key = JSON.parse(`"${raw}"`) as string;
          } catch {
            key = raw;
          }
        }
        path[path.length - 1] = key;
        expectKey = false;
      }
      i = j;
      continue;
    }
    if (c === 123 /* { */ || c === 91 /* [ */) {
      if (kinds.length >= maxDepth) return { tooDeep: { char: text[i] }, numbers };
      kinds.push(c === 123 ? 'o' : 'a');
      path.push(c === 123 ? '' : 0);
      expectKey = c === 123;
      continue;
    }
    if (c === 125 /* } */ || c === 93 /* ] */) {
      kinds.pop();
      path.pop();
      expectKey = false;
      continue;
    }
    if (c === 44 /* , */) {
      const top = kinds.length - 1;
      if (top >= 0) {
        if (kinds[top] === 'a') path[top] = (path[top] as number) + 1;
        else expectKey = true;
      }
      continue;
    }
    if (isDigitStart(c)) {
      let j = i + 1;
      for (; j < n; j++) {
        const d = text.charCodeAt(j);
        if (!((d >= 48 && d <= 57) || d === 46 || d === 101 || d === 69 || d === 43 || d === 45)) break;
      }
      const literal = text.slice(i, j);
      if (String(Number(literal)) !== literal) numbers.set(pathKey(path), literal);
      i = j - 1;
    }
  }
  return { numbers };
}

/** 0-based line of a position. */
function lineOf(text: string, pos: number): number {
  let line = 0;
  for (let i = 0; i < pos && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * Depth of YAML text as go-yaml's scanner counts it: flow collections (`[`, `{` outside quotes and
 * comments) and block indentation levels (including compact `- - -` sequences). Returns go-yaml's
 * message when a limit is passed (it names the line from the second line on, like the real parser).
 */
export function yamlDepthError(text: string, maxDepth = MAX_NESTING_DEPTH): string | undefined {
  const fail = (pos: number) => {
    const line = lineOf(text, pos);
    return `yaml: ${line > 0 ? `line ${line + 1}: ` : ''}exceeded max depth of ${maxDepth}`;
  };
  // Flow levels.
  let flow = 0;
  const n = text.length;
  let lineStart = true;
  for (let i = 0; i < n; i++) {
    const c = text[i];
    if (c === '\n') {
      lineStart = true;
      continue;
    }
    if (c === '#' && (lineStart || text[i - 1] === ' ' || text[i - 1] === '\t')) {
      while (i < n && text[i] !== '\n') i++;
      lineStart = true;
      continue;
    }
    if (c !== ' ' && c !== '\t') lineStart = false;
    if (c === '"') {
      for (i++; i < n && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === "'") {
      for (i++; i < n; i++) {
        if (text[i] === "'") {
          if (text[i + 1] === "'") i++;
          else break;
        }
      }
    } else if (c === '[' || c === '{') {
      if (++flow > maxDepth) return fail(i);
    } else if ((c === ']' || c === '}') && flow > 0) flow--;
  }
  // Block indentation levels.
  const indents: number[] = [];
  let pos = 0;
  for (const line of text.split('\n')) {
    const start = pos;
    pos += line.length + 1;
    let col = 0;
    while (col < line.length && line[col] === ' ') col++;
    if (col >= line.length || line[col] === '#') continue;
    while (indents.length > 0 && indents[indents.length - 1] >= col) indents.pop();
    indents.push(col);
    // Compact nested sequences on one line: `- - - x` opens one level per dash.
    let k = col;
    while (line[k] === '-' && (line[k + 1] === ' ' || k + 1 === line.length)) {
      k += 2;
      while (line[k] === ' ') k++;
      if (line[k] === '-' && (line[k + 1] === ' ' || k + 1 === line.length)) indents.push(k);
    }
    if (indents.length > maxDepth) return fail(start);
  }
  return undefined;
}
