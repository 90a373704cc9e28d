import { JqError } from './errors.ts';

/**
 * Token kinds. String literals are split into parts so that interpolation `\( … )` can hold a whole nested
 * program: STR_START, then STR_TEXT / INTERP_START … INTERP_END pieces, then STR_END.
 */
export type TokenKind =
  | 'punct'
  | 'ident'
  | 'keyword'
  | 'field'
  | 'var'
  | 'format'
  | 'number'
  | 'str_start'
  | 'str_text'
  | 'interp_start'
  | 'interp_end'
  | 'str_end'
  | 'eof';

export interface Token {
  kind: TokenKind;
  /** punctuation text, identifier/field/variable/format name, keyword, or decoded string text */
  text: string;
  num?: number;
  pos: number;
}

export const KEYWORDS = new Set([
  'def', 'if', 'then', 'elif', 'else', 'end', 'as', 'reduce', 'foreach', 'try', 'catch', 'label', 'import', 'include',
  'and', 'or', '__loc__',
]);

// Longest first, so that `//=` wins over `//` over `/` (punctAt follows the same order).
const PUNCTS = [
  '?//', '//=', '|=', '+=', '-=', '*=', '/=', '%=', '==', '!=', '<=', '>=', '//', '..',
  '.', '[', ']', '{', '}', '(', ')', '|', ',', ':', ';', '=', '<', '>', '+', '-', '*', '/', '%', '?', '$',
];
const SINGLE = new Set(PUNCTS.filter((p) => p.length === 1));

/**
 * The punctuation at `i`, longest first, or undefined. By character code rather than by trying every
 * entry of PUNCTS: catalog definitions hold hundreds of expressions, and the CLI lexes the ones a
 * command needs at every start, mostly before V8 has optimised anything.
 */
function punctAt(src: string, i: number): string | undefined {
  const c = src.charCodeAt(i);
  // 0 past the end, never NaN: the comparisons below stay on small integers.
  const d = i + 1 < src.length ? src.charCodeAt(i + 1) : 0;
  const e = i + 2 < src.length ? src.charCodeAt(i + 2) : 0;
  switch (c) {
    case 63: // ?
      if (d === 47 && e === 47) return '?//';
      return '?';
    case 47: // /
      if (d === 47) return e === 61 ? '//=' : '//';
      return d === 61 ? '/=' : '/';
    case 46: // .
      return d === 46 ? '..' : '.';
    case 124: // |
    case 43: // +
    case 45: // -
    case 42: // *
    case 37: // %
    case 61: // =
    case 33: // !
    case 60: // <
    case 62: // >
      if (d === 61) return src.slice(i, i + 2);
      return c === 33 ? undefined : src[i];
    default: {
      const ch = src[i];
      return SINGLE.has(ch) ? ch : undefined;
    }
  }
}

const isIdentStartCode = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
const isDigitCode = (c: number): boolean => c >= 48 && c <= 57;
const isIdentCode = (c: number): boolean => isIdentStartCode(c) || isDigitCode(c);

export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  // One entry per open string interpolation: the count of unclosed parentheses inside it.
  const interpDepth: number[] = [];

  const n = src.length;
  /** The character code at `j`, 0 past the end (never NaN, so the comparisons stay on small integers). */
  const at = (j: number): number => (j < n ? src.charCodeAt(j) : 0);
  /** The end of the identifier from `start`. */
  const identEnd = (start: number): number => {
    let j = start;
    while (isIdentCode(at(j))) j++;
    return j;
  };
  const readIdent = (start: number): number => {
    let j = identEnd(start);
    // module-qualified names `a::b`
    while (at(j) === 58 && at(j + 1) === 58 && isIdentStartCode(at(j + 2))) j = identEnd(j + 2);
    return j;
  };

  const lexString = (): void => {
    // at the opening quote or just after an interpolation closed
    let text = '';
    const flush = (pos: number): void => {
      if (text !== '') out.push({ kind: 'str_text', text, pos });
      text = '';
    };
    const start = i;
    while (true) {
      if (i >= src.length) throw new JqError('parse', `unterminated string literal`, start);
      const c = src[i];
      if (c === '"') {
        flush(i);
        out.push({ kind: 'str_end', text: '"', pos: i });
        i++;
        return;
      }
      if (c === '\\') {
        const d = src[i + 1];
        switch (d) {
          case '"': text += '"'; i += 2; break;
          case '\\': text += '\\'; i += 2; break;
          case '/': text += '/'; i += 2; break;
          case 'b': text += '\b'; i += 2; break;
          case 'f': text += '\f'; i += 2; break;
          case 'n': text += '\n'; i += 2; break;
          case 'r': text += '\r'; i += 2; break;
          case 't': text += '\t'; i += 2; break;
          case 'u': {
            const hex = src.slice(i + 2, i + 6);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new JqError('parse', `invalid escape sequence "\\u${hex}"`, i);
            text += String.fromCharCode(parseInt(hex, 16));
            i += 6;
            break;
          }
          case '(':
            flush(i);
            out.push({ kind: 'interp_start', text: '\\(', pos: i });
            i += 2;
            interpDepth.push(0);
            return;
          default:
            throw new JqError('parse', `invalid escape sequence "\\${d ?? ''}" in string literal`, i);
        }
        continue;
      }
      // A run of plain characters at once, not one concatenation per character.
      let j = i + 1;
      while (j < n) {
        const k = src.charCodeAt(j);
        if (k === 34 || k === 92) break;
        j++;
      }
      text += src.slice(i, j);
      i = j;
    }
  };

  while (true) {
    // whitespace and comments
    while (i < src.length) {
      const w = src.charCodeAt(i);
      if (w === 32 || w === 9 || w === 10 || w === 13) i++;
      else if (w === 35) {
        while (i < src.length && src.charCodeAt(i) !== 10) i++;
      } else break;
    }
    if (i >= src.length) break;
    const c = src[i];
    const code = src.charCodeAt(i);
    const next = at(i + 1);
    const start = i;
    if (c === '"') {
      out.push({ kind: 'str_start', text: '"', pos: i });
      i++;
      lexString();
      continue;
    }
    if (isDigitCode(code) || (code === 46 && isDigitCode(next))) {
      let j = i;
      while (isDigitCode(at(j))) j++;
      if (at(j) === 46) {
        j++;
        while (isDigitCode(at(j))) j++;
      }
      if (src[j] === 'e' || src[j] === 'E') {
        let k = j + 1;
        if (src[k] === '+' || src[k] === '-') k++;
        if (isDigitCode(at(k))) {
          while (isDigitCode(at(k))) k++;
          j = k;
        }
      }
      const text = src.slice(i, j);
      out.push({ kind: 'number', text, num: Number(text), pos: start });
      i = j;
      continue;
    }
    if (isIdentStartCode(code)) {
      const j = readIdent(i);
      const text = src.slice(i, j);
      out.push({ kind: KEYWORDS.has(text) ? 'keyword' : 'ident', text, pos: start });
      i = j;
      continue;
    }
    if (code === 46 && isIdentStartCode(next)) {
      const j = identEnd(i + 1);
      out.push({ kind: 'field', text: src.slice(i + 1, j), pos: start });
      i = j;
      continue;
    }
    if (code === 36 && isIdentStartCode(next)) {
      const j = readIdent(i + 1);
      out.push({ kind: 'var', text: src.slice(i + 1, j), pos: start });
      i = j;
      continue;
    }
    if (code === 64 && isIdentStartCode(next)) {
      const j = identEnd(i + 1);
      out.push({ kind: 'format', text: src.slice(i + 1, j), pos: start });
      i = j;
      continue;
    }
    if (interpDepth.length > 0) {
      const top = interpDepth.length - 1;
      if (c === '(') interpDepth[top]++;
      else if (c === ')') {
        if (interpDepth[top] === 0) {
          interpDepth.pop();
          out.push({ kind: 'interp_end', text: ')', pos: i });
          i++;
          lexString();
          continue;
        }
        interpDepth[top]--;
      }
    }
    const p = punctAt(src, i);
    if (p === undefined) throw new JqError('parse', `unexpected token ${JSON.stringify(c)}`, i);
    out.push({ kind: 'punct', text: p, pos: start });
    i += p.length;
  }
  if (interpDepth.length > 0) throw new JqError('parse', 'unterminated string interpolation', src.length);
  out.push({ kind: 'eof', text: '', pos: src.length });
  return out;
}
