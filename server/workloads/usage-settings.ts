/**
 * GPU utilization settings: where each cluster's Prometheus is, what counts as idle, how often to
 * refresh. Flags first (`--prometheus`, `--idle-threshold`, `--idle-window`, `--usage-interval`,
 * `--no-usage`), then `WMAP_PROMETHEUS` / `WMAP_IDLE_THRESHOLD` / `WMAP_IDLE_WINDOW` /
 * `WMAP_USAGE_INTERVAL`, then `usage:` in the config file; a malformed value is an error naming it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { defaultConfigFile } from './gpu-resources.ts';
import type { UsageSettings } from './live.ts';

export const DEFAULT_USAGE: UsageSettings = { idle: { thresholdPercent: 5, windowSeconds: 900 }, intervalSeconds: 30 };

export interface UsageFlags {
  /** `URL`, `service:ns/name:port`, or `context=…` (repeatable). */
  prometheus?: string[];
  idleThreshold?: string;
  idleWindow?: string;
  usageInterval?: string;
  /** `--no-usage` */
  usage?: boolean;
}

/** `30s`, `15m`, `1h`, `1h30m`, or plain seconds. */
export function parseSeconds(text: string, where: string): number {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t);
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(t);
  if (!t || !m || (!m[1] && !m[2] && !m[3])) throw new Error(`${where}: ${JSON.stringify(text)} is not a duration like 30s, 15m or 1h`);
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}

function percent(text: string, where: string): number {
  const n = Number(text.trim().replace(/%$/, ''));
  if (!Number.isFinite(n) || n < 0 || n > 100 || text.trim() === '') throw new Error(`${where}: ${JSON.stringify(text)} is not a percentage between 0 and 100`);
  return n;
}

/** `url` for every cluster, or `context=url` for one. */
function prometheusMap(entries: readonly string[], where: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of entries) {
    const s = e.trim();
    if (!s) continue;
    const eq = /^([^=/:]+)=(.+)$/.exec(s);
    const [ctx, target] = eq ? [eq[1], eq[2]] : ['*', s];
    if (!/^https?:\/\/[^\s]+$/.test(target) && !/^service:[^/\s]+\/[^:\s]+:[^\s]+$/.test(target)) {
      throw new Error(`${where}: ${JSON.stringify(s)} is not a Prometheus URL (http://host:9090), service:namespace/name:port, or context=either`);
    }
    out[ctx] = target;
  }
  return out;
}

interface FileUsage {
  enabled?: unknown;
  prometheus?: unknown;
  idleThreshold?: unknown;
  idleWindow?: unknown;
  interval?: unknown;
}

function fromFile(file: string): FileUsage | null {
  if (!existsSync(file)) return null;
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, 'utf8'), { maxAliasCount: 10 });
  } catch (e) {
    throw new Error(`${file}: not YAML: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`, { cause: e });
  }
  const u = doc && typeof doc === 'object' ? (doc as { usage?: unknown }).usage : undefined;
  if (u === undefined || u === null) return null;
  if (typeof u !== 'object' || Array.isArray(u)) throw new Error(`${file}: usage: a mapping is expected`);
  return u as FileUsage;
}

/** The settings, or null when utilization is switched off. */
export function chooseUsageSettings(o: { flags?: UsageFlags; env?: Record<string, string | undefined>; file?: string } = {}): UsageSettings | null {
  const env = o.env ?? process.env;
  const f = o.flags ?? {};
  const file = o.file ?? defaultConfigFile(env);
  const fu = fromFile(file);
  const at = (k: string) => `${file}: usage.${k}`;
  if (f.usage === false || env.WMAP_USAGE === 'off' || fu?.enabled === false) return null;
  const settings: UsageSettings = { idle: { ...DEFAULT_USAGE.idle }, intervalSeconds: DEFAULT_USAGE.intervalSeconds };
  const str = (v: unknown, where: string) => {
    if (typeof v === 'number') return String(v);
    if (typeof v !== 'string') throw new Error(`${where}: a string or number is expected`);
    return v;
  };

  if (f.prometheus?.length) settings.prometheus = prometheusMap(f.prometheus, '--prometheus');
  else if (env.WMAP_PROMETHEUS) settings.prometheus = prometheusMap(env.WMAP_PROMETHEUS.split(','), 'WMAP_PROMETHEUS');
  else if (fu?.prometheus !== undefined) {
    const p = fu.prometheus;
    if (typeof p === 'string') settings.prometheus = prometheusMap([p], at('prometheus'));
    else if (p && typeof p === 'object' && !Array.isArray(p)) settings.prometheus = prometheusMap(Object.entries(p).map(([k, v]) => `${k}=${str(v, at(`prometheus.${k}`))}`), at('prometheus'));
    else throw new Error(`${at('prometheus')}: a URL or a mapping of context to URL is expected`);
  }

  if (f.idleThreshold !== undefined) settings.idle.thresholdPercent = percent(f.idleThreshold, '--idle-threshold');
  else if (env.WMAP_IDLE_THRESHOLD) settings.idle.thresholdPercent = percent(env.WMAP_IDLE_THRESHOLD, 'WMAP_IDLE_THRESHOLD');
  else if (fu?.idleThreshold !== undefined) settings.idle.thresholdPercent = percent(str(fu.idleThreshold, at('idleThreshold')), at('idleThreshold'));

  if (f.idleWindow !== undefined) settings.idle.windowSeconds = parseSeconds(f.idleWindow, '--idle-window');
  else if (env.WMAP_IDLE_WINDOW) settings.idle.windowSeconds = parseSeconds(env.WMAP_IDLE_WINDOW, 'WMAP_IDLE_WINDOW');
  else if (fu?.idleWindow !== undefined) settings.idle.windowSeconds = parseSeconds(str(fu.idleWindow, at('idleWindow')), at('idleWindow'));

  if (f.usageInterval !== undefined) settings.intervalSeconds = parseSeconds(f.usageInterval, '--usage-interval');
  else if (env.WMAP_USAGE_INTERVAL) settings.intervalSeconds = parseSeconds(env.WMAP_USAGE_INTERVAL, 'WMAP_USAGE_INTERVAL');
  else if (fu?.interval !== undefined) settings.intervalSeconds = parseSeconds(str(fu.interval, at('interval')), at('interval'));
  if (settings.intervalSeconds < 1) throw new Error(`the utilization refresh interval must be at least 1 s (got ${settings.intervalSeconds})`);
  if (settings.idle.windowSeconds < settings.intervalSeconds) throw new Error(`the idle window (${settings.idle.windowSeconds} s) must be at least the refresh interval (${settings.intervalSeconds} s)`);
  return settings;
}
