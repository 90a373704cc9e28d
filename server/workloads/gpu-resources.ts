/**
 * Which extended resources count as GPUs: the engine's defaults, or a list an operator chooses —
 * `--gpu-resources` on any command, else `WMAP_GPU_RESOURCES`, else `gpuResources:` in the config
 * file (`WMAP_CONFIG`, default `~/.config/wmap/config.yaml`). Entries are resource names
 * (`nvidia.com/gpu`) or prefixes ending in `*` (`nvidia.com/mig-*`). A malformed list is an error
 * that names the entry and where it came from, never a silent fallback.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { DEFAULT_GPU_RESOURCES } from '../engine/index.ts';

export interface GpuResourceChoice {
  patterns: string[];
  /** Where the list came from, for people: `--gpu-resources`, `WMAP_GPU_RESOURCES`, the file, `defaults`. */
  source: string;
}

/** `domain/name` (a qualified resource name), or such a prefix ending in `*`. */
const ENTRY = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/(?:[A-Za-z0-9][-A-Za-z0-9_.+]*\*?|\*)$/;

function checked(entries: unknown, where: string): string[] {
  if (!Array.isArray(entries) || entries.length === 0) throw new Error(`${where}: a non-empty list of GPU resource names is expected`);
  return entries.map((e, i) => {
    if (typeof e !== 'string' || !ENTRY.test(e.trim())) {
      throw new Error(`${where}: entry ${i + 1} (${JSON.stringify(e)}) is not a resource name like nvidia.com/gpu or a prefix like nvidia.com/mig-*`);
    }
    return e.trim();
  });
}

function fromList(text: string, where: string): string[] {
  return checked(text.split(/[\s,]+/).filter(Boolean), where);
}

export function defaultConfigFile(env: Record<string, string | undefined> = process.env): string {
  return env.WMAP_CONFIG || join(env.HOME || homedir(), '.config', 'wmap', 'config.yaml');
}

export function chooseGpuResources(o: { flag?: string; env?: Record<string, string | undefined>; file?: string } = {}): GpuResourceChoice {
  const env = o.env ?? process.env;
  if (o.flag !== undefined) return { patterns: fromList(o.flag, '--gpu-resources'), source: '--gpu-resources' };
  if (env.WMAP_GPU_RESOURCES) return { patterns: fromList(env.WMAP_GPU_RESOURCES, 'WMAP_GPU_RESOURCES'), source: 'WMAP_GPU_RESOURCES' };
  const file = o.file ?? defaultConfigFile(env);
  if (existsSync(file)) {
    let doc: unknown;
    try {
      doc = parse(readFileSync(file, 'utf8'), { maxAliasCount: 10 });
    } catch (e) {
      throw new Error(`${file}: not YAML: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`, { cause: e });
    }
    const list = doc && typeof doc === 'object' ? (doc as { gpuResources?: unknown }).gpuResources : undefined;
    if (list !== undefined) return { patterns: checked(list, `${file}: gpuResources`), source: file };
  }
  return { patterns: [...DEFAULT_GPU_RESOURCES], source: 'defaults' };
}
