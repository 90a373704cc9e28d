/**
 * Durations and ages exactly as kubectl prints them (apimachinery's HumanDuration): `45s`, `5m10s`,
 * `3h2m`, `2d4h`, `1y30d`. One formatter for the dashboard, the CLI and the simulated cluster's
 * server-side tables, so that an age reads the same wherever it is shown. Pure.
 */

/** A duration in milliseconds as kubectl prints it; `<invalid>` below -1 s (clock skew). */
export function humanDuration(ms: number): string {
  const sec = Math.floor(ms / 1000);
  if (sec < -1) return '<invalid>';
  if (sec < 0) return '0s';
  if (sec < 120) return `${sec}s`;
  const min = Math.floor(sec / 60);
  if (min < 10) return sec % 60 === 0 ? `${min}m` : `${min}m${sec % 60}s`;
  if (min < 180) return `${min}m`;
  const h = Math.floor(min / 60);
  if (h < 8) return min % 60 === 0 ? `${h}h` : `${h}h${min % 60}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (h < 24 * 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (h < 24 * 365 * 2) return `${d}d`;
  const y = Math.floor(d / 365);
  if (h < 24 * 365 * 8) return d % 365 === 0 ? `${y}y` : `${y}y${d % 365}d`;
  return `${y}y`;
}

/**
 * The age of something created at an ISO timestamp, as kubectl's AGE column prints it:
 * `<unknown>` when there is no timestamp, `<invalid>` when it cannot be read.
 */
export function humanAge(createdAt: unknown, now: number): string {
  if (typeof createdAt !== 'string' || createdAt === '') return '<unknown>';
  const t = Date.parse(createdAt);
  return Number.isNaN(t) ? '<invalid>' : humanDuration(now - t);
}
