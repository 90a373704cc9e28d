/**
 * Request bodies as the real API server reads them: at most `MaxRequestBodyBytes` (3 MiB, k8s.io/apiserver
 * pkg/server/config.go; handlers/rest.go `limitedReadBody` answers 413 "Request entity too large: limit
 * is 3145728"), read incrementally and never buffered beyond the limit; then decoded as JSON, YAML or (from
 * kubectl's generators) protobuf, with the decoder's nesting limit (json-scan.ts) and the messages the
 * handler of each verb gives for an undecodable body.
 */

import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import type { NumberLiterals } from './json-scan.ts';
import { scanJson, yamlDepthError } from './json-scan.ts';
import { PROTOBUF_MAGIC, ProtobufError, decodeProtobufObject } from './protobuf.ts';
import { mediaType } from './request.ts';
import { ApiError, badRequest, unsupportedMediaType } from './status.ts';

/** The real server's default `--max-request-bytes` for API request bodies. */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/** What is discarded (not kept) of an oversized body before the connection is cut instead. */
const MAX_DISCARD_BYTES = 64 * 1024 * 1024;

/**
 * How a body is used, which decides the message for a body that does not decode: an object for
 * create/update (the serializer's "the object provided is unrecognized"), a patch of each type (the
 * patch handler's decoders), or options (DeleteOptions, control requests).
 */
export type BodyUse = 'object' | 'json-patch' | 'merge-patch' | 'strategic-merge-patch' | 'apply' | 'options';

export interface RawBody {
  bytes: Buffer;
  contentType: string;
}

export interface DecodedBody {
  value: unknown;
  /** Literal text of numbers whose value does not say how they were written (json-scan.ts). */
  numbers: NumberLiterals;
}

export interface DecodeOptions {
  /** The kind the body must be (messages name it). */
  kind?: string;
  /** The request's fieldValidation directive (patch decoding differs for Ignore). */
  fieldValidation?: string | null;
}

/**
 * Reads the body, keeping at most the limit in memory. An oversized body is drained (discarded, up to a
 * bound) so the client reads the 413 instead of a reset, and the connection is closed after the answer.
 */
export async function readRawBody(req: IncomingMessage): Promise<RawBody> {
  const contentType = mediaType(req.headers['content-type']);
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  for await (const c of req) {
    const b = c as Buffer;
    size += b.length;
    if (!over && size > MAX_REQUEST_BODY_BYTES) {
      over = true;
      chunks.length = 0;
    }
    if (over) {
      if (size > MAX_REQUEST_BODY_BYTES + MAX_DISCARD_BYTES) {
        req.socket.destroy();
        break;
      }
      continue;
    }
    chunks.push(b);
  }
  if (over) throw new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${MAX_REQUEST_BODY_BYTES}`, undefined, { Connection: 'close' });
  return { bytes: Buffer.concat(chunks), contentType };
}

/** `summarizeData` of the create/update handlers: the first 30 bytes of a JSON body, hex otherwise. */
function summarize(bytes: Buffer): string {
  if (bytes.length === 0) return '<empty>';
  const max = 30;
  if (bytes[0] === 0x7b) return bytes.length > max ? `${bytes.subarray(0, max).toString('utf8')} ...` : bytes.toString('utf8');
  return bytes.length > max ? `${bytes.subarray(0, max).toString('hex')} ...` : bytes.toString('hex');
}

function isYamlType(type: string): boolean {
  return type === 'application/yaml' || type === 'application/apply-patch+yaml';
}

/** The error each verb's decoder gives for a body it cannot read (`detail` in Go's wording). */
function undecodable(use: BodyUse, raw: RawBody, detail: string, fromJson: boolean, opts: DecodeOptions): ApiError {
  const ignore = opts.fieldValidation === 'Ignore';
  switch (use) {
    case 'object':
      return badRequest(`the object provided is unrecognized (must be of type ${opts.kind ?? ''}): ${fromJson ? `couldn't get version/kind; json parse error: ${detail}` : detail} (${summarize(raw.bytes)})`);
    case 'json-patch':
      return badRequest(ignore ? detail : `error decoding patch: ${detail}`);
    case 'merge-patch':
      return badRequest(ignore ? 'Invalid JSON Patch' : `error decoding patch: ${detail}`);
    case 'strategic-merge-patch':
      return badRequest(detail);
    case 'apply':
      return badRequest(`error decoding YAML: error converting YAML to JSON: ${detail}`);
    default:
      return badRequest(`the body of the request could not be decoded: ${detail}`);
  }
}

/** Line (from the second on) and message of a JSON nesting error as go-yaml words it for flow collections. */
function yamlFlowDepth(text: string): string {
  return yamlDepthError(text) ?? 'yaml: exceeded max depth of 10000';
}

/** Decodes a body read by readRawBody; undefined when it is empty. */
export function decodeBody(raw: RawBody, use: BodyUse, opts: DecodeOptions = {}): DecodedBody | undefined {
  const { bytes, contentType: type } = raw;
  if (type === 'application/vnd.kubernetes.protobuf' || bytes.subarray(0, 4).equals(PROTOBUF_MAGIC)) {
    // kubectl's generators (create namespace/configmap/secret) send protobuf; other kinds get 415.
    try {
      return { value: decodeProtobufObject(bytes), numbers: new Map() };
    } catch (e) {
      if (e instanceof ProtobufError) throw unsupportedMediaType(['application/json', 'application/yaml']);
      throw e;
    }
  }
  if (type === 'application/cbor') throw unsupportedMediaType(['application/json', 'application/yaml']);
  const text = bytes.toString('utf8');
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const yaml = use === 'apply' || isYamlType(type);
  // JSON is also YAML: a JSON body takes the JSON path even where YAML is accepted (kubectl sends JSON).
  const looksJson = trimmed[0] === '{' || trimmed[0] === '[';
  if (!yaml || looksJson) {
    const scan = scanJson(text);
    if (scan.tooDeep) {
      const detail = yaml ? yamlFlowDepth(text) : `invalid character '${scan.tooDeep.char}' exceeded max depth`;
      throw undecodable(use, raw, detail, !yaml, opts);
    }
    try {
      return { value: JSON.parse(text) as unknown, numbers: scan.numbers };
    } catch (e) {
      if (!yaml) throw undecodable(use, raw, e instanceof Error ? e.message : String(e), true, opts);
      // Not JSON after all: YAML below.
    }
  }
  const depth = yamlDepthError(text);
  if (depth) throw undecodable(use, raw, depth, false, opts);
  try {
    return { value: parseYaml(text, { version: '1.1' }) as unknown, numbers: new Map() };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    // The yaml package recurses: nesting the real parser accepts can be too deep for it.
    const detail = /call stack/i.test(message) ? 'yaml: nested too deeply for the simulated cluster\'s YAML parser (JSON bodies may nest up to 10000 levels)' : `yaml: ${message.split('\n')[0]}`;
    throw undecodable(use, raw, detail, false, opts);
  }
}

/** Reads and decodes a body in one step; undefined when it is empty. */
export async function readBody(req: IncomingMessage, use: BodyUse, opts: DecodeOptions = {}): Promise<DecodedBody | undefined> {
  return decodeBody(await readRawBody(req), use, opts);
}

/** The decoded value alone (options bodies: DeleteOptions, control requests). */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  return (await readBody(req, 'options'))?.value;
}
