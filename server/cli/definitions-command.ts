/**
 * `wmap definitions [-o wide|json|yaml] [--all-contexts]`: the catalog's and each cluster's own
 * definitions, per cluster (the current context, `--context`, or every context): which one serves
 * each root kind and version (the source that wins), which catalog definition a cluster definition
 * overrides, the state of the `kartas.run.ai` CRD, and Kartas whose run.ai/karta-* labels do not
 * match their root kind. Reads once with the kubeconfig's identity; changes nothing.
 */
import { stringify } from 'yaml';
import { loadCatalog } from '../catalog/index.ts';
import { LiveWorkloads } from '../workloads/index.ts';
import { clusterRegistry, readClusterDefinitions, rootText, type ClusterRegistry, type DefinitionListing } from '../workloads/karta-registry.ts';
import { openContexts } from './apply-command.ts';
import { UsageError, type Io } from './offline.ts';
import { table } from './text-table.ts';

export interface DefinitionsFlags {
  kubeconfig?: string;
  context?: string;
  allContexts?: boolean;
  output?: string;
}

function stateText(d: DefinitionListing): string {
  if (d.state === 'invalid') return 'invalid';
  if (d.state === 'shadowed') return `shadowed by ${d.shadowedBy!.source} ${d.shadowedBy!.name}`;
  return d.overrides.length ? `serves (overrides catalog ${d.overrides.join(', ')})` : 'serves';
}

function labelsText(d: DefinitionListing): string {
  return d.labels ? (d.labels.state === 'no-root-kind' ? '-' : d.labels.state) : '-';
}

/** Root kind, then version, then the winner first. */
function ordered(defs: DefinitionListing[]): DefinitionListing[] {
  const rank = { serves: 0, shadowed: 1, invalid: 2 } as const;
  return [...defs].sort((a, b) => rootText(a.root).localeCompare(rootText(b.root)) || (a.root?.version ?? '').localeCompare(b.root?.version ?? '') || rank[a.state] - rank[b.state] || a.name.localeCompare(b.name));
}

function crdLine(r: ClusterRegistry): string {
  const served = r.crd.servedVersions.length ? ` (serves ${r.crd.servedVersions.join(', ')})` : '';
  const extra = r.resourceInterfaceServed ? '; resourceinterfaces.optimization.nvidia.com is served too' : '';
  const hint = r.crd.state === 'missing' ? ' (wmap apply --install-crd installs it)' : r.crd.state === 'older' ? ' (wmap apply --install-crd upgrades it)' : '';
  return `CRD kartas.run.ai: ${r.crd.state}${served}: ${r.crd.summary}${hint}${extra}`;
}

function printCluster(r: ClusterRegistry, wide: boolean, io: Io): void {
  io.out(`Cluster ${r.cluster}`);
  io.out(crdLine(r));
  const head = wide ? ['ROOT KIND', 'VERSION', 'DEFINITION', 'SOURCE', 'KIND', 'COMPONENTS', 'LABELS', 'CREATED', 'STATE'] : ['ROOT KIND', 'VERSION', 'DEFINITION', 'SOURCE', 'STATE'];
  const rows = ordered(r.definitions).map((d) => {
    const base = [rootText(d.root), d.root?.version ?? '-', d.name, d.source];
    return wide ? [...base, d.kind, String(d.components), labelsText(d), d.createdAt ?? '-', stateText(d)] : [...base, stateText(d)];
  });
  for (const line of table([head, ...rows])) io.out(line);
  const invalid = r.definitions.filter((d) => d.state === 'invalid');
  if (wide) for (const d of invalid) for (const e of d.errors) io.out(`invalid ${d.source} ${d.name}: ${e}`);
  if (r.labelMismatches.length) {
    io.out('Label mismatches (KAI Scheduler selects definitions by run.ai/karta-group, run.ai/karta-version and run.ai/karta-kind):');
    for (const m of r.labelMismatches) io.out(`  karta/${m.name}: ${m.check.message}`);
  }
  for (const p of r.problems) io.out(`Problem: ${p}`);
}

export async function cmdDefinitions(flags: DefinitionsFlags, io: Io): Promise<number> {
  const output = flags.output ?? '';
  if (!['', 'wide', 'json', 'yaml'].includes(output)) throw new UsageError(`unknown output format "${output}" (wide, json or yaml)`);
  const catalog = LiveWorkloads.catalogEntries(loadCatalog());
  const contexts = openContexts(flags, flags.allContexts === true);
  const registries: ClusterRegistry[] = [];
  let unreachable = 0;
  try {
    for (const { config, connection } of contexts) {
      try {
        registries.push(clusterRegistry(await readClusterDefinitions(config.name, connection.as(null)), catalog));
      } catch (e) {
        unreachable++;
        const message = e instanceof Error ? e.message : String(e);
        const r = clusterRegistry({ cluster: config.name, crd: { state: 'unknown', servedVersions: [], storageVersion: null, established: null, resourceVersion: null, missingFields: [], extraFields: [], differences: [], summary: `the cluster could not be read: ${message}` }, resourceInterfaceServed: false, kartas: null, resourceInterfaces: null, problems: [`the cluster could not be read: ${message}`] }, catalog);
        registries.push(r);
      }
    }
  } finally {
    for (const c of contexts) c.connection.stop();
  }
  if (output === 'json') io.out(JSON.stringify(registries, null, 2));
  else if (output === 'yaml') io.out(stringify(registries, { lineWidth: 0 }).trimEnd());
  else registries.forEach((r, i) => {
    if (i > 0) io.out('');
    printCluster(r, output === 'wide', io);
  });
  return unreachable === 0 ? 0 : 1;
}
