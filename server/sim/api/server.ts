/**
 * The simulated cluster's HTTP API server: Kubernetes REST requests over HTTP(S), routed (router.ts)
 * to one handler per concern (handlers/), with discovery, OpenAPI, Tables, watches, patches, access
 * rules and faults. This file owns the lifecycle: listening, the store subscription that feeds
 * watches, fault-driven watch drops, restarts and shutdown.
 */

import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { HistoryEntry, MemoryStore } from '../store/memory-store.ts';
import type { AuthServices, ServerContext } from './context.ts';
import type { FaultController } from './faults.ts';
import type { PodServer } from './proxy-targets.ts';
import { ServiceBackends } from './proxy-targets.ts';
import type { Registry } from './registry.ts';
import type { RequestLogEntry } from './router.ts';
import { createRouter } from './router.ts';
import { WatchHub } from './watch-hub.ts';

export type { RequestLogEntry } from './router.ts';

export interface ApiServerOptions {
  store: MemoryStore;
  registry: Registry;
  faults: FaultController;
  /** Authentication (tokens, service accounts) and authorization (RBAC, access rules). */
  auth: AuthServices;
  host?: string;
  /** How often BOOKMARKs go to watches that allow them (the real cacher: about a minute). */
  bookmarkIntervalMs?: number;
  /** Called for each finished request (tests assert request sequences with it). */
  onRequest?: (entry: RequestLogEntry) => void;
  /** Clock for table ages (the simulated clock when controllers run). */
  now?: () => number;
  /** Serve HTTPS with this certificate (kubectl sends bearer tokens only over TLS). */
  tls?: { cert: string; key: string };
  /** In-process servers on pods' ports (the DCGM exporters), for the pod and service proxies. */
  podServer?: PodServer;
  /** External backends of Service ports; the server keeps its own (empty) registry when absent. */
  serviceBackends?: ServiceBackends;
  /** The GPU ground truth for `GET /__sim/usage`. */
  usage?: (atMs?: number) => unknown;
}

export class ApiServer {
  private readonly store: MemoryStore;
  private readonly host: string;
  private readonly tls?: { cert: string; key: string };
  private readonly watches: WatchHub;
  private readonly handler: ReturnType<typeof createRouter>;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private unsubscribe: (() => void) | undefined;
  private dropTicker: NodeJS.Timeout | undefined;
  private readonly restartListeners: Array<() => void> = [];
  private readonly offEvents: () => void;
  port = 0;

  constructor(opts: ApiServerOptions) {
    this.store = opts.store;
    this.host = opts.host ?? '127.0.0.1';
    this.tls = opts.tls;
    const { registry, faults } = opts;
    const watches = (this.watches = new WatchHub(faults));
    const ctx: ServerContext = {
      store: opts.store,
      auth: opts.auth,
      registry,
      faults,
      watches,
      now: opts.now ?? Date.now,
      bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 60_000,
      address: () => `${this.host}:${this.port}`,
      restart: () => this.restart(),
      podServer: opts.podServer,
      serviceBackends: opts.serviceBackends ?? new ServiceBackends(),
      usage: opts.usage,
    };
    this.handler = createRouter({ ctx, onRequest: opts.onRequest });
    const offFaults = faults.on((ev) => {
      if (ev === 'drop-watches') watches.dropAll();
    });
    const offRegistry = registry.onChange(() => watches.endUnserved(registry));
    this.offEvents = () => {
      offFaults();
      offRegistry();
    };
  }

  async listen(port = 0): Promise<number> {
    const handler = this.handler;
    const server: Server = this.tls
      ? (createTlsServer({ cert: this.tls.cert, key: this.tls.key, keepAliveTimeout: 5000 }, handler) as unknown as Server)
      : createServer({ keepAliveTimeout: 5000 }, handler);
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    const addr = server.address();
    this.port = typeof addr === 'object' && addr ? addr.port : port;
    this.unsubscribe = this.store.subscribe((e) => this.watches.deliver(e as HistoryEntry));
    this.dropTicker = setInterval(() => this.watches.dropTick(), 1000);
    this.dropTicker.unref();
    return this.port;
  }

  /** Ends watches cleanly (so clients re-watch), then closes every connection. */
  async close(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.dropTicker) clearInterval(this.dropTicker);
    this.watches.endAll();
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
      // Connections still busy after a moment are cut.
      setTimeout(() => {
        for (const s of this.sockets) s.destroy();
      }, 200).unref();
    });
  }

  /** Stops listening (watches end cleanly, connections close) and listens again on the same port. */
  async restart(): Promise<void> {
    const port = this.port;
    await this.close();
    await this.listen(port);
    for (const l of this.restartListeners) l();
  }

  /** Called after each restart (the state file is written then). */
  onRestart(listener: () => void): void {
    this.restartListeners.push(listener);
  }

  dispose(): void {
    this.offEvents();
  }

  openWatchCount(): number {
    return this.watches.count();
  }
}
