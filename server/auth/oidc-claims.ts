/**
 * From validated claims to the Kubernetes user and groups, read the way kube-apiserver's OIDC
 * authenticator reads them (--oidc-username-claim, --oidc-username-prefix, --oidc-groups-claim,
 * --oidc-groups-prefix), so that RBAC bindings written for a cluster's OIDC users also fit the
 * users this dashboard impersonates:
 * - the username claim must be a non-empty string;
 * - with the `email` claim, an `email_verified` that is present must be true (an unverified address
 *   would let anyone claim anyone's name);
 * - no username prefix given: none for `email`, `<issuer>#` for any other claim (kube-apiserver's
 *   default, which keeps one provider's `sub`s from colliding with another's); `-` means none;
 * - groups may be one string or a list of strings; absent means none.
 * Pure: no I/O.
 */
import { OidcError } from './oidc-error.ts';

export interface ClaimMapping {
  issuer: string;
  usernameClaim: string;
  /** As configured; undefined means kube-apiserver's default (see above). */
  usernamePrefix?: string;
  groupsClaim: string;
  groupsPrefix: string;
}

export function effectiveUsernamePrefix(m: Pick<ClaimMapping, 'issuer' | 'usernameClaim' | 'usernamePrefix'>): string {
  if (m.usernamePrefix === '-') return '';
  if (m.usernamePrefix !== undefined) return m.usernamePrefix;
  return m.usernameClaim === 'email' ? '' : `${m.issuer}#`;
}

const present = (v: unknown) => v !== undefined && v !== null;

/** Whether these claims (from the ID token) lack what the mapping reads, so userinfo is worth asking. */
export function lacksMappedClaims(claims: Record<string, unknown>, m: ClaimMapping): boolean {
  return !present(claims[m.usernameClaim]) || !present(claims[m.groupsClaim]);
}

export function userAndGroups(claims: Record<string, unknown>, m: ClaimMapping): { user: string; groups: string[] } {
  const raw = claims[m.usernameClaim];
  if (!present(raw)) {
    const names = Object.keys(claims).sort().join(', ');
    throw new OidcError(
      'claim_missing',
      m.issuer,
      `The sign-in with ${m.issuer} has no "${m.usernameClaim}" claim, which is the configured username claim (claims received: ${names || 'none'}). Set usernameClaim to a claim the provider sends, or ask for the scope that releases it.`,
    );
  }
  if (typeof raw !== 'string' || raw === '') {
    throw new OidcError('claim_invalid', m.issuer, `The "${m.usernameClaim}" claim from ${m.issuer} is not a non-empty string, so it cannot be a username.`);
  }
  if (m.usernameClaim === 'email' && present(claims.email_verified) && claims.email_verified !== true && claims.email_verified !== 'true') {
    throw new OidcError('email_unverified', m.issuer, `${m.issuer} says the email address of this account is not verified, so it cannot be used as the username.`);
  }

  const rawGroups = claims[m.groupsClaim];
  let groups: string[];
  if (!present(rawGroups)) groups = [];
  else if (typeof rawGroups === 'string') groups = [rawGroups];
  else if (Array.isArray(rawGroups) && rawGroups.every((g) => typeof g === 'string')) groups = rawGroups;
  else throw new OidcError('claim_invalid', m.issuer, `The "${m.groupsClaim}" claim from ${m.issuer} is neither a string nor a list of strings.`);

  return {
    user: `${effectiveUsernamePrefix(m)}${raw}`,
    groups: [...new Set(groups.filter((g) => g !== '').map((g) => `${m.groupsPrefix}${g}`))],
  };
}
