// Sign in with Apple against a local stand-in for appleid.apple.com: the client secret is an ES256 JWT the stand-in
// can verify with the operator's public key, the return is a form_post to the shared callback, and the name comes
// only from the first sign-in's `user` field.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, test } from 'node:test';
import { jwtVerify } from 'jose';
import { startTestApp } from '../helpers/app.ts';
import { makeConfig } from '../helpers/config.ts';
import { CookieJar } from '../helpers/cookie-jar.ts';
import { freePort } from '../helpers/oauth-server.ts';
import { startStandIn } from '../helpers/oidc-stand-in.ts';
import { providerSecretsDir } from '../helpers/provider-secrets.ts';

describe('apple (ES256 client secret, form_post, first-sign-in name)', async () => {
  const apple = await startStandIn((base) => ({
    '': {
      issuer: base,
      authorization_endpoint: `${base}/auth/authorize`,
      token_endpoint: `${base}/token`,
      jwks_uri: `${base}/keys`,
      response_types_supported: ['code'],
      response_modes_supported: ['query', 'fragment', 'form_post'],
      subject_types_supported: ['pairwise'],
      id_token_signing_alg_values_supported: ['RS256'],
      token_endpoint_auth_methods_supported: ['client_secret_post'],
    },
  }));
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const t = await startTestApp({
    config: makeConfig({
      server: { issuer },
      self_service: { enabled: true },
      delivery: {
        kind: 'smtp',
        from: 'id@acme.dev',
        smtp: { host: 'smtp.acme.dev', username: 'u', password_file: '/etc/gatehouse/secrets/smtp-password' },
      },
      secrets: { dir: providerSecretsDir({ 'provider-apple.p8': pem }) },
      providers: {
        apple: {
          enabled: true,
          client_id: 'dev.acme.signin',
          team_id: 'TEAM123456',
          key_id: 'KEY7654321',
          issuer: apple.base,
        },
      },
    }),
  });
  await t.app.listen({ host: '127.0.0.1', port });

  const signIn = async (user: string | null, sub = 'apple-sub-001') => {
    const jar = new CookieJar();
    const started = await jar.fetch(`${issuer}/auth/federated/start?provider=apple`);
    assert.equal(started.status, 302);
    const authorize = new URL(started.headers.get('location') ?? '');
    assert.equal(authorize.searchParams.get('response_mode'), 'form_post');
    assert.equal(authorize.searchParams.get('scope'), 'openid name email');
    apple.nextToken = {
      iss: apple.base,
      aud: 'dev.acme.signin',
      sub,
      nonce: authorize.searchParams.get('nonce'),
      email: 'k7x2@privaterelay.appleid.com',
      email_verified: 'true',
    };
    const form = new URLSearchParams({ code: 'apple-code', state: authorize.searchParams.get('state') ?? '' });
    if (user) form.set('user', user);
    const done = await jar.fetch(`${issuer}/auth/federated/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://appleid.apple.com' },
      body: form.toString(),
    });
    return { done, body: await done.text() };
  };

  test('the token request carries a fresh ES256 client secret signed with the operator key (iss team, sub client, aud Apple)', async () => {
    const { done } = await signIn(JSON.stringify({ name: { firstName: 'Tim', lastName: 'Apple' }, email: 'x@y' }));
    assert.equal(done.status, 303);
    const secret = apple.lastTokenRequest?.get('client_secret') ?? '';
    const { payload, protectedHeader } = await jwtVerify(secret, publicKey, {
      issuer: 'TEAM123456',
      subject: 'dev.acme.signin',
      audience: apple.base,
    });
    assert.deepEqual(protectedHeader, { alg: 'ES256', kid: 'KEY7654321' });
    assert.equal((payload.exp as number) - (payload.iat as number), 300);
    assert.equal(apple.lastTokenRequest?.get('client_id'), 'dev.acme.signin');
  });

  test('the first sign-in takes the name from the form_post `user` field and the relay email as verified', async () => {
    const [row] = await t.sql`
      select i.display_name, e.address, e.verified_at is not null as verified
      from sign_in_methods m join identities i on i.id = m.identity_id join emails e on e.identity_id = i.id
      where m.provider = 'apple' and m.external_subject = 'apple-sub-001'`;
    assert.deepEqual(
      { ...row },
      { display_name: 'Tim Apple', address: 'k7x2@privaterelay.appleid.com', verified: true },
    );
  });

  test('a later sign-in (no `user` field) signs in to the same identity and keeps its name', async () => {
    const { done } = await signIn(null);
    assert.equal(done.status, 303);
    const rows = await t.sql`select i.display_name from sign_in_methods m join identities i on i.id = m.identity_id
                             where m.provider = 'apple'`;
    assert.deepEqual(
      rows.map((r) => r.display_name),
      ['Tim Apple'],
    );
  });

  test('a form_post callback without the browser cookie is refused', async () => {
    const response = await fetch(`${issuer}/auth/federated/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ code: 'c', state: 'some-state' }).toString(),
    });
    assert.equal(response.status, 400);
    assert.match(await response.text(), /<code>invalid_federated_transaction<\/code>/);
  });
});
