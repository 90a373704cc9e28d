/**
 * Field errors as k8s.io/apimachinery/pkg/util/validation/field words them, and the 422 `Invalid`
 * Status that `errors.NewInvalid` builds from a list of them (pure): one cause per error (`type`,
 * `message` = the error body, `field`), and a message `<Kind>.<group> "<name>" is invalid: <errors>` with
 * duplicates dropped and more than one error in brackets.
 */

import { ApiError } from '../status.ts';
import type { StatusDetails } from '../status.ts';
import { goQuote } from './go-format.ts';

export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueInternal'
  | 'FieldValueTypeInvalid';

export interface FieldError {
  type: FieldErrorType;
  field: string;
  /** The bad value as Go prints it (`"abc"`, `-1`, `1e+15`); absent when the error type omits it. */
  value?: string;
  detail: string;
}

const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueInternal: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** `ErrorBody()`: the type, the value unless omitted, and the detail. */
export function errorBody(e: FieldError): string {
  const omit = e.type === 'FieldValueRequired' || e.type === 'FieldValueForbidden' || e.type === 'FieldValueTooLong' || e.type === 'FieldValueInternal' || e.value === undefined;
  let s = omit ? TYPE_TEXT[e.type] : `${TYPE_TEXT[e.type]}: ${e.value}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

export function errorText(e: FieldError): string {
  return `${e.field}: ${errorBody(e)}`;
}

/** A string value as `%q` prints it. */
export const q = goQuote;

export function invalidValue(field: string, value: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, value, detail };
}

export function required(field: string, detail = ''): FieldError {
  return { type: 'FieldValueRequired', field, value: '""', detail };
}

export function forbidden(field: string, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field, value: '""', detail };
}

export function duplicate(field: string, value: string): FieldError {
  return { type: 'FieldValueDuplicate', field, value, detail: '' };
}

export function typeInvalid(field: string, value: string, detail: string): FieldError {
  return { type: 'FieldValueTypeInvalid', field, value, detail };
}

/** `field.NotSupported`: the value and the quoted list of supported ones. */
export function notSupported(field: string, value: string, supported: string[]): FieldError {
  return { type: 'FieldValueNotSupported', field, value, detail: supported.length ? `supported values: ${supported.map((v) => goQuote(v)).join(', ')}` : '' };
}

/** `field.TooLong` (the value is always omitted). */
export function tooLong(field: string, max: number): FieldError {
  return { type: 'FieldValueTooLong', field, value: '"<value omitted>"', detail: max >= 0 ? `may not be more than ${max} bytes` : 'value is too long' };
}

/** `field.TooMany`: the actual count and the maximum. */
export function tooMany(field: string, actual: number, max: number): FieldError {
  return { type: 'FieldValueTooMany', field, value: actual >= 0 ? String(actual) : undefined, detail: max >= 0 ? `must have at most ${max} items` : 'has too many items' };
}

/** `ToAggregate().Error()`: distinct messages, bracketed when more than one. */
export function aggregate(errs: FieldError[]): string {
  const seen: string[] = [];
  for (const e of errs) {
    const m = errorText(e);
    if (!seen.includes(m)) seen.push(m);
  }
  return seen.length === 1 ? seen[0] : `[${seen.join(', ')}]`;
}

/** `errors.NewInvalid(GroupKind{group, kind}, name, errs)`: the 422 Status. */
export function invalidError(kind: string, group: string, name: string, errs: FieldError[]): ApiError {
  const qualified = group ? `${kind}.${group}` : kind;
  const message = errs.length === 0 ? `${qualified} ${goQuote(name)} is invalid` : `${qualified} ${goQuote(name)} is invalid: ${aggregate(errs)}`;
  const details: StatusDetails = {};
  if (name) details.name = name;
  if (group) details.group = group;
  if (kind) details.kind = kind;
  details.causes = errs.map((e) => ({ type: e.type, message: errorBody(e), field: e.field }));
  return new ApiError(422, 'Invalid', message, details);
}
