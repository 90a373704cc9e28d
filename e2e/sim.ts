/**
 * Drives the embedded simulated cluster through the server's loopback-only test hooks
 * (`POST /api/test-hooks`, enabled by WMAP_TEST_HOOKS=1): nodes, namespaces and workloads with
 * known shapes, so the browser tests can check exact structures and GPU totals.
 */

export type Hook = (action: string, args?: Record<string, unknown>) => Promise<unknown>;

export function hooks(baseURL: string): Hook {
  return async (action, args = {}) => {
    const res = await fetch(`${baseURL}/api/test-hooks`, { method: 'POST', headers: { 'content-type': 'application/json', origin: baseURL }, body: JSON.stringify({ action, args }) });
    const body = (await res.json()) as { ok?: boolean; result?: unknown; error?: { message: string } };
    if (!res.ok) throw new Error(`test hook ${action}: ${body.error?.message ?? res.status}`);
    return body.result;
  };
}

async function createIfMissing(hook: Hook, object: Record<string, unknown>): Promise<void> {
  try {
    await hook('create', { object });
  } catch (e) {
    if (!/already exists|AlreadyExists|conflict/i.test(String(e))) throw e;
  }
}

export async function ensureNamespace(hook: Hook, name: string): Promise<void> {
  await createIfMissing(hook, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

export async function ensureGpuNodes(hook: Hook, count: number, gpus = 8, prefix = 'e2e-gpu'): Promise<void> {
  for (let i = 0; i < count; i++) {
    await createIfMissing(hook, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: `${prefix}-${i}`, labels: { 'kubernetes.io/hostname': `${prefix}-${i}`, 'nvidia.com/gpu.present': 'true' } },
      status: {
        capacity: { cpu: '128', memory: '2Ti', pods: '1100', 'nvidia.com/gpu': String(gpus) },
        allocatable: { cpu: '128', memory: '2Ti', pods: '1100', 'nvidia.com/gpu': String(gpus) },
        conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }],
      },
    });
  }
}

function replicatedJob(name: string, replicas: number, gpus: number) {
  const resources = gpus > 0 ? { limits: { cpu: '1', memory: '1Gi', 'nvidia.com/gpu': gpus } } : { requests: { cpu: '10m', memory: '16Mi' } };
  return {
    name,
    replicas,
    template: {
      spec: {
        backoffLimit: 0,
        completions: 1,
        parallelism: 1,
        template: {
          // Run until deleted, as `sleep infinity` would: without it the simulated kubelet ends a
          // restartPolicy: Never pod after a random 5–15 min batch run, and on a slow machine the suite
          // outlives it (the seeded JobSets completed with 0 GPUs before the last specs read them).
          metadata: { labels: { role: name }, annotations: { 'sim.workload-map.io/duration': 'forever' } },
          spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox:1.36', command: ['sleep', 'infinity'], resources }] },
        },
      },
    },
  };
}

export function jobSet(namespace: string, name: string, roles: Array<{ name: string; replicas: number; gpus: number }>) {
  return {
    apiVersion: 'jobset.x-k8s.io/v1alpha2',
    kind: 'JobSet',
    metadata: { name, namespace, labels: { 'app.kubernetes.io/name': name } },
    spec: { replicatedJobs: roles.map((r) => replicatedJob(r.name, r.replicas, r.gpus)) },
  };
}

export async function createJobSet(hook: Hook, namespace: string, name: string, roles: Array<{ name: string; replicas: number; gpus: number }>): Promise<void> {
  await ensureNamespace(hook, namespace);
  await createIfMissing(hook, jobSet(namespace, name, roles));
}
