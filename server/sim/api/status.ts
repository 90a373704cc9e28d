/** `Status` objects, the API server's error (and delete-success) bodies (pure). */

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: Array<{ type?: string; message?: string; field?: string }>;
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** An error answered as a Status with the same HTTP code. */
export class ApiError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details?: StatusDetails;
  readonly headers: Record<string, string>;
  constructor(code: number, reason: string, message: string, details?: StatusDetails, headers: Record<string, string> = {}) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.details = details;
    this.headers = headers;
  }
  toStatus(): Status {
    return failure(this.code, this.reason, this.message, this.details);
  }
}

export function failure(code: number, reason: string, message: string, details?: StatusDetails): Status {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  // StatusReasonUnknown ("") is left out, as Go's omitempty does.
  if (!reason) delete s.reason;
  if (details && Object.keys(details).length > 0) s.details = details;
  return s;
}

export function success(details: StatusDetails): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details, code: 200 };
}

/** `widgets.example.com` / `pods`: how the real server names a resource in messages. */
export function qualifiedResource(group: string, plural: string): string {
  return group ? `${plural}.${group}` : plural;
}

export const notFoundPath = (): ApiError => new ApiError(404, 'NotFound', 'the server could not find the requested resource');

export const badRequest = (message: string): ApiError => new ApiError(400, 'BadRequest', message);

export const methodNotAllowed = (method: string): ApiError => new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`, undefined, { Allow: method });

export function invalid(kind: string, group: string, name: string, field: string, detail: string, type = 'FieldValueInvalid'): ApiError {
  return new ApiError(422, 'Invalid', `${kind}${group ? `.${group}` : ''} "${name}" is invalid: ${field}: ${detail}`, { name, group, kind, causes: [{ type, message: detail, field }] });
}

export function unsupportedMediaType(accepted: string[]): ApiError {
  return new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
}

/**
 * The wording of the real authorizer's denial (responsewriters.Forbidden): `resource` may carry its
 * subresource (`pods/log`); a non-empty `reason` from the authorizer follows after a colon.
 */
export function forbidden(user: string, verb: string, group: string, resource: string, name: string | undefined, namespace: string | undefined, reason = ''): ApiError {
  const subject = name ? `${qualifiedResource(group, resource.split('/')[0])} "${name}"` : qualifiedResource(group, resource.split('/')[0]);
  const scope = namespace ? `in the namespace "${namespace}"` : 'at the cluster scope';
  const why = `User "${user}" cannot ${verb} resource "${resource}" in API group "${group}" ${scope}${reason ? `: ${reason}` : ''}`;
  return new ApiError(403, 'Forbidden', `${subject} is forbidden: ${why}`, { name, group, kind: resource.split('/')[0] });
}

/** The denial of a non-resource request (discovery, health, version). */
export function forbiddenPath(user: string, verb: string, path: string, reason = ''): ApiError {
  return new ApiError(403, 'Forbidden', `forbidden: User "${user}" cannot ${verb} path "${path}"${reason ? `: ${reason}` : ''}`);
}

/**
 * An error the real server writes as plain text instead of a Status (responsewriters.InternalError:
 * `Internal Server Error: "<request URI>": <error>`), e.g. impersonation headers without a user.
 */
export class PlainTextError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}
