/**
 * Credentials change under a running server: a kubeconfig is rewritten (a new CA after a cluster
 * was recreated, a refreshed client certificate), the in-cluster token rotates. This watches the
 * files a set of contexts was read from — the kubeconfig files and the certificate, key and token
 * files they name — and says when any of them changed, so the caller can reload.
 * Polling (`fs.watchFile`), because editors and `kubectl config` replace files by renaming, which
 * inotify-style watches lose.
 */
import { createHash } from 'node:crypto';
import { readFileSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import type { KubeConfig } from '@kubernetes/client-node';

/** Files a context's credentials are read from besides the kubeconfig itself. */
export function credentialFiles(kc: KubeConfig): string[] {
  const out: string[] = [];
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (cluster?.caFile) out.push(cluster.caFile);
  if (user?.certFile) out.push(user.certFile);
  if (user?.keyFile) out.push(user.keyFile);
  const tokenFile = (user?.authProvider?.config as { tokenFile?: string } | undefined)?.tokenFile;
  if (tokenFile) out.push(tokenFile);
  return out;
}

/**
 * What a context's connection depends on: its exported configuration and the contents of the files
 * it names. Equal fingerprints mean the connection can stay as it is.
 */
export function fingerprint(kc: KubeConfig): string {
  const h = createHash('sha256').update(kc.exportConfig());
  for (const f of credentialFiles(kc)) {
    try {
      h.update(f).update(readFileSync(f));
    } catch {
      h.update(`${f}: unreadable`);
    }
  }
  return h.digest('hex');
}

export class ConfigWatcher {
  private watched = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly listener = (cur: Stats, prev: Stats) => {
    if (cur.mtimeMs === prev.mtimeMs && cur.size === prev.size && cur.ino === prev.ino) return;
    // Writers often touch a file twice (truncate, write): one reload for a burst.
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.onChange();
    }, this.debounceMs);
  };

  constructor(
    private readonly onChange: () => void,
    private readonly intervalMs = 2000,
    private readonly debounceMs = 300,
  ) {}

  /** Watches exactly these files (a reload may name other ones). */
  watch(files: Iterable<string>): void {
    const next = new Set(files);
    for (const f of this.watched) if (!next.has(f)) unwatchFile(f, this.listener);
    for (const f of next) if (!this.watched.has(f)) watchFile(f, { interval: this.intervalMs, persistent: false }, this.listener);
    this.watched = next;
  }

  stop(): void {
    for (const f of this.watched) unwatchFile(f, this.listener);
    this.watched.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
