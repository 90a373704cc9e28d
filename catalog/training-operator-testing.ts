/**
 * Helpers for the training-operator v1 catalog tests (TFJob, XGBoostJob, JAXJob, PaddleJob): editing a
 * job's objects in memory (a variant the operator also produces, e.g. a job without its lead type).
 */
import type { KubeObject } from '../server/engine/index.ts';

export const isPod = (o: KubeObject): boolean => o.kind === 'Pod';
export const nameOf = (o: KubeObject): string | undefined => o.metadata?.name;
export const labelsOf = (o: KubeObject): Record<string, string> => ((o.metadata ??= {}).labels ??= {});
export function rename(o: KubeObject, name: string): void {
  (o.metadata ??= {}).name = name;
}
/** The replica specs map of a training job's spec. */
export const specsOf = (o: KubeObject, field: string): Record<string, unknown> => (o.spec as Record<string, Record<string, unknown>>)[field];
