import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EngineFailure } from './errors.ts';
import { bindCheckedExpression, bindExpression } from './expression.ts';

test('an expression that does not compile fails when bound, naming its field', () => {
  assert.throws(() => bindExpression('spec.x.replicasPath', '.spec.replicas //'), (e: unknown) => e instanceof EngineFailure && e.code === 'expression.compile' && e.path === 'spec.x.replicasPath');
});

test('a checked expression is parsed at its first evaluation; a source that does not compile fails there with the compile error and its field', () => {
  const ok = bindCheckedExpression('spec.x.replicasPath', '.spec.replicas // 1');
  assert.deepEqual(ok.run({ spec: {} }, 'Thing a/b'), [1]);
  const broken = bindCheckedExpression('spec.x.replicasPath', '.spec.replicas //');
  assert.throws(() => broken.run({}, 'Thing a/b'), (e: unknown) => e instanceof EngineFailure && e.code === 'expression.compile' && e.path === 'spec.x.replicasPath');
});

