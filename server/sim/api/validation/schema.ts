/**
 * Custom resources against the `openAPIV3Schema` of their CRD version, as the apiextensions apiserver
 * handles them (pure):
 *
 * - pruning of a structural schema (apiextensions-apiserver pkg/apiserver/schema/pruning): fields the
 *   schema does not specify are dropped unless `x-kubernetes-preserve-unknown-fields` or
 *   `additionalProperties` keeps them; `apiVersion`, `kind` and `metadata` stay at the root and in
 *   `x-kubernetes-embedded-resource` objects; unknown ObjectMeta fields go; nulls of non-nullable
 *   fields without a default are dropped (prunenulls); the dropped paths are reported for
 *   `fieldValidation=Strict|Warn`;
 * - validation with kube-openapi's validators (pkg/validation/validate) and the conversion of their
 *   errors to field errors (pkg/apiserver/validation/validation.go): type (with
 *   `x-kubernetes-int-or-string` and `nullable`), required, enum, minimum/maximum (exclusive),
 *   multipleOf, minLength/maxLength (in runes), pattern, minItems/maxItems, uniqueItems,
 *   minProperties/maxProperties, additionalProperties schemas, allOf, and `x-kubernetes-list-type`
 *   map/set uniqueness. Formats such as int32 are not range-checked: the real server strips the ones
 *   it does not support (StripUnsupportedFormatsPostProcess), so `1e15` is a valid int32 integer there.
 *
 * Not implemented: `x-kubernetes-validations` (CEL), `default`s, anyOf/oneOf/not, ratcheting of
 * unchanged invalid values on update.
 */

import { isPlainObject } from '../../store/object-utils.ts';
import type { NumberLiterals } from '../json-scan.ts';
import { pathKey } from '../json-scan.ts';
import type { FieldError } from './field-errors.ts';
import { duplicate, invalidValue, notSupported, q, required, tooLong, tooMany, typeInvalid } from './field-errors.ts';
import type { JsonKind } from './go-format.ts';
import { goFloat, goNumber, goSharpV, goType, goV, isInt64Literal, jsonKindOf, literalOf } from './go-format.ts';

export type Schema = Record<string, unknown>;

const OBJECT_META_FIELDS = new Set(['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields']);

function schemaOf(v: unknown): Schema | undefined {
  return isPlainObject(v) ? v : undefined;
}

function fieldPath(base: string, key: string): string {
  return base ? `${base}.${key}` : key;
}

/** Drops what the structural schema does not specify; returns the dropped paths (`spec.foo`). */
export function prune(root: Record<string, unknown>, schema: Schema): string[] {
  const pruned: string[] = [];
  const walk = (x: unknown, s: Schema | undefined, path: string, resourceRoot: boolean): void => {
    if (!s) return;
    if (s['x-kubernetes-int-or-string'] === true) return;
    if (Array.isArray(x)) {
      const items = schemaOf(s.items);
      if (items) x.forEach((item, i) => walk(item, items, `${path}[${i}]`, items['x-kubernetes-embedded-resource'] === true));
      return;
    }
    if (!isPlainObject(x)) return;
    const props = schemaOf(s.properties) ?? {};
    const additional = s.additionalProperties;
    const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
    for (const k of Object.keys(x)) {
      const p = fieldPath(path, k);
      if (resourceRoot && (k === 'apiVersion' || k === 'kind')) continue;
      if (resourceRoot && k === 'metadata') {
        const meta = x.metadata;
        if (isPlainObject(meta)) {
          for (const mk of Object.keys(meta)) {
            if (!OBJECT_META_FIELDS.has(mk)) {
              delete meta[mk];
              pruned.push(`${p}.${mk}`);
            }
          }
        }
        continue;
      }
      const child = schemaOf(props[k]) ?? schemaOf(additional);
      if (x[k] === null && child && child.nullable !== true && child.default === undefined) {
        // prunenulls: a null where the schema does not allow one is dropped, not reported.
        delete x[k];
        continue;
      }
      if (child) walk(x[k], child, p, child['x-kubernetes-embedded-resource'] === true);
      else if (!(additional === true || preserve)) {
        delete x[k];
        pruned.push(p);
      }
    }
  };
  walk(root, schema, '', true);
  return pruned;
}

const OPENAPI_TYPE: Record<JsonKind, string> = { null: 'null', string: 'string', bool: 'boolean', int: 'integer', float: 'number', array: 'array', object: 'object' };

/** JSON type names as kube-openapi reports them (`integer` for int64-literal numbers). */
function dataType(v: unknown, literal?: string): string {
  return OPENAPI_TYPE[jsonKindOf(v, literal)];
}

/** swag.IsFloat64AJSONInteger: a float64 that is a whole number within ±2^53. */
function isJsonInteger(f: number): boolean {
  return Number.isFinite(f) && Math.abs(f) <= 2 ** 53 && Math.trunc(f) === f;
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  return JSON.stringify(a) === JSON.stringify(b);
}

function enumText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** kube-openapi's validation of a value, with its errors converted as the apiextensions server does. */
export function validateAgainstSchema(root: unknown, schema: Schema, numbers: NumberLiterals): FieldError[] {
  const errs: FieldError[] = [];
  // x-kubernetes-list-type is checked in a pass of its own after the schema validator, as the strategy does.
  const listErrs: FieldError[] = [];
  const segments: Array<string | number> = [];
  const lit = () => numbers.get(pathKey(segments));
  const render = (v: unknown): string => {
    if (typeof v === 'number') return goNumber(v, lit());
    if (typeof v === 'string') return q(v);
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'boolean') return String(v);
    return goSharpV(v);
  };
  const walk = (x: unknown, s: Schema, path: string): void => {
    const intOrString = s['x-kubernetes-int-or-string'] === true;
    const types = intOrString ? ['integer', 'string'] : typeof s.type === 'string' && s.type ? [s.type] : [];
    const literal = typeof x === 'number' ? lit() : undefined;
    const actual = dataType(x, literal);
    if (x === null || x === undefined) {
      if (types.length > 0 && s.nullable !== true) errs.push(typeInvalid(path, q('null'), `${path} in body must be of type ${types.join(',')}: "null"`));
      return;
    }
    const floatInt = actual === 'number' && types.includes('integer') && isJsonInteger(x as number);
    const intFloat = actual === 'integer' && types.includes('number');
    if (types.length > 0 && !types.includes(actual) && !floatInt && !intFloat) {
      errs.push(typeInvalid(path, q(actual), `${path} in body must be of type ${types.join(',')}: "${actual}"`));
    }
    if (Array.isArray(s.enum) && s.enum.length > 0 && !s.enum.some((e) => jsonEqual(e, x))) {
      errs.push(notSupported(path, render(x), s.enum.map(enumText)));
    }
    if (typeof x === 'number') {
      const asInt = isInt64Literal(literalOf(x, literal));
      const bound = (b: number) => (asInt ? String(Math.trunc(b)) : goFloat(b));
      if (typeof s.maximum === 'number') {
        const exclusive = s.exclusiveMaximum === true;
        if (exclusive ? x >= s.maximum : x > s.maximum) errs.push(invalidValue(path, render(x), `${path} in body should be less than${exclusive ? '' : ' or equal to'} ${bound(s.maximum)}`));
      }
      if (typeof s.minimum === 'number') {
        const exclusive = s.exclusiveMinimum === true;
        if (exclusive ? x <= s.minimum : x < s.minimum) errs.push(invalidValue(path, render(x), `${path} in body should be greater than${exclusive ? '' : ' or equal to'} ${bound(s.minimum)}`));
      }
      if (typeof s.multipleOf === 'number' && s.multipleOf > 0) {
        const r = x / s.multipleOf;
        if (Math.abs(r - Math.round(r)) > 1e-9) errs.push(invalidValue(path, render(x), `${path} in body should be a multiple of ${goV(s.multipleOf)}`));
      }
    }
    if (typeof x === 'string') {
      const runes = [...x].length;
      if (typeof s.maxLength === 'number' && runes > s.maxLength) errs.push(tooLong(path, s.maxLength));
      else if (typeof s.minLength === 'number' && runes < s.minLength) errs.push(invalidValue(path, q(x), `${path} in body should be at least ${s.minLength} chars long`));
      else if (typeof s.pattern === 'string') {
        let re: RegExp | undefined;
        try {
          re = new RegExp(s.pattern, 'u');
        } catch {
          re = undefined;
        }
        if (re && !re.test(x)) errs.push(invalidValue(path, q(x), `${path} in body should match '${s.pattern}'`));
      }
    }
    if (Array.isArray(x)) {
      const items = schemaOf(s.items);
      if (items) {
        x.forEach((item, i) => {
          segments.push(i);
          walk(item, items, `${path}[${i}]`);
          segments.pop();
        });
      }
      if (typeof s.maxItems === 'number' && x.length > s.maxItems) errs.push(tooMany(path, x.length, s.maxItems));
      if (typeof s.minItems === 'number' && x.length < s.minItems) errs.push(invalidValue(path, String(x.length), `${path} in body should have at least ${s.minItems} items`));
      if (s.uniqueItems === true && new Set(x.map((v) => JSON.stringify(v))).size !== x.length) errs.push(invalidValue(path, '""', `${path} in body shouldn't contain duplicates`));
      listTypeErrors(x, s, path, listErrs);
    }
    if (isPlainObject(x)) {
      const props = schemaOf(s.properties) ?? {};
      const additional = schemaOf(s.additionalProperties);
      const n = Object.keys(x).length;
      if (typeof s.maxProperties === 'number' && n > s.maxProperties) errs.push(tooMany(path, n, s.maxProperties));
      if (typeof s.minProperties === 'number' && n < s.minProperties) errs.push(invalidValue(path, String(n), `${path} in body should have at least ${s.minProperties} properties`));
      for (const k of Object.keys(x)) {
        const child = schemaOf(props[k]) ?? additional;
        if (!child) continue;
        segments.push(k);
        walk(x[k], child, fieldPath(path, k));
        segments.pop();
      }
      if (Array.isArray(s.required)) {
        for (const k of s.required as string[]) if (!(k in x)) errs.push(required(fieldPath(path, k)));
      }
    }
    if (Array.isArray(s.allOf)) for (const sub of s.allOf) if (isPlainObject(sub)) walk(x, sub, path);
  };
  walk(root, schema, '');
  return [...errs, ...listErrs];
}

/** structurallisttype.ValidateListSetsAndMaps: no two items of a `set` equal, no two of a `map` with the same keys. */
function listTypeErrors(x: unknown[], s: Schema, path: string, errs: FieldError[]): void {
  const type = s['x-kubernetes-list-type'];
  if (type === 'set') {
    const seen = new Set<string>();
    x.forEach((item, i) => {
      const k = JSON.stringify(item);
      if (seen.has(k)) errs.push(duplicate(`${path}[${i}]`, goSharpV(item)));
      seen.add(k);
    });
  } else if (type === 'map' && Array.isArray(s['x-kubernetes-list-map-keys'])) {
    const keys = s['x-kubernetes-list-map-keys'] as string[];
    const seen = new Set<string>();
    x.forEach((item, i) => {
      if (!isPlainObject(item)) return;
      const id: Record<string, unknown> = {};
      for (const k of keys) if (item[k] !== undefined) id[k] = item[k];
      const k = JSON.stringify(keys.map((kk) => item[kk]));
      if (seen.has(k)) errs.push(duplicate(`${path}[${i}]`, goSharpV(id)));
      seen.add(k);
    });
  }
}

/** ValidateScaleSpec / ValidateScaleStatus: the replica counts behind a CRD's scale subresource. */
export function scaleErrors(obj: Record<string, unknown>, specPath: string | undefined, statusPath: string | undefined, numbers: NumberLiterals): FieldError[] {
  const errs: FieldError[] = [];
  for (const jsonPath of [specPath, statusPath]) {
    if (!jsonPath) continue;
    const fields = jsonPath.replace(/^\./, '').split('.');
    let cur: unknown = obj;
    let found = true;
    for (let i = 0; i < fields.length; i++) {
      if (!isPlainObject(cur)) {
        errs.push(invalidValue(jsonPath, '0', `.${fields.slice(0, i).join('.')} accessor error: ${goV(cur)} is of the type ${goType(cur)}, expected map[string]interface{}`));
        found = false;
        break;
      }
      if (!(fields[i] in cur)) {
        found = false;
        break;
      }
      cur = cur[fields[i]];
    }
    if (!found || cur === undefined) continue;
    const literal = typeof cur === 'number' ? numbers.get(pathKey(fields)) : undefined;
    if (typeof cur !== 'number' || !isInt64Literal(literalOf(cur, literal))) {
      errs.push(invalidValue(jsonPath, '0', `.${fields.join('.')} accessor error: ${goV(cur, literal)} is of the type ${goType(cur, literal)}, expected int64`));
      continue;
    }
    const v = BigInt(literalOf(cur, literal));
    if (v < 0n) errs.push(invalidValue(jsonPath, v.toString(), 'should be a non-negative integer'));
    else if (v > 2147483647n) errs.push(invalidValue(jsonPath, v.toString(), 'should be less than or equal to 2147483647'));
  }
  return errs;
}
