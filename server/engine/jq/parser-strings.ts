/** String literals with interpolation (`"a\(.b)c"`), optionally under a format (`@base64 "…"`). */
import type { Node } from './ast.ts';
import type { Parser } from './parser.ts';

/** A string without interpolation and format is a literal; otherwise its parts are texts and nested programs. */
export function parseString(p: Parser, format: string | null): Node {
  const start = p.next();
  if (start.kind !== 'str_start') p.fail(start);
  const parts: Array<string | Node> = [];
  while (true) {
    const t = p.next();
    if (t.kind === 'str_end') break;
    if (t.kind === 'str_text') parts.push(t.text);
    else if (t.kind === 'interp_start') {
      parts.push(p.parsePipe());
      const e = p.next();
      if (e.kind !== 'interp_end') p.fail(e);
    } else p.fail(t);
  }
  if (format === null && parts.every((part) => typeof part === 'string')) {
    return { t: 'literal', value: parts.join(''), pos: start.pos };
  }
  return { t: 'string', parts, format, pos: start.pos };
}

