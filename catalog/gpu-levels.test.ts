/**
 * For every catalog fixture: the GPUs the tree reports at each level add up. Components (with the
 * unmatched pods) sum to the workload; a pod-bearing component's instances sum to the component.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import type { GpuFigures, GpuTotal } from '../contract/index.ts';
import { resolveFixture } from './testing.ts';

const fixtures = fileURLToPath(new URL('./fixtures', import.meta.url));
const LEVELS = ['desired', 'requested', 'allocated'] as const;
const close = (a: number, b: number) => Math.abs(a - b) < 1e-9;

function sum(list: readonly GpuTotal[]): GpuTotal {
  const out: GpuTotal = { total: 0, byResource: {} };
  for (const t of list) {
    out.total += t.total;
    for (const [k, v] of Object.entries(t.byResource)) out.byResource[k] = (out.byResource[k] ?? 0) + v;
  }
  return out;
}

function assertSame(actual: GpuTotal, expected: GpuTotal, where: string): void {
  assert.ok(close(actual.total, expected.total), `${where}: ${actual.total} ≠ ${expected.total}`);
  for (const k of new Set([...Object.keys(actual.byResource), ...Object.keys(expected.byResource)])) {
    assert.ok(close(actual.byResource[k] ?? 0, expected.byResource[k] ?? 0), `${where} ${k}`);
  }
}

test('every fixture: component and instance GPUs add up to the workload', () => {
  let checked = 0;
  for (const slug of readdirSync(fixtures)) {
    for (const file of readdirSync(join(fixtures, slug)).filter((f) => f.endsWith('.yaml'))) {
      const where = `${slug}/${file}`;
      const tree = resolveFixture(slug, file.replace(/\.yaml$/, ''));
      const parts: GpuFigures[] = [...tree.components.map((c) => c.gpus), tree.unmatchedGpus];
      for (const l of LEVELS) assertSame(sum(parts.map((f) => f[l])), tree.gpus[l], `${where} ${l}`);
      assert.equal(tree.unmatchedGpus.desired.total, 0, where);
      for (const c of tree.components) {
        if (!c.hasPodDefinition) {
          assert.equal(c.gpus.desired.total, 0, `${where} ${c.name}`);
          continue;
        }
        assertSame(sum(c.instances.map((i) => i.gpus.desired)), c.gpus.desired, `${where} ${c.name} desired`);
        // Pods a component claims without an instance count at the component only.
        const placed = tree.pods.filter((p) => p.component === c.name && p.instance === null).length;
        if (placed === 0) for (const l of ['requested', 'allocated'] as const) assertSame(sum(c.instances.map((i) => i.gpus[l])), c.gpus[l], `${where} ${c.name} ${l}`);
      }
      checked++;
    }
  }
  assert.ok(checked >= 50, `only ${checked} fixtures`);
});
