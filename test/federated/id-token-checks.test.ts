// The ID token checks of the generic OpenID Connect flow against a stand-in whose tokens the test chooses: another
// audience, another issuer, an expired token, a bad signature; and a discovery document naming another issuer.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestApp } from '../helpers/app.ts';
import { genericOidc, makeConfig } from '../helpers/config.ts';
import { CookieJar } from '../helpers/cookie-jar.ts';
import { freePort } from '../helpers/oauth-server.ts';
import { plainDiscovery, startStandIn } from '../helpers/oidc-stand-in.ts';
import { providerSecretsDir } from '../helpers/provider-secrets.ts';

describe('generic OpenID Connect: ID token validation (stand-in provider)', async () => {
  const idp = await startStandIn((base) => ({
    '': plainDiscovery(base),
    '/impostor': { issuer: 'https://someone-else.dev', authorization_endpoint: `${base}/authorize` },
  }));
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
      secrets: { dir: providerSecretsDir({ idp: 'idp-secret-1', impostor: 'idp-secret-2' }) },
      providers: {
        oidc: [
          genericOidc({ id: 'idp', name: 'IdP', issuer: idp.base, client_id: 'gatehouse-at-idp' }),
          genericOidc({ id: 'impostor', name: 'Impostor', issuer: `${idp.base}/impostor`, client_id: 'g' }),
        ],
      },
    }),
  });
  await t.app.listen({ host: '127.0.0.1', port });

  const signIn = async (claims: Record<string, unknown>, forged = false) => {
    const jar = new CookieJar();
    const started = await jar.fetch(`${issuer}/auth/federated/start?provider=idp`);
    const authorize = new URL(started.headers.get('location') ?? '');
    const now = Math.floor(Date.now() / 1000);
    idp.nextToken = {
      iss: idp.base,
      aud: 'gatehouse-at-idp',
      sub: 'idp-user-1',
      nonce: authorize.searchParams.get('nonce'),
      iat: now,
      exp: now + 600,
      ...claims,
    };
    idp.forgeNextToken = forged;
    const callback = new URL(authorize.searchParams.get('redirect_uri') ?? '');
    callback.search = new URLSearchParams({ code: 'c', state: authorize.searchParams.get('state') ?? '' }).toString();
    const done = await jar.fetch(callback);
    return { done, body: await done.text() };
  };
  const linked = async () => (await t.sql`select 1 from sign_in_methods where provider = 'idp'`).length;

  const refusals: [string, Record<string, unknown>, forged?: boolean][] = [
    ['another audience', { aud: 'another-client' }],
    ["another provider's issuer", { iss: 'https://accounts.google.com' }],
    ['an expired token', { iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 }],
    ['no nonce', { nonce: undefined }],
    // The right claims under the published kid, signed with a key the provider never published.
    ['a bad signature', {}, true],
  ];
  for (const [what, claims, forged] of refusals)
    test(`refuses an ID token with ${what} (federated_response_invalid), signing nobody in`, async () => {
      const { done, body } = await signIn(claims, forged);
      assert.equal(done.status, 400);
      assert.match(body, /<code>federated_response_invalid<\/code>/);
      assert.equal(await linked(), 0);
    });

  test('accepts the same token with the right claims, which shows the refusals above were for their claim alone', async () => {
    const { done } = await signIn({});
    assert.equal(done.status, 303);
    assert.equal(await linked(), 1);
  });

  test('a provider whose discovery document names another issuer is never started: a page, no redirect', async () => {
    const response = await fetch(`${issuer}/auth/federated/start?provider=impostor`, { redirect: 'manual' });
    assert.equal(response.status, 400);
    assert.match(await response.text(), /The sign-in provider cannot be reached/);
    assert.equal(response.headers.get('location'), null);
  });
});
