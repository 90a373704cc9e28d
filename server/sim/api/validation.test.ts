/** The pure pieces of the API server's validation: Go renderings, quantities, names, body scans. */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { pathKey, scanJson, yamlDepthError } from './json-scan.ts';
import { MAX_REQUEST_BODY_BYTES, readRawBody } from './request-body.ts';
import { goDecodeError, goTypeOf } from './validation/builtin-types.ts';
import { goFloat, goNumber, goQuote, goSharpV } from './validation/go-format.ts';
import { isDNS1123Label, isQualifiedName, isValidLabelValue } from './validation/names.ts';
import { compareQuantities, ERR_FORMAT_WRONG, ERR_SUFFIX, isNotWholeForValidation, parseQuantity, quantityString } from './validation/quantity.ts';
import type { Quantity } from './validation/quantity.ts';
import { prune, validateAgainstSchema } from './validation/schema.ts';

function qty(s: string): Quantity {
  const v = parseQuantity(s);
  assert.notEqual(typeof v, 'string', s);
  return v as Quantity;
}

test('Go renders numbers as the int64 or float64 it decoded', () => {
  assert.equal(goNumber(1e15), '1000000000000000');
  assert.equal(goNumber(1e15, '1e15'), '1e+15');
  assert.equal(goNumber(1.5), '1.5');
  assert.equal(goNumber(3, '3.0'), '3');
  assert.equal(goFloat(2147483647), '2.147483647e+09');
  assert.equal(goFloat(123456), '123456');
  assert.equal(goFloat(0.0001), '0.0001');
  assert.equal(goFloat(0.00001), '1e-05');
  assert.equal(goFloat(Infinity), '+Inf');
  assert.equal(goQuote('a"b\n\u0001é'), '"a\\"b\\n\\x01é"');
  assert.equal(goSharpV({ name: 'a', n: 1 }), 'map[string]interface {}{"n":int64(1), "name":"a"}');
});

test('quantities parse, compare and print as resource.Quantity does', () => {
  assert.equal(parseQuantity('abc'), ERR_FORMAT_WRONG);
  assert.equal(parseQuantity(''), ERR_FORMAT_WRONG);
  assert.equal(parseQuantity('1Q'), ERR_FORMAT_WRONG);
  assert.equal(parseQuantity('1ki'), ERR_SUFFIX);
  assert.equal(quantityString(qty('0.5m')), '500u');
  assert.equal(quantityString(qty('1.5')), '1500m');
  assert.equal(quantityString(qty('1e1000')), '10e999');
  assert.equal(quantityString(qty('2Gi')), '2Gi');
  assert.equal(quantityString(qty('-1')), '-1');
  assert.equal(quantityString(qty('100n')), '100n');
  assert.equal(quantityString(qty('0.1n')), '1n');
  assert.equal(compareQuantities(qty('1'), qty('1000m')), 0);
  assert.equal(compareQuantities(qty('1Ki'), qty('1k')), 1);
  assert.equal(compareQuantities(qty('-2'), qty('1')), -1);
  assert.equal(isNotWholeForValidation(qty('0.5m')), true);
  assert.equal(isNotWholeForValidation(qty('1500m')), true);
  assert.equal(isNotWholeForValidation(qty('2')), false);
  assert.equal(isNotWholeForValidation(qty('1e1000')), false);
});

test('names: the real messages', () => {
  assert.deepEqual(isDNS1123Label('a.b'), ['must not contain dots']);
  assert.deepEqual(isDNS1123Label('x'.repeat(64))[0], 'must be no more than 63 characters');
  assert.deepEqual(isValidLabelValue(''), []);
  assert.equal(isQualifiedName('example.com/')[0], 'name part must be non-empty');
  assert.match(isQualifiedName('-x')[0], /^name part must consist of alphanumeric characters/);
});

test('scanJson: depth and the literals of non-canonical numbers, by path', () => {
  const s = scanJson('{"a":[1, 1e15, {"b\\"c": 1.0}], "d": 3000000000, "e": 9007199254740993}');
  assert.equal(s.tooDeep, undefined);
  assert.equal(s.numbers.get(pathKey(['a', 1])), '1e15');
  assert.equal(s.numbers.get(pathKey(['a', 2, 'b"c'])), '1.0');
  assert.equal(s.numbers.get(pathKey(['d'])), undefined);
  assert.equal(s.numbers.get(pathKey(['e'])), '9007199254740993');
  assert.deepEqual(scanJson(`${'['.repeat(10_000)}${']'.repeat(10_000)}`).tooDeep, undefined);
  assert.deepEqual(scanJson(`${'['.repeat(10_001)}${']'.repeat(10_001)}`).tooDeep, { char: '[' });
  assert.deepEqual(scanJson('["[[[[", "{{{"]', 2).tooDeep, undefined);
});

test('yamlDepthError: flow collections and block indentation', () => {
  assert.equal(yamlDepthError(`a: ${'['.repeat(100)}`), undefined);
  assert.equal(yamlDepthError(`${'['.repeat(10_001)}`), 'yaml: exceeded max depth of 10000');
  assert.equal(yamlDepthError(`x: 1\ny: ${'{'.repeat(10_001)}`), 'yaml: line 2: exceeded max depth of 10000');
  assert.equal(yamlDepthError(`${'- '.repeat(10_001)}x`), 'yaml: exceeded max depth of 10000');
  assert.equal(yamlDepthError(`s: "${'['.repeat(20_000)}"`), undefined);
});

test('decoding into Go types: the first type error, or the quantity parser\'s', () => {
  const dep = goTypeOf('apps/Deployment', 'Deployment')!;
  assert.equal(goDecodeError({ spec: { replicas: 2, template: { spec: { containers: [{ name: 'c' }] } } } }, dep, new Map()), undefined);
  assert.equal(goDecodeError({ spec: { paused: 'yes', replicas: 'x' } }, dep, new Map()), 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.paused of type bool');
  assert.equal(goDecodeError({ spec: { template: { spec: { containers: {} } } } }, dep, new Map()), 'json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container');
  assert.equal(goDecodeError({ spec: 'x' }, dep, new Map()), 'json: cannot unmarshal string into Go struct field Deployment.spec of type v1.DeploymentSpec');
});

test('schemas: pruning keeps what is specified or preserved, and reports the rest', () => {
  const schema = { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'integer' }, keep: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, m: { type: 'object', additionalProperties: { type: 'string' } } } } } };
  const obj: Record<string, unknown> = { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'n', bogus: 1 }, spec: { a: 1, b: 2, keep: { anything: [1] }, m: { k: 'v' } }, extra: true };
  assert.deepEqual(prune(obj, schema).sort(), ['extra', 'metadata.bogus', 'spec.b']);
  assert.deepEqual(obj, { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'n' }, spec: { a: 1, keep: { anything: [1] }, m: { k: 'v' } } });
  assert.deepEqual(validateAgainstSchema({ spec: { a: 1.0, m: { k: 'v' } } }, schema, new Map()), []);
  assert.equal(validateAgainstSchema({ spec: { a: 1.5 } }, schema, new Map())[0].detail, 'spec.a in body must be of type integer: "number"');
});

test('request bodies: nothing beyond the limit is kept; an endless body is cut off', async () => {
  const chunk = Buffer.alloc(1024 * 1024, 0x61);
  const fake = (mib: number) => {
    let sent = 0;
    let destroyed = false;
    const stream = Readable.from((function* () {
      for (; sent < mib; sent++) yield chunk;
    })());
    Object.assign(stream, { headers: { 'content-type': 'application/json' }, socket: { destroy: () => (destroyed = true) } });
    return { req: stream as unknown as IncomingMessage, sent: () => sent, destroyed: () => destroyed };
  };
  const small = fake(2);
  assert.equal((await readRawBody(small.req)).bytes.length, 2 * 1024 * 1024);
  // 4 MiB: refused, and the rest of the body is read (discarded) so the client gets the answer.
  const over = fake(4);
  await assert.rejects(readRawBody(over.req), (e: Error & { code?: number }) => e.code === 413 && e.message === `Request entity too large: limit is ${MAX_REQUEST_BODY_BYTES}`);
  assert.equal(over.sent(), 4);
  assert.equal(over.destroyed(), false);
  // 200 MiB: the connection is cut once far more than the limit was discarded.
  const endless = fake(200);
  await assert.rejects(readRawBody(endless.req), (e: Error & { code?: number }) => e.code === 413);
  assert.equal(endless.destroyed(), true);
  assert.ok(endless.sent() < 100);
});
