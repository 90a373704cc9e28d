/**
 * Protobuf bodies of the authentication.k8s.io/v1 and authorization.k8s.io/v1 kinds kubectl sends
 * (`kubectl auth can-i` → SelfSubjectAccessReview / SelfSubjectRulesReview, `kubectl auth whoami` →
 * SelfSubjectReview, `kubectl create token` → TokenRequest), and the other reviews for completeness.
 * Field numbers are those of k8s.io/api's generated.proto (v0.32). Pure.
 */

import type { Field } from './protobuf-wire.ts';
import { fields, str, strings } from './protobuf-wire.ts';

type Obj = Record<string, unknown>;

function sub(fs: Field[], no: number): Field[] | undefined {
  const f = fs.find((x) => x.no === no && x.bytes);
  return f ? fields(f.bytes!) : undefined;
}

function int(fs: Field[], no: number): number | undefined {
  const f = fs.find((x) => x.no === no && x.int !== undefined);
  return f ? Number(BigInt.asIntN(64, f.int!)) : undefined;
}

/** Only the fields that were sent (proto2 `optional`). */
function compact(o: Obj): Obj {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

/** map<string, ExtraValue>: entries {1: key, 2: {1: repeated items}}. */
function extraMap(fs: Field[], no: number): Record<string, string[]> | undefined {
  const entries = fs.filter((f) => f.no === no && f.bytes);
  if (entries.length === 0) return undefined;
  const out: Record<string, string[]> = {};
  for (const e of entries) {
    const kv = fields(e.bytes!);
    const value = sub(kv, 2);
    out[str(kv.find((f) => f.no === 1)) ?? ''] = (value && strings(value, 1)) ?? [];
  }
  return out;
}

function resourceAttributes(fs: Field[] | undefined): Obj | undefined {
  if (!fs) return undefined;
  const s = (no: number) => str(fs.find((f) => f.no === no));
  return compact({ namespace: s(1), verb: s(2), group: s(3), version: s(4), resource: s(5), subresource: s(6), name: s(7) });
}

function nonResourceAttributes(fs: Field[] | undefined): Obj | undefined {
  if (!fs) return undefined;
  return compact({ path: str(fs.find((f) => f.no === 1)), verb: str(fs.find((f) => f.no === 2)) });
}

function accessReviewSpec(fs: Field[] | undefined): Obj {
  const spec = fs ?? [];
  return compact({
    resourceAttributes: resourceAttributes(sub(spec, 1)),
    nonResourceAttributes: nonResourceAttributes(sub(spec, 2)),
    user: str(spec.find((f) => f.no === 3)),
    groups: strings(spec, 4),
    extra: extraMap(spec, 5),
    uid: str(spec.find((f) => f.no === 6)),
  });
}

/** The kind's own fields (besides metadata), or undefined when the kind is not one of these. */
export function decodeAuthMessage(apiVersion: string, kind: string, raw: Field[]): Obj | undefined {
  const spec = sub(raw, 2);
  if (apiVersion === 'authorization.k8s.io/v1') {
    switch (kind) {
      case 'SelfSubjectAccessReview': {
        const s = accessReviewSpec(spec);
        return { spec: compact({ resourceAttributes: s.resourceAttributes, nonResourceAttributes: s.nonResourceAttributes }) };
      }
      case 'SubjectAccessReview':
      case 'LocalSubjectAccessReview':
        return { spec: accessReviewSpec(spec) };
      case 'SelfSubjectRulesReview':
        return { spec: compact({ namespace: str((spec ?? []).find((f) => f.no === 1)) }) };
    }
    return undefined;
  }
  if (apiVersion === 'authentication.k8s.io/v1') {
    switch (kind) {
      case 'SelfSubjectReview':
        return {};
      case 'TokenReview':
        return { spec: compact({ token: str((spec ?? []).find((f) => f.no === 1)), audiences: strings(spec ?? [], 2) }) };
      case 'TokenRequest': {
        const s = spec ?? [];
        const ref = sub(s, 3);
        const boundObjectRef = ref && compact({ kind: str(ref.find((f) => f.no === 1)), apiVersion: str(ref.find((f) => f.no === 2)), name: str(ref.find((f) => f.no === 3)), uid: str(ref.find((f) => f.no === 4)) });
        return { spec: compact({ audiences: strings(s, 1), expirationSeconds: int(s, 4), boundObjectRef }) };
      }
    }
  }
  return undefined;
}
