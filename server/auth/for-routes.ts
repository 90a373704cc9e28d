/**
 * What route handlers use from this module: bounded JSON bodies and the server's validator. Kept
 * apart from index.ts because route handlers are bundled by Next.js, and the worker pool (which
 * loads files at run time) must not be part of a bundle.
 */
export { readJsonBody, MAX_BODY_BYTES, MAX_JSON_DEPTH } from './body.ts';
export { getValidator, type Validator, type ValidationAnswer } from './validator-registry.ts';
