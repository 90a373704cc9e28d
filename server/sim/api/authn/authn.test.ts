/** Authentication pieces (pure or in-memory): token files, service-account names, JWTs, service-account tokens. */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryStore } from '../../store/memory-store.ts';
import { bearerToken } from './authenticator.ts';
import { newSigningKey, signJwt, verifyJwt } from './jwt.ts';
import { ServiceAccountTokens } from './service-account-tokens.ts';
import { parseTokenFile } from './token-file.ts';
import { splitServiceAccountUsername, withAuthenticatedGroup } from './user.ts';

describe('static token file', () => {
  it('reads token,user,uid and quoted groups; skips empty tokens; a repeated token replaces the earlier one', () => {
    const tokens = parseTokenFile('t1,alice,u1,"dev,ops"\n,nobody,u0\nt2,bob,u2\r\nt1,carol,u3\n');
    assert.deepEqual(tokens, [
      { token: 't1', user: 'carol', uid: 'u3' },
      { token: 't2', user: 'bob', uid: 'u2' },
    ]);
    assert.deepEqual(parseTokenFile('t,a,u,"g1,g2"')[0].groups, ['g1', 'g2']);
  });

  it('refuses records with fewer than three columns, as kube-apiserver does', () => {
    assert.throws(() => parseTokenFile('t,alice\n', '/etc/tokens.csv'), /token file '\/etc\/tokens.csv' must have at least 3 columns \(token, user name, user uid\), found 2/);
  });
});

describe('users', () => {
  it('splits service-account user names only when both parts are valid names', () => {
    assert.deepEqual(splitServiceAccountUsername('system:serviceaccount:ml:trainer'), { namespace: 'ml', name: 'trainer' });
    assert.equal(splitServiceAccountUsername('system:serviceaccount:ml'), undefined);
    assert.equal(splitServiceAccountUsername('system:serviceaccount:Bad_NS:x'), undefined);
    assert.equal(splitServiceAccountUsername('alice'), undefined);
  });

  it('adds system:authenticated unless the user is anonymous or already has it', () => {
    assert.deepEqual(withAuthenticatedGroup({ username: 'a', groups: ['g'] }).groups, ['g', 'system:authenticated']);
    assert.deepEqual(withAuthenticatedGroup({ username: 'a', groups: ['system:authenticated'] }).groups, ['system:authenticated']);
    assert.deepEqual(withAuthenticatedGroup({ username: 'system:anonymous', groups: [] }).groups, []);
  });

  it('reads bearer tokens as the bearer-token authenticator splits the header', () => {
    assert.equal(bearerToken('Bearer abc'), 'abc');
    assert.equal(bearerToken('bearer abc extra'), 'abc');
    assert.equal(bearerToken('Bearer  abc'), undefined);
    assert.equal(bearerToken('Basic abc'), undefined);
    assert.equal(bearerToken(undefined), undefined);
  });
});

describe('JWT', () => {
  it('verifies what the key signed and nothing else', () => {
    const key = newSigningKey();
    const token = signJwt(key, { sub: 'x', n: 1 });
    assert.deepEqual(verifyJwt(key, token), { sub: 'x', n: 1 });
    const [h, , s] = token.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ sub: 'admin', n: 1 })).toString('base64url')}.${s}`;
    assert.equal(verifyJwt(key, forged), undefined);
    assert.equal(verifyJwt(newSigningKey(), token), undefined);
    assert.equal(verifyJwt(key, 'not-a-jwt'), undefined);
  });
});

describe('service-account tokens', () => {
  function setup() {
    const store = new MemoryStore();
    let now = Date.parse('2030-01-01T00:00:00Z');
    store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ml' } });
    const sa = store.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'trainer', namespace: 'ml' } });
    const tokens = new ServiceAccountTokens(store, () => now);
    return { store, sa, tokens, advance: (ms: number) => (now += ms) };
  }

  it('a bound token is the service account for its audiences, with the credential id', () => {
    const { sa, tokens } = setup();
    const { token, expiresAt } = tokens.issue(sa, { audiences: tokens.apiAudiences, expirationSeconds: 3600 });
    assert.equal(expiresAt, Date.parse('2030-01-01T01:00:00Z'));
    const r = tokens.authenticate(token)!;
    assert.equal(r.user?.username, 'system:serviceaccount:ml:trainer');
    assert.equal(r.user?.uid, sa.metadata.uid);
    assert.deepEqual(r.user?.groups, ['system:serviceaccounts', 'system:serviceaccounts:ml']);
    assert.match(r.user?.extra?.['authentication.kubernetes.io/credential-id']?.[0] ?? '', /^JTI=[0-9a-f-]{36}$/);
    assert.deepEqual(r.audiences, ['https://kubernetes.default.svc.cluster.local']);
  });

  it('refuses a token for other audiences, an expired one, and one whose service account is gone or recreated', () => {
    const { store, sa, tokens, advance } = setup();
    const vault = tokens.issue(sa, { audiences: ['vault'], expirationSeconds: 600 }).token;
    assert.equal(tokens.authenticate(vault)?.error, 'token audiences ["vault"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]');
    assert.deepEqual(tokens.authenticate(vault, ['vault'])?.audiences, ['vault']);
    const api = tokens.issue(sa, { audiences: tokens.apiAudiences, expirationSeconds: 600 }).token;
    advance(11 * 60 * 1000 + 61_000);
    assert.equal(tokens.authenticate(api)?.error, 'service account token has expired');
    const fresh = tokens.issue(sa, { audiences: tokens.apiAudiences, expirationSeconds: 600 }).token;
    store.delete('v1', 'ServiceAccount', 'ml', 'trainer');
    assert.equal(tokens.authenticate(fresh)?.error, 'service account token has been invalidated');
    const again = store.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'trainer', namespace: 'ml' } });
    assert.equal(tokens.authenticate(fresh)?.error, `service account UID (${again.metadata.uid}) does not match claim (${sa.metadata.uid})`);
    assert.equal(tokens.authenticate('opaque-static-token'), undefined, 'not a service-account token at all');
  });

  it('a legacy Secret token is valid while the Secret holds it', () => {
    const { store, sa, tokens } = setup();
    const secret = store.create({ apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/service-account-token', metadata: { name: 'trainer-token', namespace: 'ml', annotations: { 'kubernetes.io/service-account.name': 'trainer' } } });
    const token = tokens.legacyToken(sa, secret);
    assert.equal(tokens.authenticate(token)?.error, "token does not match server's copy");
    store.update({ ...structuredClone(secret), data: { token: Buffer.from(token).toString('base64') } });
    assert.equal(tokens.authenticate(token)?.user?.username, 'system:serviceaccount:ml:trainer');
    store.delete('v1', 'Secret', 'ml', 'trainer-token');
    assert.equal(tokens.authenticate(token)?.error, 'token has been invalidated');
  });
});
