/**
 * What the store needs to know about a kind beyond its objects: its plural name (for the API server's
 * error messages) and its generation rules. The API registry supplies it (MemoryStore.setKindPolicy);
 * kinds it does not describe get the defaults below.
 */

export interface KindPolicy {
  /** Plural resource name, used in error messages (`pods "x" not found`). */
  resource: string;
  /** Whether `metadata.generation` is tracked (workloads and CRs yes; ConfigMap, Event… no). */
  generation: boolean;
  /** With a status subresource, status changes never bump generation. */
  statusSubresource: boolean;
}

const NO_GENERATION = new Set([
  '/ConfigMap', '/Secret', '/Event', '/ServiceAccount', '/Endpoints', '/Namespace', '/Node', '/Pod', '/Service',
  'events.k8s.io/Event', 'coordination.k8s.io/Lease', 'discovery.k8s.io/EndpointSlice',
]);

export function defaultPolicy(gk: string): KindPolicy {
  const kind = gk.slice(gk.indexOf('/') + 1);
  const lower = kind.toLowerCase();
  const plural = lower.endsWith('s') ? `${lower}es` : lower.endsWith('y') ? `${lower.slice(0, -1)}ies` : `${lower}s`;
  return { resource: plural, generation: !NO_GENERATION.has(gk), statusSubresource: true };
}
