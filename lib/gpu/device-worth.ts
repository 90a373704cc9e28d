/**
 * How much of a GPU device one unit of a GPU resource is, so that totals add like things:
 * - a whole GPU (`nvidia.com/gpu`, `amd.com/gpu`, `gpu.intel.com/i915`, `gpu.intel.com/xe`) is 1;
 * - a MIG slice (`nvidia.com/mig-3g.40gb`) is its compute slices over the device's: 7 on A100, H100,
 *   H200, B200 …, 4 on an A30 (the device from the node's `nvidia.com/gpu.product` label, else from
 *   the profile's memory size, which tells an A30's profiles apart);
 * - with the single MIG strategy, `nvidia.com/gpu` on a node whose product names a MIG profile
 *   (`NVIDIA-A100-SXM4-40GB-MIG-1g.5gb`) is one such slice;
 * - a time-sliced replica (`nvidia.com/gpu.shared`, or `nvidia.com/gpu` on a node that shares its
 *   GPUs) is 1 / replicas when the node says how many (`nvidia.com/gpu.replicas`); otherwise it
 *   cannot be converted (null) and is counted apart;
 * - `gpu.intel.com/millicores` is a thousandth of a GPU.
 * Pure; shared by the engine (totals) and the dashboard (explanations).
 */

export interface NodeGpuInfo {
  /** `nvidia.com/gpu.product`, e.g. `NVIDIA-H100-80GB-HBM3`. */
  product: string | null;
  /** `nvidia.com/gpu.replicas` when GPUs are time-sliced (greater than 1). */
  replicas: number | null;
  /** `nvidia.com/mig.strategy`. */
  migStrategy: string | null;
}

export interface MigProfile {
  /** `1g.10gb` (a `+me` media-extension suffix is kept). */
  name: string;
  /** Compute slices (the `Ng`). */
  slices: number;
  memoryGb: number;
}

const MIG_RESOURCE = /^nvidia\.com\/mig-(\d+)g\.(\d+)gb(\+me)?$/;
const MIG_IN_PRODUCT = /-MIG-(\d+)g\.(\d+)gb(\+me)?$/i;
/** The A30's MIG profiles (24 GB, 4 compute slices): 1g.6gb, 2g.12gb, 4g.24gb. */
const A30_MEMORY = new Set([6, 12, 24]);

export function migProfileOf(resource: string): MigProfile | null {
  const m = MIG_RESOURCE.exec(resource);
  return m ? { name: `${m[1]}g.${m[2]}gb${m[3] ?? ''}`, slices: Number(m[1]), memoryGb: Number(m[2]) } : null;
}

/** Compute slices of the device a profile runs on. */
export function deviceSlices(profile: MigProfile, product: string | null): number {
  if (product) return /\bA30\b/i.test(product.replace(/-/g, ' ')) ? 4 : 7;
  return A30_MEMORY.has(profile.memoryGb) && profile.slices <= 4 && profile.memoryGb === profile.slices * 6 ? 4 : 7;
}

export function nodeGpuInfo(labels: Record<string, string> | undefined | null): NodeGpuInfo {
  const l = labels ?? {};
  const replicas = Number(l['nvidia.com/gpu.replicas']);
  return {
    product: l['nvidia.com/gpu.product'] || null,
    replicas: Number.isInteger(replicas) && replicas > 1 ? replicas : null,
    migStrategy: l['nvidia.com/mig.strategy'] || null,
  };
}

// Asked for every GPU resource of every pod: remembered per node (by its info object) and resource.
const byNode = new WeakMap<NodeGpuInfo, Map<string, number | null>>();
const anywhere = new Map<string, number | null>();

/** One unit of `resource` in devices, on `node` when known; null when it cannot be converted. */
export function deviceWorth(resource: string, node: NodeGpuInfo | null): number | null {
  let memo = node ? byNode.get(node) : anywhere;
  if (!memo) byNode.set(node!, (memo = new Map()));
  const known = memo.get(resource);
  if (known !== undefined) return known;
  const w = computeWorth(resource, node);
  // Resource names come from objects: bound the memo for hostile variety.
  if (memo.size < 256) memo.set(resource, w);
  return w;
}

function computeWorth(resource: string, node: NodeGpuInfo | null): number | null {
  const mig = migProfileOf(resource);
  if (mig) return mig.slices / deviceSlices(mig, node?.product ?? null);
  if (resource === 'nvidia.com/gpu') {
    const single = node?.product ? MIG_IN_PRODUCT.exec(node.product) : null;
    if (single) {
      const p: MigProfile = { name: `${single[1]}g.${single[2]}gb`, slices: Number(single[1]), memoryGb: Number(single[2]) };
      return p.slices / deviceSlices(p, node!.product!.slice(0, single.index));
    }
    return node?.replicas ? 1 / node.replicas : 1;
  }
  if (resource === 'nvidia.com/gpu.shared') return node?.replicas ? 1 / node.replicas : null;
  if (resource === 'gpu.intel.com/millicores') return 1 / 1000;
  return 1;
}
