/**
 * How well drafting works, measured on every catalog framework: for each fixture, the catalog definition
 * is hidden, a definition is drafted from the fixture's objects, both resolve the same objects, and the
 * trees are compared where a definition decides them — the partition of pods into roles (names may
 * differ), each role's desired pods, every pod placed, and the GPU totals desired / requested / allocated.
 * Status is shown but not counted (the draft sees one state of each workload). Prints the table; reads
 * catalog/ directly so that the engine keeps importing no other server module.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { checkDefinition, compileDefinition, loadDefinitionsFromText, ownedClosure, parseDocuments, pickRoot, resolveWorkload, type KubeObject, type WorkloadTree } from '../index.ts';
import { draftDefinition } from './draft.ts';

const catalog = fileURLToPath(new URL('../../../catalog/', import.meta.url));

/** Roles as sets of pods with their desired count; roles that want nothing and have nothing are no role. */
function roleShape(tree: WorkloadTree): string[] {
  return tree.roles
    .map((r) => ({ pods: tree.pods.filter((p) => p.component === r.component && p.instance === r.instance).map((p) => p.name).sort(), desired: r.desiredPods }))
    .filter((r) => r.desired > 0 || r.pods.length > 0)
    .map((r) => JSON.stringify(r))
    .sort();
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;
const gpuText = (t: WorkloadTree) => `${round(t.gpus.desired.total)}/${round(t.gpus.requested.total)}/${round(t.gpus.allocated.total)}`;

/** What differs between the catalog's tree and the draft's, in words; empty when the draft is right. */
export function differences(want: WorkloadTree, got: WorkloadTree): string[] {
  const out: string[] = [];
  const unplaced = [...got.unmatchedPods.map((p) => p.name), ...got.pods.filter((p) => p.instance === null).map((p) => p.name)];
  if (unplaced.length > 0) out.push(`unplaced pods: ${unplaced.length}`);
  const a = roleShape(want);
  const b = roleShape(got);
  if (JSON.stringify(a) !== JSON.stringify(b)) {
    const partition = (x: string[]) => JSON.stringify(x.map((r) => (JSON.parse(r) as { pods: string[] }).pods).sort());
    if (partition(a) !== partition(b)) out.push(`roles: ${want.roles.length} → ${got.roles.length}, pods split differently`);
    else out.push(`desired pods: ${want.roles.map((r) => r.desiredPods).join(',')} → ${got.roles.map((r) => r.desiredPods).join(',')}`);
  }
  if (gpuText(want) !== gpuText(got)) out.push(`GPUs ${gpuText(want)} → ${gpuText(got)}`);
  if (got.errors.length > 0) out.push(`errors: ${got.errors[0].message}`);
  return out;
}

test('drafting on every catalog framework, catalog definition hidden: roles, replicas, pods placed and GPUs against the catalog', (t) => {
  const rows: Array<{ slug: string; ok: number; total: number; first: string; status: string }> = [];
  let fixturesOk = 0;
  let fixtures = 0;
  for (const file of readdirSync(catalog).filter((f) => f.endsWith('.yaml')).sort()) {
    const slug = file.replace(/\.yaml$/, '');
    const dir = join(catalog, 'fixtures', slug);
    if (!existsSync(dir)) continue;
    const { definitions } = loadDefinitionsFromText(readFileSync(join(catalog, file), 'utf8'), file, 'catalog');
    const hidden = compileDefinition(definitions[0]).compiled!;
    const row = { slug, ok: 0, total: 0, first: '', status: '' };
    let statusSame = 0;
    for (const fixture of readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
      const objects = parseDocuments(readFileSync(join(dir, fixture), 'utf8'), fixture).documents.map((d) => d.value as KubeObject);
      const root = pickRoot(objects, [hidden])!;
      const owned = ownedClosure(root, objects);
      const draft = draftDefinition(root, owned);
      // The draft must pass our own validator, exactly as written out.
      const reread = loadDefinitionsFromText(draft.yaml, `${slug}/${fixture}`, 'file');
      assert.deepEqual(reread.errors, [], `${slug}/${fixture}`);
      const checked = checkDefinition(draft.definition, 'file', `${slug}/${fixture}`);
      assert.deepEqual(checked.errors.map((e) => e.message), [], `${slug}/${fixture}:\n${draft.yaml}`);
      const compiled = compileDefinition(reread.definitions[0]).compiled;
      assert.ok(compiled, `${slug}/${fixture}: the draft does not compile`);
      const want = resolveWorkload(hidden, root, objects);
      const got = resolveWorkload(compiled, root, objects);
      const diff = differences(want, got);
      row.total++;
      fixtures++;
      if (diff.length === 0) {
        row.ok++;
        fixturesOk++;
      } else if (!row.first) row.first = `${fixture.replace(/\.yaml$/, '')}: ${diff.join('; ')}`;
      if (JSON.stringify(want.status.matched) === JSON.stringify(got.status.matched)) statusSame++;
    }
    row.status = `${statusSame}/${row.total}`;
    rows.push(row);
  }
  const frameworksOk = rows.filter((r) => r.ok === r.total).length;
  const width = Math.max(...rows.map((r) => r.slug.length));
  const lines = [
    `${'framework'.padEnd(width)}  fixtures  status  first difference`,
    ...rows.map((r) => `${r.slug.padEnd(width)}  ${`${r.ok}/${r.total}`.padEnd(8)}  ${r.status.padEnd(6)}  ${r.first || (r.ok === r.total ? 'none' : '')}`),
    `${frameworksOk} of ${rows.length} frameworks draft correctly with no edit on every fixture; ${fixturesOk} of ${fixtures} fixtures`,
  ];
  for (const l of lines) t.diagnostic(l);
  assert.ok(rows.length >= 19, 'every catalog framework has fixtures');
  // The measured level (the README's and the report's figure): a change that drafts worse fails here.
  assert.ok(frameworksOk >= 16 && fixturesOk >= 86, lines.join('\n'));
});
