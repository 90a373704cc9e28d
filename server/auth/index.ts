/** Request safety for the custom server and the route handlers: the gate, bounded bodies, off-thread validation. */
export { requestGate, type Gate, type GateOptions } from './gate.ts';
export { parseHostList, isLoopbackBind } from './hosts.ts';
export { buildScriptHashes } from './security-headers.ts';
export { readJsonBody, MAX_BODY_BYTES, MAX_JSON_DEPTH } from './body.ts';
export { problemBody, type RequestProblem } from './problem.ts';
export { startValidator, startJobRunner } from './validation.ts';
export { setValidator, getValidator, type Validator, type ValidationAnswer } from './validator-registry.ts';
export { sharedMode, type SharedModeOptions } from './shared-mode.ts';
export { AccessReviewer, type AccessAttributes, type AccessDecision, type ReviewTransport } from './access-review.ts';
export { setAccessSettings, getAccessSettings, actAsFor, type AccessSettings } from './access-registry.ts';
export { hostPolicy } from './hosts.ts';
export type { ProxyAuthOptions, TokenVerdict } from './authenticate.ts';
export type { Principal } from './principal.ts';
export type { OidcConfig } from './oidc.ts';
export type { SharedAuth } from './gate.ts';
