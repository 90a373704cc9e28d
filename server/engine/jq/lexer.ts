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

// Longest first, so that `//=` wins over `//` over `/`.
const PUNCTS = [
  '?//', '//=', '|=', '+=', '-=', '*=', '/=', '%=', '==', '!=', '<=', '>=', '//', '..',
  '.', '[', ']', '{', '}', '(', ')', '|', ',', ':', ';', '=', '<', '>', '+', '-', '*', '/', '%', '?', '$',
];

const isIdentStart = (c: string): boolean => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
const isIdentChar = (c: string): boolean => isIdentStart(c) || (c >= '0' && c <= '9');
const isDigit = (c: string): boolean => c >= '0' && c <= '9';

export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  // One entry per open string interpolation: the count of unclosed parentheses inside it.
  const interpDepth: number[] = [];

  const readIdent = (start: number): number => {
    let j = start;
    while (j < src.length && isIdentChar(src[j])) j++;
    // module-qualified names `a::b`
    while (src[j] === ':' && src[j + 1] === ':' && isIdentStart(src[j + 2] ?? '')) {
      j += 2;
      while (j < src.length && isIdentChar(src[j])) j++;
    }
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
      text += c;
      i++;
    }
  };

  while (true) {
    // whitespace and comments
    while (i < src.length) {
      const c = src[i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') i++;
      else if (c === '#') {
        while (i < src.length && src[i] !== '\n') i++;
      } else break;
    }
    if (i >= src.length) break;
    const c = src[i];
    const start = i;
    if (c === '"') {
      out.push({ kind: 'str_start', text: '"', pos: i });
      i++;
      lexString();
      continue;
    }
    if (isDigit(c) || (c === '.' && isDigit(src[i + 1] ?? ''))) {
      let j = i;
      while (isDigit(src[j] ?? '')) j++;
      if (src[j] === '.') {
        j++;
        while (isDigit(src[j] ?? '')) j++;
      }
      if (src[j] === 'e' || src[j] === 'E') {
        let k = j + 1;
        if (src[k] === '+' || src[k] === '-') k++;
        if (isDigit(src[k] ?? '')) {
          while (isDigit(src[k] ?? '')) k++;
          j = k;
        }
      }
      const text = src.slice(i, j);
      out.push({ kind: 'number', text, num: Number(text), pos: start });
      i = j;
      continue;
    }
    if (isIdentStart(c)) {
      const j = readIdent(i);
      const text = src.slice(i, j);
      out.push({ kind: KEYWORDS.has(text) ? 'keyword' : 'ident', text, pos: start });
      i = j;
      continue;
    }
    if (c === '.' && isIdentStart(src[i + 1] ?? '')) {
      let j = i + 1;
      while (j < src.length && isIdentChar(src[j])) j++;
      out.push({ kind: 'field', text: src.slice(i + 1, j), pos: start });
      i = j;
      continue;
    }
    if (c === '$' && isIdentStart(src[i + 1] ?? '')) {
      const j = readIdent(i + 1);
      out.push({ kind: 'var', text: src.slice(i + 1, j), pos: start });
      i = j;
      continue;
    }
    if (c === '@' && isIdentStart(src[i + 1] ?? '')) {
      let j = i + 1;
      while (j < src.length && isIdentChar(src[j])) j++;
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
    const p = PUNCTS.find((s) => src.startsWith(s, i));
    if (p === undefined) throw new JqError('parse', `unexpected token ${JSON.stringify(c)}`, i);
    out.push({ kind: 'punct', text: p, pos: start });
    i += p.length;
  }
  if (interpDepth.length > 0) throw new JqError('parse', 'unterminated string interpolation', src.length);
  out.push({ kind: 'eof', text: '', pos: src.length });
  return out;
}
