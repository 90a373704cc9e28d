/**
 * Decoding of the Kubernetes protobuf envelope for the few kinds kubectl's generator commands send as
 * protobuf (`kubectl create namespace|configmap|secret|serviceaccount`), so those commands work. Other
 * kinds (`kubectl create deployment`, `kubectl run`: pod specs) answer 415 like before. Pure.
 *
 * Wire format: the magic `k8s\0`, then a `runtime.Unknown` message {1: typeMeta {1: apiVersion,
 * 2: kind}, 2: raw (the object's own message)}. Field numbers are those of k8s.io/api's generated.proto.
 */

import type { KubeObject } from '../store/object-store.ts';

export const PROTOBUF_MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

interface Field {
  no: number;
  wire: number;
  /** Varint value (wire 0). */
  int?: bigint;
  /** Bytes (wire 2). */
  bytes?: Buffer;
}

export class ProtobufError extends Error {}

function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let i = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (i >= buf.length) throw new ProtobufError('truncated varint');
      const b = buf[i++];
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 70n) throw new ProtobufError('varint too long');
    }
  };
  while (i < buf.length) {
    const key = Number(varint());
    const no = key >>> 3;
    const wire = key & 7;
    if (wire === 0) out.push({ no, wire, int: varint() });
    else if (wire === 2) {
      const n = Number(varint());
      if (i + n > buf.length) throw new ProtobufError('truncated field');
      out.push({ no, wire, bytes: buf.subarray(i, i + n) });
      i += n;
    } else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else throw new ProtobufError(`unsupported wire type ${wire}`);
  }
  return out;
}

const str = (f: Field | undefined) => f?.bytes?.toString('utf8');

function stringMap(fs: Field[], no: number, asBase64 = false): Record<string, string> | undefined {
  const entries = fs.filter((f) => f.no === no && f.bytes);
  if (entries.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const e of entries) {
    const kv = fields(e.bytes!);
    const k = str(kv.find((f) => f.no === 1)) ?? '';
    const v = kv.find((f) => f.no === 2)?.bytes ?? Buffer.alloc(0);
    out[k] = asBase64 ? v.toString('base64') : v.toString('utf8');
  }
  return out;
}

function strings(fs: Field[], no: number): string[] | undefined {
  const v = fs.filter((f) => f.no === no).map((f) => str(f) ?? '');
  return v.length ? v : undefined;
}

function bool(fs: Field[], no: number): boolean | undefined {
  const f = fs.find((x) => x.no === no && x.int !== undefined);
  return f ? f.int !== 0n : undefined;
}

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
