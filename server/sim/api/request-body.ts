/** Request bodies: the size limit, and JSON, YAML or (from kubectl's generators) protobuf decoding. */

import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { PROTOBUF_MAGIC, ProtobufError, decodeProtobufObject } from './protobuf.ts';
import { mediaType } from './request.ts';
import { ApiError, badRequest, unsupportedMediaType } from './status.ts';

const MAX_BODY = 32 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    const b = c as Buffer;
    size += b.length;
    if (size > MAX_BODY) throw new ApiError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

/** The decoded body, or undefined when it is empty. */
export async function readJsonBody(req: IncomingMessage, allowYaml = false): Promise<unknown> {
  const type = mediaType(req.headers['content-type']);
  const raw = await readBody(req);
  if (type === 'application/vnd.kubernetes.protobuf' || raw.subarray(0, 4).equals(PROTOBUF_MAGIC)) {
    // kubectl's generators (create namespace/configmap/secret) send protobuf; other kinds get 415.
    try {
      return decodeProtobufObject(raw);
    } catch (e) {
      if (e instanceof ProtobufError) throw unsupportedMediaType(['application/json', 'application/yaml']);
      throw e;
    }
  }
  if (type === 'application/cbor') throw unsupportedMediaType(['application/json', 'application/yaml']);
  const text = raw.toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    if (allowYaml || type === 'application/yaml' || type === 'application/apply-patch+yaml') return parseYaml(text, { version: '1.1' }) as unknown;
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw badRequest(`the body of the request could not be decoded: ${e instanceof Error ? e.message : String(e)}`);
  }
}
