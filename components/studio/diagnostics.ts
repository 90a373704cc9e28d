/**
 * Validation errors as editor marks: a YAML error at the line and column it names, a definition
 * error at the field its path names (or that field's nearest parent), anything else at the top.
 * Pure, so it is tested without an editor.
 */
import type { EngineError } from '../../contract/index.ts';
import { rangeOfPath } from '../../lib/yaml/path-position.ts';

export interface Mark {
  from: number;
  to: number;
  line: number;
  severity: 'error' | 'warning';
  message: string;
}

function offsetOfLine(text: string, line: number, column: number): number {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf('\n', offset);
    if (nl < 0) return text.length;
    offset = nl + 1;
  }
  return Math.min(text.length, offset + Math.max(0, column - 1));
}

export function marksOf(text: string, errors: readonly EngineError[], severity: Mark['severity'] = 'error'): Mark[] {
  return errors.map((e) => {
    const at = /^line (\d+), column (\d+)/.exec(e.message);
    if (at) {
      const from = offsetOfLine(text, Number(at[1]), Number(at[2]));
      return { from, to: Math.min(text.length, from + 1), line: Number(at[1]), severity, message: e.message };
    }
    const r = e.path ? rangeOfPath(text, e.path) : null;
    if (r) return { from: r.from, to: r.to, line: r.line, severity, message: r.exact ? `${e.path}: ${e.message}` : `${e.path} (missing here): ${e.message}` };
    return { from: 0, to: Math.min(text.length, 1), line: 1, severity, message: e.path ? `${e.path}: ${e.message}` : e.message };
  });
}
