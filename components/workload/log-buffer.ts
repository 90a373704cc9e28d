/**
 * The lines of a streamed log as the viewer keeps them: chunks arrive cut anywhere, so a partial last
 * line waits for its end; only the newest `max` lines are kept (a followed log runs for hours), and
 * how many were dropped is counted so the viewer can say so.
 */
export interface LogLines {
  lines: string[];
  /** The unfinished last line (no newline yet). */
  partial: string;
  /** Lines dropped from the top to stay within `max`. */
  dropped: number;
}

export const EMPTY_LOG: LogLines = { lines: [], partial: '', dropped: 0 };

export function appendChunk(buf: LogLines, chunk: string, max: number): LogLines {
  const text = buf.partial + chunk;
  const parts = text.split('\n');
  const partial = parts.pop() ?? '';
  if (parts.length === 0) return { ...buf, partial };
  let lines = buf.lines.concat(parts);
  let dropped = buf.dropped;
  if (lines.length > max) {
    dropped += lines.length - max;
    lines = lines.slice(lines.length - max);
  }
  return { lines, partial, dropped };
}

/** Every line, the unfinished one included (at the end of a stream it is a line too). */
export function allLines(buf: LogLines): string[] {
  return buf.partial ? [...buf.lines, buf.partial] : buf.lines;
}
