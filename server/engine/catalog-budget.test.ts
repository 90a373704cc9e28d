/**
 * The jq budgets against the catalog: every catalog definition resolves every one of its fixtures without
 * errors, and the most steps and bytes any single evaluation needs stay at least 100 times below the
 * defaults (the margin DEFAULT_JQ_LIMITS was chosen with). Reads catalog/ directly so that the engine keeps
 * importing no other server module.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { compileDefinition, loadDefinitionsFromText, parseDocuments, pickRoot, resolveWorkload, type KubeObject } from './index.ts';
import { DEFAULT_JQ_LIMITS, jqPeakUsage, resetJqPeakUsage } from './jq/index.ts';

const catalog = fileURLToPath(new URL('../../catalog/', import.meta.url));

test('every catalog fixture resolves within 1/100 of the default jq budgets', (t) => {
  let resolved = 0;
  const peak = { steps: 0, bytes: 0 };
  for (const file of readdirSync(catalog).filter((f) => f.endsWith('.yaml')).sort()) {
    const slug = file.replace(/\.yaml$/, '');
    const { definitions, errors } = loadDefinitionsFromText(readFileSync(join(catalog, file), 'utf8'), file, 'catalog');
    assert.deepEqual(errors, [], file);
    const { compiled, errors: compileErrors } = compileDefinition(definitions[0]);
    assert.ok(compiled, `${file}: ${compileErrors.map((e) => e.message).join('\n')}`);
    const dir = join(catalog, 'fixtures', slug);
    if (!existsSync(dir)) continue;
    resetJqPeakUsage();
    for (const fixture of readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
      const { documents, errors: docErrors } = parseDocuments(readFileSync(join(dir, fixture), 'utf8'), fixture);
      assert.deepEqual(docErrors, [], fixture);
      const objects = documents.map((d) => d.value as KubeObject);
      const root = pickRoot(objects, [compiled]);
      if (!root) continue;
      const tree = resolveWorkload(compiled, root, objects);
      // fixtures of broken objects carry their errors on purpose (the catalog tests check them); none may be a budget
      for (const e of tree.errors) assert.doesNotMatch(e.message, /budget|exceeded/, `${slug}/${fixture}: ${e.message}`);
      resolved++;
    }
    const used = jqPeakUsage();
    t.diagnostic(`${slug}: at most ${used.steps} steps, ${used.bytes} bytes per evaluation`);
    peak.steps = Math.max(peak.steps, used.steps);
    peak.bytes = Math.max(peak.bytes, used.bytes);
  }
  t.diagnostic(`${resolved} fixtures; peak per evaluation ${peak.steps} steps, ${peak.bytes} bytes; budgets ${DEFAULT_JQ_LIMITS.maxSteps} steps, ${DEFAULT_JQ_LIMITS.maxBytes} bytes`);
  assert.ok(resolved >= 80, `resolved ${resolved} fixtures`);
  assert.ok(peak.steps > 0 && peak.steps * 100 <= DEFAULT_JQ_LIMITS.maxSteps, `peak ${peak.steps} steps vs budget ${DEFAULT_JQ_LIMITS.maxSteps}`);
  assert.ok(peak.bytes * 100 <= DEFAULT_JQ_LIMITS.maxBytes, `peak ${peak.bytes} bytes vs budget ${DEFAULT_JQ_LIMITS.maxBytes}`);
});
