/**
 * Node types of the simulated cluster: 8× H100 nodes, A100 nodes (some partitioned with MIG, mixed
 * strategy), L4 inference nodes and CPU-only nodes, with the capacity, allocatable, labels (GPU feature
 * discovery's `nvidia.com/gpu.*`) and status a real node reports.
 */

import type { KubeObject, ObjectStore } from '../store/object-store.ts';

export type NodeType = 'h100' | 'a100' | 'a100-mig' | 'l4' | 'cpu';

interface NodeShape {
  prefix: string;
  instanceType: string;
  cpu: number;
  memoryGi: number;
  gpus: Record<string, number>;
  labels: Record<string, string>;
}

const SHAPES: Record<NodeType, NodeShape> = {
  h100: {
    prefix: 'gpu-h100',
    instanceType: 'p5.48xlarge',
    cpu: 192,
    memoryGi: 2048,
    gpus: { 'nvidia.com/gpu': 8 },
    labels: { 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3', 'nvidia.com/gpu.memory': '81559', 'nvidia.com/gpu.count': '8', 'nvidia.com/gpu.family': 'hopper' },
  },
  a100: {
    prefix: 'gpu-a100',
    instanceType: 'p4de.24xlarge',
    cpu: 96,
    memoryGi: 1152,
    gpus: { 'nvidia.com/gpu': 8 },
    labels: { 'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-80GB', 'nvidia.com/gpu.memory': '81920', 'nvidia.com/gpu.count': '8', 'nvidia.com/gpu.family': 'ampere' },
  },
  // Mixed MIG strategy: 4 whole GPUs, 2 GPUs as 7× 1g.10gb each, 2 GPUs as 2× 3g.40gb each.
  'a100-mig': {
    prefix: 'gpu-a100-mig',
    instanceType: 'p4de.24xlarge',
    cpu: 96,
    memoryGi: 1152,
    gpus: { 'nvidia.com/gpu': 4, 'nvidia.com/mig-1g.10gb': 14, 'nvidia.com/mig-3g.40gb': 4 },
    labels: {
      'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-80GB',
      'nvidia.com/gpu.memory': '81920',
      'nvidia.com/gpu.count': '4',
      'nvidia.com/gpu.family': 'ampere',
      'nvidia.com/mig.strategy': 'mixed',
      'nvidia.com/mig.config': 'custom-mixed',
      'nvidia.com/mig.config.state': 'success',
      'nvidia.com/mig-1g.10gb.count': '14',
      'nvidia.com/mig-3g.40gb.count': '4',
    },
  },
  l4: {
    prefix: 'gpu-l4',
    instanceType: 'g6.12xlarge',
    cpu: 48,
    memoryGi: 192,
    gpus: { 'nvidia.com/gpu': 4 },
    labels: { 'nvidia.com/gpu.product': 'NVIDIA-L4', 'nvidia.com/gpu.memory': '23034', 'nvidia.com/gpu.count': '4', 'nvidia.com/gpu.family': 'ada-lovelace' },
  },
  cpu: {
    prefix: 'cpu',
    instanceType: 'm6i.8xlarge',
    cpu: 32,
    memoryGi: 128,
    gpus: {},
    labels: {},
  },
};

export interface NodePool {
  type: NodeType;
  count: number;
  /** Taint GPU nodes `nvidia.com/gpu=present:NoSchedule` (GPU pods tolerate it via ExtendedResourceToleration). */
  taintGpu?: boolean;
}

const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];

/** The Node object of the `i`-th node of a type; `seq` is its position in the cluster (IPs, CIDRs). */
export function nodeObject(type: NodeType, i: number, seq: number, options: { taintGpu?: boolean; now?: string } = {}): KubeObject {
  const s = SHAPES[type];
  const name = `${s.prefix}-${String(i).padStart(2, '0')}`;
  const hasGpu = Object.keys(s.gpus).length > 0;
  // Reserved for system daemons: ~2% CPU, ~4% memory, as kubelet's kube-reserved typically leaves.
  const allocCpuMilli = s.cpu * 1000 - Math.max(100, Math.round(s.cpu * 20));
  const memKi = s.memoryGi * 1024 * 1024;
  const allocMemKi = memKi - Math.round(memKi * 0.04);
  const gpuStrings: Record<string, string> = {};
  for (const k in s.gpus) gpuStrings[k] = String(s.gpus[k]);
  const hi = Math.floor(seq / 250);
  const lo = (seq % 250) + 1;
  const ip = `10.0.${hi}.${lo}`;
  const cidrHi = 244 + Math.floor(seq / 256);
  const podCIDR = `10.${cidrHi}.${seq % 256}.0/24`;
  const t = options.now ?? '2026-01-01T00:00:00Z';
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'beta.kubernetes.io/arch': 'amd64',
        'node.kubernetes.io/instance-type': s.instanceType,
        'topology.kubernetes.io/region': 'us-east-1',
        'topology.kubernetes.io/zone': ZONES[seq % ZONES.length],
        // Node Feature Discovery's PCI vendor label (10de = NVIDIA), which the NIM operator's cache pods select by default.
        ...(hasGpu ? { 'feature.node.kubernetes.io/pci-10de.present': 'true', 'nvidia.com/gpu.present': 'true', 'nvidia.com/gpu.deploy.driver': 'true', 'nvidia.com/cuda.driver.major': '570' } : {}),
        ...s.labels,
      },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
    },
    spec: {
      podCIDR,
      podCIDRs: [podCIDR],
      providerID: `aws:///${ZONES[seq % ZONES.length]}/i-0${(0x1000000 + seq * 7919).toString(16)}`,
      ...(hasGpu && options.taintGpu ? { taints: [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }] } : {}),
    },
    status: {
      capacity: { cpu: String(s.cpu), memory: `${memKi}Ki`, pods: '110', 'ephemeral-storage': '512000000Ki', ...gpuStrings },
      allocatable: { cpu: `${allocCpuMilli}m`, memory: `${allocMemKi}Ki`, pods: '110', 'ephemeral-storage': '471859200000', ...gpuStrings },
      conditions: [
        { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', message: 'kubelet has sufficient memory available', lastHeartbeatTime: t, lastTransitionTime: t },
        { type: 'DiskPressure', status: 'False', reason: 'KubeletHasNoDiskPressure', message: 'kubelet has no disk pressure', lastHeartbeatTime: t, lastTransitionTime: t },
        { type: 'PIDPressure', status: 'False', reason: 'KubeletHasSufficientPID', message: 'kubelet has sufficient PID available', lastHeartbeatTime: t, lastTransitionTime: t },
        { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: t, lastTransitionTime: t },
      ],
      addresses: [
        { type: 'InternalIP', address: ip },
        { type: 'Hostname', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        architecture: 'amd64',
        bootID: `b00t${(seq * 2654435761 >>> 0).toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`,
        containerRuntimeVersion: 'containerd://1.7.27',
        kernelVersion: '6.1.134-150.224.amzn2023.x86_64',
        kubeProxyVersion: 'v1.32.4',
        kubeletVersion: 'v1.32.4',
        machineID: (seq * 40503 + 17).toString(16).padStart(32, '0'),
        operatingSystem: 'linux',
        osImage: 'Amazon Linux 2023.7.20250512',
        systemUUID: `ec2${(seq * 97 + 3).toString(16).padStart(5, '0')}-0000-4000-8000-000000000000`,
      },
    },
  };
}

/** Creates the nodes of the given pools; names are `<type prefix>-NN`, numbered per type. */
export function createNodes(store: ObjectStore, pools: NodePool[], now?: string): KubeObject[] {
  const out: KubeObject[] = [];
  const perType = new Map<NodeType, number>();
  let seq = store.list('v1', 'Node').length;
  for (const pool of pools) {
    for (let k = 0; k < pool.count; k++) {
      const i = perType.get(pool.type) ?? 0;
      perType.set(pool.type, i + 1);
      out.push(store.create(nodeObject(pool.type, i, seq++, { taintGpu: pool.taintGpu, now })));
    }
  }
  return out;
}
