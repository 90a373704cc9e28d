import assert from 'node:assert/strict';
import { test } from 'node:test';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalogDir, loadCatalogFile } from '../catalog/index.ts';
import { parseDocuments, pickRoot, resolveWorkload, type KubeObject } from '../engine/index.ts';
import { buildCatalogCache, lazyCatalog } from './catalog-cache.ts';

test('the cached catalog (expressions parsed at first use) resolves every catalog fixture exactly as the catalog read from its files', () => {
  const cache = buildCatalogCache('test-build');
  const lazy = lazyCatalog({ cache });
  const fromCache = lazy.entriesFor();
  assert.deepEqual(lazy.parsed, [], 'no catalog file is parsed when the cache has it');
  assert.ok(Object.values(cache.files).every((f) => f.compiles === true), 'every catalog file compiles in the build');
  let compared = 0;
  for (const entry of fromCache) {
    const fresh = loadCatalogFile(entry.file).find((e) => e.name === entry.name);
    assert.ok(entry.compiled && fresh?.compiled, entry.name);
    const dir = join(catalogDir(), 'fixtures', entry.name);
    if (!existsSync(dir)) continue;
    for (const fixture of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
      const objects = parseDocuments(readFileSync(join(dir, fixture), 'utf8'), fixture).documents.map((d) => d.value as KubeObject);
      const root = pickRoot(objects, [fresh.compiled]);
      if (!root) continue;
      assert.deepEqual(resolveWorkload(entry.compiled, root, objects), resolveWorkload(fresh.compiled, root, objects), `${entry.name}/${fixture}`);
      compared++;
    }
  }
  assert.ok(compared >= 90, `only ${compared} fixtures compared`);
});

test('a file the build could not compile is compiled when read, its errors reported as without a cache', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmap-catalog-cache-'));
  try {
    const good = readFileSync(join(catalogDir(), 'batch-job-v1.yaml'), 'utf8');
    const file = join(dir, 'batch-job-v1.yaml');
    writeFileSync(file, good.replace(/replicasPath: .*/, 'replicasPath: .spec.parallelism //'));
    const cache = buildCatalogCache('test-build', dir);
    assert.equal(Object.values(cache.files)[0].compiles, false);
    const [entry] = lazyCatalog({ dir, cache }).entriesFor();
    assert.equal(entry.compiled, null);
    assert.ok(entry.errors.length > 0);
    assert.deepEqual(entry.errors, loadCatalogFile(file)[0].errors);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
