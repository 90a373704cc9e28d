/**
 * The narrowest a CSS grid row can be: the sum of its tracks' minimums (`96px`, `minmax(150px,1fr)`),
 * the gaps between them and the row's padding. The table's inner width, so that its columns scroll
 * sideways together with the header instead of squeezing. Pure.
 */
export function gridMinWidth(tracks: readonly string[], gapPx: number, paddingPx: number): number {
  let sum = 0;
  for (const t of tracks) {
    const m = /^minmax\(\s*(\d+(?:\.\d+)?)px\s*,/.exec(t) ?? /^(\d+(?:\.\d+)?)px$/.exec(t.trim());
    // A track without a pixel minimum (`1fr`, `auto`) can shrink to nothing.
    if (m) sum += Number(m[1]);
  }
  return Math.ceil(sum + gapPx * Math.max(0, tracks.length - 1) + paddingPx);
}
