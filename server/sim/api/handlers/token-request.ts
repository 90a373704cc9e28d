/**
 * `POST …/serviceaccounts/NAME/token` (TokenRequest, authentication.k8s.io/v1; `kubectl create token`),
 * as pkg/registry/core/serviceaccount/storage/token.go answers it: expirationSeconds defaults to an
 * hour and must be between 10 minutes and 2^32 seconds, audiences default to the API server's, the
 * body's name and namespace (if any) must be the service account's, and a token may be bound to a Pod
 * (running as that service account) or a Secret, which must exist with the uid given.
 */

import type { KubeObject } from '../../store/object-store.ts';
import { isPlainObject, rfc3339 } from '../../store/object-utils.ts';
import type { ObjectRef } from '../authn/service-account-tokens.ts';
import type { ResourceRequest } from '../context.ts';
import { decodeBody, readRawBody } from '../request-body.ts';
import { sendJson } from '../respond.ts';
import { ApiError, badRequest } from '../status.ts';
import { invalidError, invalidValue, q } from '../validation/field-errors.ts';

const AV = 'authentication.k8s.io/v1';
const MIN_SECONDS = 10 * 60;
const MAX_SECONDS = 2 ** 32;
const DEFAULT_SECONDS = 60 * 60;

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj {
  return isPlainObject(v) ? v : {};
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function notFound(resource: string, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${resource} "${name}" not found`, { name, kind: resource });
}

/** The bound object of the request, checked; the node of a bound pod comes along. */
function boundObject(r: ResourceRequest, ref: Obj, saName: string): { pod?: ObjectRef; secret?: ObjectRef; node?: ObjectRef; echo: Obj } {
  const kind = str(ref.kind);
  const av = str(ref.apiVersion);
  const name = str(ref.name);
  const ns = r.p.namespace!;
  const group = av.includes('/') ? av.slice(0, av.indexOf('/')) : '';
  if (group !== '' || (kind !== 'Pod' && kind !== 'Secret')) {
    throw badRequest(`cannot bind token to object of type ${group ? `${group}/${av.slice(av.indexOf('/') + 1)}` : `/${av}`}, Kind=${kind}`);
  }
  const o: KubeObject | undefined = r.ctx.store.get('v1', kind, ns, name);
  if (!o) throw notFound(kind === 'Pod' ? 'pods' : 'secrets', name);
  if (kind === 'Pod') {
    const podSa = str(obj(o.spec).serviceAccountName) || 'default';
    if (podSa !== saName) throw badRequest(`cannot bind token for serviceaccount ${q(saName)} to pod running with serviceaccount ${q(podSa)}`);
  }
  const uid = str(ref.uid);
  if (uid && uid !== o.metadata.uid) {
    throw new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${kind} ${q(name)}: the UID in the bound object reference (${uid}) does not match the UID in record (${o.metadata.uid}). The object might have been deleted and then recreated`, { name, kind });
  }
  const self = { name, uid: o.metadata.uid! };
  const echo = { kind, apiVersion: av, name, uid: uid || o.metadata.uid };
  if (kind === 'Secret') return { secret: self, echo };
  const nodeName = str(obj(o.spec).nodeName);
  const node = nodeName ? r.ctx.store.get('v1', 'Node', undefined, nodeName) : undefined;
  return { pod: self, node: node ? { name: nodeName, uid: node.metadata.uid! } : undefined, echo };
}

export async function createToken(r: ResourceRequest): Promise<void> {
  const { ctx, req, p } = r;
  const raw = await readRawBody(req);
  const body = obj(decodeBody(raw, 'object', { kind: 'TokenRequest' })?.value);
  if ((body.apiVersion !== undefined && body.apiVersion !== AV) || (body.kind !== undefined && body.kind !== 'TokenRequest')) {
    throw badRequest(`the API version in the data (${str(body.apiVersion)}) does not match the expected API version (${AV})`);
  }
  const meta = obj(body.metadata);
  const spec = obj(body.spec);
  const seconds = typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : DEFAULT_SECONDS;
  // The strategy validates before the name is known.
  if (seconds < MIN_SECONDS) throw invalidError('TokenRequest', 'authentication.k8s.io', '', [invalidValue('spec.expirationSeconds', String(seconds), 'may not specify a duration less than 10 minutes')]);
  if (seconds > MAX_SECONDS) throw invalidError('TokenRequest', 'authentication.k8s.io', '', [invalidValue('spec.expirationSeconds', String(seconds), 'may not specify a duration larger than 2^32 seconds')]);
  const name = p.name!;
  const ns = p.namespace!;
  if (str(meta.name) && meta.name !== name) throw invalidError('TokenRequest', 'authentication.k8s.io', name, [invalidValue('metadata.name', q(str(meta.name)), 'must match the service account name if specified')]);
  if (str(meta.namespace) && meta.namespace !== ns) throw invalidError('TokenRequest', 'authentication.k8s.io', name, [invalidValue('metadata.namespace', q(str(meta.namespace)), 'must match the service account namespace if specified')]);
  const sa = ctx.store.get('v1', 'ServiceAccount', ns, name);
  if (!sa) throw notFound('serviceaccounts', name);
  const bound = isPlainObject(spec.boundObjectRef) ? boundObject(r, spec.boundObjectRef, name) : undefined;
  const audiences = Array.isArray(spec.audiences) && spec.audiences.length > 0 ? spec.audiences.map(String) : ctx.auth.serviceAccounts.apiAudiences;
  const { token, expiresAt } = ctx.auth.serviceAccounts.issue(sa, { audiences, expirationSeconds: seconds, pod: bound?.pod, secret: bound?.secret, node: bound?.node });
  sendJson(r.res, 201, {
    kind: 'TokenRequest',
    apiVersion: AV,
    metadata: { name, namespace: ns, creationTimestamp: null },
    spec: { audiences, expirationSeconds: seconds, boundObjectRef: bound ? bound.echo : null },
    status: { token, expirationTimestamp: rfc3339(new Date(expiresAt)) },
  });
}
