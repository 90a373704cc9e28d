/**
 * The engine's public surface: definitions in, workload trees and patches out. Pure — no network,
 * no filesystem, no clock.
 */
export type { EngineError } from './errors.ts';
export { engineError, EngineFailure } from './errors.ts';
export type * from './tree.ts';
export { STATUS_ORDER } from './tree.ts';
export type { Definition, ComponentDefinition } from './definition/types.ts';
export { KARTA_API_VERSION, RESOURCE_INTERFACE_API_VERSION } from './definition/types.ts';
export { loadDefinitionsFromText, checkDefinition, isDefinitionDocument, type LoadedDefinition } from './definition/load.ts';
export { compileDefinition, type CompileOptions, type CompiledDefinition, type CompiledComponent } from './definition/compile.ts';
export { parseDocuments, type SourcedDocument } from './documents.ts';
export type { KubeObject } from './k8s.ts';
export { apiGroupOf, describeObject, isPod, podIsFinished } from './k8s.ts';
export { resolveWorkload, emptyTree, type ResolveOptions } from './resolve/resolve.ts';
export { ownedClosure } from './resolve/ownership.ts';
export { resolveWithoutDefinition, statusFromPods, NO_DEFINITION } from './resolve/generic.ts';
export { ownerMismatch, ownerRefsOf, refText, validOwner, type OwnerReference } from './owner-rules.ts';
export { DEFAULT_GPU_RESOURCES, gpuResourceMatcher, podSpecGpus, sumAmounts, type GpuResourceMatcher } from './gpu.ts';
export { parseQuantity } from './quantity.ts';
export { planComponentUpdate, planPodTemplateUpdate, planSuspend, templateContainers, qualifiedNameProblem, labelValueProblem, type ContainerChanges, type PodTemplateChanges, type PlannedPatch, type TemplateTarget } from './updates.ts';
export { applyJsonPatch, type JsonPatchOp } from './json-patch.ts';
export { subtreeScale } from './gang.ts';
export { compileCel, checkCel, type CelProgram } from './cel.ts';
export { compileJq, checkExpression, jqToString, recordParsedTrees, useParsedTrees, type JqProgram } from './jq/index.ts';
export { pickRoot, definitionForRoot } from './pick-root.ts';
export { podWhy, podController } from './pod-why.ts';
export { draftDefinition, definitionSlug, type DraftResult, type DraftGuess } from './draft/draft.ts';
