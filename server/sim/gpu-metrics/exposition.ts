/**
 * The DCGM exporter's `/metrics` answer (pure): the Prometheus text exposition format 0.0.4 with the
 * exporter's default counters, one sample per unit, no timestamps, and the labels the real exporter
 * sets — `gpu`, `UUID`, `pci_bus_id`, `device`, `modelName`, `GPU_I_PROFILE`/`GPU_I_ID` for MIG instances,
 * `Hostname`, `DCGM_FI_DRIVER_VERSION`, and `container`/`namespace`/`pod` only where a pod holds the unit.
 * GPU utilization is a device-level field DCGM does not report for MIG instances, so they have none.
 */

import type { UnitUsage } from './gpu-usage.ts';

export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

interface Metric {
  name: string;
  help: string;
  /** The sample value, or undefined to leave the unit out of this metric. */
  value: (u: UnitUsage) => number | undefined;
}

const METRICS: Metric[] = [
  { name: 'DCGM_FI_DEV_GPU_TEMP', help: 'GPU temperature (in C).', value: (u) => u.temperatureC },
  { name: 'DCGM_FI_DEV_POWER_USAGE', help: 'Power draw (in W).', value: (u) => u.powerW },
  { name: 'DCGM_FI_DEV_GPU_UTIL', help: 'GPU utilization (in %).', value: (u) => (u.mig ? undefined : u.utilization) },
  { name: 'DCGM_FI_DEV_FB_FREE', help: 'Framebuffer memory free (in MiB).', value: (u) => u.memoryTotalMiB - u.memoryUsedMiB },
  { name: 'DCGM_FI_DEV_FB_USED', help: 'Framebuffer memory used (in MiB).', value: (u) => u.memoryUsedMiB },
  { name: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE', help: 'Ratio of time the graphics engine is active.', value: (u) => u.utilization / 100 },
];

/** A label value as the text format wants it: backslash, double quote and newline escaped. */
export function escapeLabelValue(v: string): string {
  return /[\\"\n]/.test(v) ? v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n') : v;
}

function labelsOf(u: UnitUsage, driverVersion: string): string {
  let s = `gpu="${u.gpu}",UUID="${u.uuid}",pci_bus_id="${u.pciBusId}",device="nvidia${u.gpu}",modelName="${escapeLabelValue(u.modelName)}"`;
  if (u.mig) s += `,GPU_I_PROFILE="${escapeLabelValue(u.mig.profile)}",GPU_I_ID="${u.mig.instance}"`;
  s += `,Hostname="${escapeLabelValue(u.node)}",DCGM_FI_DRIVER_VERSION="${escapeLabelValue(driverVersion)}"`;
  if (u.pod !== null) s += `,container="${escapeLabelValue(u.container ?? '')}",namespace="${escapeLabelValue(u.namespace ?? '')}",pod="${escapeLabelValue(u.pod)}"`;
  return s;
}

/** Pure: the exposition text for a node's units. */
export function renderExposition(units: readonly UnitUsage[], driverVersion: string): string {
  const labels = units.map((u) => labelsOf(u, driverVersion));
  const parts: string[] = [];
  for (const m of METRICS) {
    parts.push(`# HELP ${m.name} ${m.help}\n# TYPE ${m.name} gauge\n`);
    for (let i = 0; i < units.length; i++) {
      const v = m.value(units[i]);
      if (v !== undefined) parts.push(`${m.name}{${labels[i]}} ${v}\n`);
    }
  }
  return parts.join('');
}
