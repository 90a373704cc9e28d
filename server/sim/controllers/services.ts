/** Services as operators create them (headless or ClusterIP), with the API server's defaults filled in. */

import { ctrlRef } from './meta.ts';
import type { Rng } from './random.ts';
import type { KubeObject, StringMap } from './types.ts';

export interface ServicePort {
  name?: string;
  port: number;
  targetPort?: number | string;
  protocol?: string;
  appProtocol?: string;
}

export interface ServiceArgs {
  name: string;
  namespace: string;
  owner?: KubeObject;
  selector?: StringMap;
  ports?: ServicePort[];
  labels?: StringMap;
  annotations?: StringMap;
  /** Headless (`clusterIP: None`) or a virtual IP allocated from 10.96.0.0/12. */
  headless?: boolean;
  publishNotReadyAddresses?: boolean;
  type?: 'ClusterIP' | 'NodePort' | 'LoadBalancer' | 'ExternalName';
  externalName?: string;
  rng?: Rng;
}

export function clusterIp(rng: Rng | undefined): string {
  if (!rng) return '10.96.0.10';
  return `10.${96 + rng.int(0, 15)}.${rng.int(0, 255)}.${rng.int(1, 254)}`;
}

export function service(a: ServiceArgs): KubeObject {
  const type = a.type ?? 'ClusterIP';
  const ip = type === 'ExternalName' ? undefined : a.headless ? 'None' : clusterIp(a.rng);
  const spec: Record<string, unknown> = {
    type,
    ...(ip ? { clusterIP: ip, clusterIPs: [ip] } : {}),
    ...(a.selector ? { selector: a.selector } : {}),
    ...(a.ports ? { ports: a.ports.map((p) => ({ protocol: 'TCP', targetPort: p.port, ...p })) } : {}),
    ...(type === 'ExternalName' ? { externalName: a.externalName } : { ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', internalTrafficPolicy: 'Cluster' }),
    sessionAffinity: 'None',
    ...(a.publishNotReadyAddresses ? { publishNotReadyAddresses: true } : {}),
  };
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: a.name,
      namespace: a.namespace,
      ...(a.labels ? { labels: a.labels } : {}),
      ...(a.annotations ? { annotations: a.annotations } : {}),
      ...(a.owner ? { ownerReferences: [ctrlRef(a.owner)] } : {}),
    },
    spec,
    status: { loadBalancer: {} },
  };
}
