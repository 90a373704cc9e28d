/**
 * The CEL filter box's help: the variables an expression reads (as lib/rows/cel-filter.ts gives them
 * from the row) and examples that work as written. `gpus.byResource` is by figure, then by resource
 * (`{allocated|requested|desired: {resource: n}}`); a workload that holds none of a resource has no
 * key for it, so the examples read it with CEL's optional index (`[?…].orValue(0)`) instead of
 * failing on those rows. The examples are checked against rows in cel-help.test.ts.
 */

export interface CelHelpItem {
  code: string;
  text?: string;
}

export const CEL_HELP_VARIABLES: readonly CelHelpItem[] = [
  { code: 'name' },
  { code: 'ns', text: 'namespace' },
  { code: 'kind' },
  { code: 'cluster' },
  { code: 'status' },
  { code: 'gpus.allocated|requested|desired', text: 'devices' },
  { code: 'gpus.byResource.allocated|requested|desired', text: 'maps of resource name to amount' },
  { code: 'pods.ready|total' },
  { code: 'pods.done', text: 'only when some finished: has(pods.done)' },
  { code: 'roles', text: 'list of {name, pods, desired}' },
  { code: 'utilization', text: 'percent, null without readings' },
  { code: 'idleGpus' },
  { code: 'usage' },
  { code: 'age', text: 'seconds' },
  { code: 'createdAt' },
  { code: 'now' },
  { code: 'self', text: 'the whole row' },
];

export const CEL_HELP_EXAMPLES: readonly CelHelpItem[] = [
  { code: 'gpus.allocated >= 8 && status == "Running"' },
  { code: 'gpus.byResource.allocated[?"nvidia.com/gpu"].orValue(0) > 2', text: 'more than 2 whole GPUs allocated' },
  { code: 'gpus.byResource.requested.exists(r, r.startsWith("nvidia.com/mig-"))', text: 'asks for MIG slices' },
  { code: 'roles.exists(r, r.pods < r.desired)', text: 'a role short of pods' },
  { code: 'utilization != null && utilization < 10' },
];
