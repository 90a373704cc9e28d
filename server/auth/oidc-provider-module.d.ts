/**
 * The part of `oidc-provider` (test support only) that the test provider uses. The package ships no
 * types, and @types/oidc-provider would be a third dependency for a dev-only helper; this covers
 * exactly what oidc-test-provider.ts calls, so the helper stays type-checked.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface PromptDetails {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  }

  export interface InteractionDetails {
    uid: string;
    prompt: { name: string; details: PromptDetails };
    params: Record<string, unknown> & { client_id?: string };
    session?: { accountId?: string };
    grantId?: string;
  }

  export interface InteractionResult {
    login?: { accountId: string };
    consent?: { grantId: string };
    error?: string;
    error_description?: string;
  }

  export interface Grant {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(indicator: string, scope: string): void;
    save(): Promise<string>;
  }

  export interface GrantClass {
    new (init: { accountId: string; clientId: string }): Grant;
    find(id: string): Promise<Grant | undefined>;
  }

  export interface Account {
    accountId: string;
    claims(use: string, scope: string): Record<string, unknown> | Promise<Record<string, unknown>>;
  }

  /** Koa's context, reduced to what the page hooks (renderError, logout pages) write. */
  export interface PageContext {
    type: string;
    body: string;
    status: number;
    host: string;
  }

  export interface Configuration {
    clients?: Array<Record<string, unknown>>;
    findAccount?: (ctx: unknown, id: string) => Promise<Account | undefined> | Account | undefined;
    claims?: Record<string, string[] | null>;
    scopes?: string[];
    conformIdTokenClaims?: boolean;
    features?: Record<string, Record<string, unknown>>;
    interactions?: { url?: (ctx: unknown, interaction: { uid: string }) => string | Promise<string> };
    cookies?: { keys?: string[]; long?: Record<string, unknown>; short?: Record<string, unknown> };
    jwks?: { keys: Array<Record<string, unknown>> };
    ttl?: Record<string, number>;
    pkce?: { required?: (ctx: unknown, client: unknown) => boolean };
    issueRefreshToken?: (ctx: unknown, client: { grantTypeAllowed(type: string): boolean }, code: unknown) => boolean | Promise<boolean>;
    renderError?: (ctx: PageContext, out: Record<string, string>, error: unknown) => void | Promise<void>;
  }

  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
    readonly Grant: GrantClass;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: InteractionResult, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
