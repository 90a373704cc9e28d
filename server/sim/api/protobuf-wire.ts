/** The protobuf wire format, as far as the simulator decodes request bodies (pure). */

export interface Field {
  no: number;
  wire: number;
  /** Varint value (wire 0). */
  int?: bigint;
  /** Bytes (wire 2). */
  bytes?: Buffer;
}

export class ProtobufError extends Error {}

export function fields(buf: Buffer): Field[] {
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

export const str = (f: Field | undefined) => f?.bytes?.toString('utf8');

export function stringMap(fs: Field[], no: number, asBase64 = false): Record<string, string> | undefined {
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

export function strings(fs: Field[], no: number): string[] | undefined {
  const v = fs.filter((f) => f.no === no).map((f) => str(f) ?? '');
  return v.length ? v : undefined;
}

export function bool(fs: Field[], no: number): boolean | undefined {
  const f = fs.find((x) => x.no === no && x.int !== undefined);
  return f ? f.int !== 0n : undefined;
}
