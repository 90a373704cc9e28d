import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EngineFailure, describeError, engineError } from './errors.ts';

test('engine failures turn into error values with code and path', () => {
  const f = new EngineFailure('definition.invalid', 'component name is empty', 'spec.structureDefinition.rootComponent.name');
  assert.deepEqual(f.toValue(), engineError('definition.invalid', 'component name is empty', 'spec.structureDefinition.rootComponent.name'));
  assert.equal(describeError(f), 'component name is empty');
  assert.equal(describeError('plain'), 'plain');
});
