/**
 * GPU metrics of the simulated cluster: which pod holds which GPU of a node (device-tracker), how busy it
 * keeps it (load-model), the DCGM exporter pods that report it (dcgm-exporter, exposition) and the ground
 * truth a consumer's readings can be checked against (gpu-usage). Public surface of the folder.
 */

export { DeviceTracker, deviceTrackerFor, gpuAsks, stopDeviceTracker } from './device-tracker.ts';
export type { Held, Holder, NodeGpus } from './device-tracker.ts';
export { BUCKET_MS, BUSY_THEN_IDLE_MS, LOAD_LABEL, LOAD_PROFILES, bucketOf, isLoadProfile, loadAt, profileOf } from './load-model.ts';
export type { Load, LoadProfile } from './load-model.ts';
export { DEFAULT_MEMORY_MIB, gpuUuid, migMemoryMiB, modelNameOf, nodeDevices, pciBusIdOf } from './node-devices.ts';
export type { DeviceUnit, GpuDevice, MigInstance, NodeDevices } from './node-devices.ts';
export { groundTruthUsage, nodeUsage } from './gpu-usage.ts';
export type { GroundTruth, GroundTruthGpu, UnitUsage } from './gpu-usage.ts';
export { EXPOSITION_CONTENT_TYPE, escapeLabelValue, renderExposition } from './exposition.ts';
export { DCGM_LABELS, DCGM_NAME, DCGM_NAMESPACE, DCGM_PORT, dcgmExporterObjects, dcgmPodServer, installDcgmExporter, isDcgmExporterPod } from './dcgm-exporter.ts';
