/**
 * What route handlers use from this module: bounded JSON bodies, the server's validator, who the
 * request is and what it may do (the access settings and reviewer). Kept
 * apart from index.ts because route handlers are bundled by Next.js, and the worker pool (which
 * loads files at run time) must not be part of a bundle.
 */
export { readJsonBody, MAX_BODY_BYTES, MAX_JSON_DEPTH } from './body.ts';
export { getValidator, type Validator, type ValidationAnswer } from './validator-registry.ts';
export { principalOfHeaders } from './request-identity.ts';
export { getAccessSettings, actAsFor, type AccessSettings, type ActAsValue } from './access-registry.ts';
export { principalView, ownPrincipal, type Principal, type PrincipalView } from './principal.ts';
export type { AccessAttributes, AccessDecision } from './access-review.ts';
export { getJobRunner, type JobRunner } from './job-registry.ts';
