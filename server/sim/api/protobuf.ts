/**
 * Decoding of the Kubernetes protobuf envelope for the few kinds kubectl's generator commands send as
 * protobuf (`kubectl create namespace|configmap|secret|serviceaccount`, and the access and token reviews of
 * `kubectl auth can-i|whoami` and `kubectl create token`: protobuf-auth.ts), so those commands work. Other
 * kinds (`kubectl create deployment`, `kubectl run`: pod specs) answer 415 like before. Pure.
 *
 * Wire format: the magic `k8s\0`, then a `runtime.Unknown` message {1: typeMeta {1: apiVersion,
 * 2: kind}, 2: raw (the object's own message)}. Field numbers are those of k8s.io/api's generated.proto.
 */

import type { KubeObject } from '../store/object-store.ts';
import { decodeAuthMessage } from './protobuf-auth.ts';
import type { Field } from './protobuf-wire.ts';
import { ProtobufError, bool, fields, str, stringMap, strings } from './protobuf-wire.ts';

export { ProtobufError } from './protobuf-wire.ts';

export const PROTOBUF_MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

function objectMeta(buf: Buffer | undefined): Record<string, unknown> {
  const fs = buf ? fields(buf) : [];
  const m: Record<string, unknown> = {};
  const set = (k: string, v: unknown) => {
    if (v !== undefined && v !== '') m[k] = v;
  };
  set('name', str(fs.find((f) => f.no === 1)));
  set('generateName', str(fs.find((f) => f.no === 2)));
  set('namespace', str(fs.find((f) => f.no === 3)));
  set('labels', stringMap(fs, 11));
  set('annotations', stringMap(fs, 12));
  set('finalizers', strings(fs, 14));
  return m;
}

function objectReferences(fs: Field[], no: number): Array<Record<string, string>> | undefined {
  const refs = fs.filter((f) => f.no === no && f.bytes).map((f) => {
    const r = fields(f.bytes!);
    const out: Record<string, string> = {};
    const name = str(r.find((x) => x.no === 3));
    if (name) out.name = name;
    return out;
  });
  return refs.length ? refs : undefined;
}

/** The object a protobuf request body carries, or a ProtobufError when the kind is not one of ours. */
export function decodeProtobufObject(body: Buffer): KubeObject {
  if (!body.subarray(0, 4).equals(PROTOBUF_MAGIC)) throw new ProtobufError('missing protobuf magic');
  const unknown = fields(body.subarray(4));
  const typeMeta = fields(unknown.find((f) => f.no === 1)?.bytes ?? Buffer.alloc(0));
  const apiVersion = str(typeMeta.find((f) => f.no === 1)) ?? '';
  const kind = str(typeMeta.find((f) => f.no === 2)) ?? '';
  const raw = fields(unknown.find((f) => f.no === 2)?.bytes ?? Buffer.alloc(0));
  const metadata = objectMeta(raw.find((f) => f.no === 1)?.bytes);
  const obj: KubeObject = { apiVersion, kind, metadata };
  const review = decodeAuthMessage(apiVersion, kind, raw);
  if (review) return { ...obj, ...review };
  if (apiVersion !== 'v1') throw new ProtobufError(`protobuf bodies of ${apiVersion} ${kind} are not supported`);
  switch (kind) {
    case 'Namespace': {
      const spec = fields(raw.find((f) => f.no === 2)?.bytes ?? Buffer.alloc(0));
      const fin = strings(spec, 1);
      if (fin) obj.spec = { finalizers: fin };
      return obj;
    }
    case 'ConfigMap': {
      const data = stringMap(raw, 2);
      const binaryData = stringMap(raw, 3, true);
      if (data) obj.data = data;
      if (binaryData) obj.binaryData = binaryData;
      const immutable = bool(raw, 4);
      if (immutable !== undefined) obj.immutable = immutable;
      return obj;
    }
    case 'Secret': {
      const data = stringMap(raw, 2, true);
      const type = str(raw.find((f) => f.no === 3));
      const stringData = stringMap(raw, 4);
      if (data) obj.data = data;
      if (type) obj.type = type;
      if (stringData) obj.stringData = stringData;
      const immutable = bool(raw, 5);
      if (immutable !== undefined) obj.immutable = immutable;
      return obj;
    }
    case 'ServiceAccount': {
      const secrets = objectReferences(raw, 2);
      const pullSecrets = raw.filter((f) => f.no === 3 && f.bytes).map((f) => ({ name: str(fields(f.bytes!).find((x) => x.no === 1)) ?? '' }));
      if (secrets) obj.secrets = secrets;
      if (pullSecrets.length) obj.imagePullSecrets = pullSecrets;
      const automount = bool(raw, 4);
      if (automount !== undefined) obj.automountServiceAccountToken = automount;
      return obj;
    }
    default:
      throw new ProtobufError(`protobuf bodies of ${kind} are not supported`);
  }
}
