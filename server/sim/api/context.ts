/**
 * What request handlers are given instead of reaching into the server: the server-wide state
 * (store, registry, faults, open watches, clock) and, for resource requests, the request itself
 * with the resource it names.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MemoryStore } from '../store/memory-store.ts';
import type { Authenticator } from './authn/authenticator.ts';
import type { ServiceAccountTokens } from './authn/service-account-tokens.ts';
import type { Identity } from './authn/user.ts';
import type { Authorizer } from './authorizer.ts';
import type { FaultController } from './faults.ts';
import type { PodServer, ServiceBackends } from './proxy-targets.ts';
import type { Registry, ResourceDescriptor } from './registry.ts';
import type { ResourcePath } from './request.ts';
import type { WatchHub } from './watch-hub.ts';

/** Who requests are and what they may do, for the router and the review endpoints. */
export interface AuthServices {
  authenticator: Authenticator;
  authorizer: Authorizer;
  serviceAccounts: ServiceAccountTokens;
}

export interface ServerContext {
  store: MemoryStore;
  auth: AuthServices;
  registry: Registry;
  faults: FaultController;
  watches: WatchHub;
  /** Clock for table ages (the simulated clock when controllers run). */
  now: () => number;
  /** How often BOOKMARKs go to watches that allow them. */
  bookmarkIntervalMs: number;
  /** `host:port` as clients reach the server (legacy core discovery names it); the port is known once listening. */
  address: () => string;
  /** Stops listening and listens again on the same port (the control endpoint's restart). */
  restart: () => Promise<void>;
  /** In-process servers on pods' ports (what pod and service proxies reach). */
  podServer?: PodServer;
  /** External backends of Service ports (service proxies go there first). */
  serviceBackends: ServiceBackends;
  /** The GPU ground truth at a simulated time (default now), for `GET /__sim/usage`. */
  usage?: (atMs?: number) => unknown;
}

/** A request for a resource the registry serves, after routing and authorization. */
export interface ResourceRequest {
  ctx: ServerContext;
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  desc: ResourceDescriptor;
  p: ResourcePath;
  /** Who the request runs as (after impersonation). */
  user: Identity;
}
