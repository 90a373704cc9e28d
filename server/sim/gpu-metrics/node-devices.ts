/**
 * What GPUs a simulated node has, as the NVIDIA driver and device plugin present them (pure): physical
 * devices with their index, UUID, PCI bus id, model name and memory, and the schedulable units the
 * device plugin advertises for each extended resource — whole devices (`nvidia.com/gpu`), MIG instances
 * (`nvidia.com/mig-<profile>`, mixed strategy, or `nvidia.com/gpu` on a single-strategy node) and
 * time-sliced replicas (`nvidia.com/gpu.shared`, or `nvidia.com/gpu` with `nvidia.com/gpu.replicas`).
 * Everything is derived from the Node object, deterministically, so the exporter and the ground truth
 * name the same devices after a restart.
 */

import { createHash } from 'node:crypto';
import type { KubeObject } from '../store/object-store.ts';

export interface MigInstance {
  profile: string;
  /** GPU instance id (`GPU_I_ID`), as `nvidia-smi mig -lgi` numbers them. */
  instance: number;
  memoryMiB: number;
}

export interface GpuDevice {
  index: number;
  uuid: string;
  pciBusId: string;
  modelName: string;
  memoryMiB: number;
  /** MIG instances when the device is partitioned. */
  mig?: MigInstance[];
  /** Time-slicing replicas of this device, when shared. */
  replicas?: number;
}

/** One unit the device plugin hands to a container: a device, a MIG instance or a time-slice of a device. */
export interface DeviceUnit {
  resource: string;
  device: number;
  /** Index into the device's `mig` list. */
  mig?: number;
  /** Time-slicing replica number. */
  replica?: number;
}

export interface NodeDevices {
  node: string;
  devices: GpuDevice[];
  /** Units per extended resource, in the order the device plugin allocates them. */
  units: Map<string, DeviceUnit[]>;
  driverVersion: string;
  /** A key that changes when anything above would (layout recomputation on node updates). */
  key: string;
}

/** Memory of an 80 GB-class device when the node does not say (the H100 80GB HBM3's). */
export const DEFAULT_MEMORY_MIB = 81559;

/** DCGM's model names for the product labels GPU feature discovery writes (spaces became dashes there). */
const MODEL_NAMES: Record<string, string> = {
  'NVIDIA-H100-80GB-HBM3': 'NVIDIA H100 80GB HBM3',
  'NVIDIA-H200': 'NVIDIA H200',
  'NVIDIA-A100-SXM4-80GB': 'NVIDIA A100-SXM4-80GB',
  'NVIDIA-A100-SXM4-40GB': 'NVIDIA A100-SXM4-40GB',
  'NVIDIA-A100-80GB-PCIe': 'NVIDIA A100 80GB PCIe',
  'NVIDIA-A30': 'NVIDIA A30',
  'NVIDIA-L4': 'NVIDIA L4',
  'NVIDIA-L40S': 'NVIDIA L40S',
  'Tesla-T4': 'Tesla T4',
};

/** Full driver versions of the majors the simulated nodes report (`nvidia.com/cuda.driver.major`). */
const DRIVERS: Record<string, string> = { '535': '535.230.02', '550': '550.54.15', '560': '560.35.03', '570': '570.133.20', '575': '575.57.08' };

/** PCI bus numbers of the eight GPUs of a p5/p4de-class machine; others are spaced out from there. */
const PCI_BUSES = [0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb];

/** Device memory of a MIG profile, e.g. 1g.10gb → 9856 MiB (what the real instances report). */
const MIG_MEMORY: Record<string, number> = { '5gb': 4864, '6gb': 5836, '10gb': 9856, '12gb': 11968, '20gb': 19968, '24gb': 23680, '40gb': 40192, '80gb': 80896, '71gb': 71424, '94gb': 95232 };

export function modelNameOf(product: string | undefined): string {
  if (!product) return 'NVIDIA H100 80GB HBM3';
  const base = product.replace(/-SHARED$/, '').replace(/-MIG-\d+g\.\d+gb.*$/, '');
  return MODEL_NAMES[base] ?? base.replace(/-/g, ' ');
}

/** `GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` derived from the node name and index. */
export function gpuUuid(node: string, index: number): string {
  const h = createHash('sha256').update(`${node}/gpu/${index}`).digest('hex');
  return `GPU-${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export function pciBusIdOf(index: number): string {
  const bus = index < PCI_BUSES.length ? PCI_BUSES[index] : 0x07 + index * 0x10;
  return `00000000:${(bus & 0xff).toString(16).toUpperCase().padStart(2, '0')}:00.0`;
}

/** Compute slices of the device a MIG profile is carved from: 4 on an A30, 7 on A100/H100-class GPUs. */
function slicesOf(model: string): number {
  return /A30/.test(model) ? 4 : 7;
}

/** How many instances of a profile one device holds (1g.10gb: 7 on an A100; 3g.40gb: 2; 1g.20gb on H100: 4). */
export function instancesPerDevice(profile: string, model: string): number {
  const g = Number(/^(\d+)g\./.exec(profile)?.[1] ?? 1);
  const slices = slicesOf(model);
  if (/^1g\.(20|24)gb/.test(profile) && slices === 7) return 4;
  return Math.max(1, Math.floor(slices / Math.max(1, g)));
}

/** GPU instance ids of a profile's placements (the first ids nvidia-smi hands out for that size). */
function instanceIds(profile: string, model: string): number[] {
  const g = Number(/^(\d+)g\./.exec(profile)?.[1] ?? 1);
  const n = instancesPerDevice(profile, model);
  const first = slicesOf(model) === 4 ? ({ 4: 0, 2: 1, 1: 3 } as Record<number, number>)[g] ?? 0 : ({ 7: 0, 4: 1, 3: 1, 2: 3, 1: 7 } as Record<number, number>)[g] ?? 0;
  return Array.from({ length: n }, (_, i) => first + i);
}

export function migMemoryMiB(profile: string): number {
  const gb = /\.(\d+)gb/.exec(profile)?.[1];
  if (!gb) return 9856;
  return MIG_MEMORY[`${gb}gb`] ?? Math.round(Number(gb) * 1024 * 0.97);
}

function count(v: unknown): number {
  const n = typeof v === 'number' ? v : Number(String(v ?? '0'));
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

function driverVersionOf(labels: Record<string, string>): string {
  const major = labels['nvidia.com/cuda.driver.major'];
  const minor = labels['nvidia.com/cuda.driver.minor'];
  const rev = labels['nvidia.com/cuda.driver.rev'];
  if (major && minor) return `${major}.${minor}${rev ? `.${rev}` : ''}`;
  return (major && DRIVERS[major]) ?? DRIVERS['550'];
}

/** Pure: the GPUs of a node, or undefined when it advertises no NVIDIA GPU resource. */
export function nodeDevices(node: KubeObject): NodeDevices | undefined {
  const name = node.metadata.name!;
  const labels = node.metadata.labels ?? {};
  const status = (node.status ?? {}) as { capacity?: Record<string, string | number> };
  const capacity = status.capacity ?? {};
  // Sorted, whole devices come first (`nvidia.com/gpu` < `nvidia.com/mig-…`), as nvidia-smi lists a mixed
  // node's unpartitioned GPUs before its MIG-enabled ones.
  const resources = Object.keys(capacity).filter((r) => (r === 'nvidia.com/gpu' || r === 'nvidia.com/gpu.shared' || r.startsWith('nvidia.com/mig-')) && count(capacity[r]) > 0).sort();
  if (resources.length === 0) return undefined;
  const model = modelNameOf(labels['nvidia.com/gpu.product']);
  const memory = count(labels['nvidia.com/gpu.memory']) || DEFAULT_MEMORY_MIB;
  const replicas = count(labels['nvidia.com/gpu.replicas']);
  const single = labels['nvidia.com/mig.strategy'] === 'single' ? /-MIG-(\d+g\.\d+gb)/.exec(labels['nvidia.com/gpu.product'] ?? '')?.[1] : undefined;
  const devices: GpuDevice[] = [];
  const units = new Map<string, DeviceUnit[]>();
  const device = (extra: Partial<GpuDevice> = {}): GpuDevice => {
    const index = devices.length;
    const d: GpuDevice = { index, uuid: gpuUuid(name, index), pciBusId: pciBusIdOf(index), modelName: model, memoryMiB: memory, ...extra };
    devices.push(d);
    return d;
  };
  const migDevices = (resource: string, profile: string, n: number): void => {
    const per = instancesPerDevice(profile, model);
    const ids = instanceIds(profile, model);
    const list: DeviceUnit[] = [];
    for (let made = 0; made < n; ) {
      const take = Math.min(per, n - made);
      const d = device({ mig: ids.slice(0, take).map((instance) => ({ profile, instance, memoryMiB: migMemoryMiB(profile) })) });
      for (let k = 0; k < take; k++) list.push({ resource, device: d.index, mig: k });
      made += take;
    }
    units.set(resource, list);
  };
  for (const r of resources) {
    const n = count(capacity[r]);
    if (r.startsWith('nvidia.com/mig-')) migDevices(r, r.slice('nvidia.com/mig-'.length), n);
    else if (single && r === 'nvidia.com/gpu') migDevices(r, single, n);
    else if (r === 'nvidia.com/gpu.shared' || replicas > 1) {
      const per = Math.max(1, replicas);
      const list: DeviceUnit[] = [];
      for (let made = 0; made < n; ) {
        const d = device({ replicas: per });
        for (let k = 0; k < per && made < n; k++, made++) list.push({ resource: r, device: d.index, replica: k });
      }
      units.set(r, list);
    } else {
      const list: DeviceUnit[] = [];
      for (let k = 0; k < n; k++) list.push({ resource: r, device: device().index });
      units.set(r, list);
    }
  }
  const driverVersion = driverVersionOf(labels);
  const key = JSON.stringify([resources.map((r) => [r, capacity[r]]), model, memory, replicas, single ?? '', driverVersion]);
  return { node: name, devices, units, driverVersion, key };
}
