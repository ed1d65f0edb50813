// Microsoft Entra ID, multi-tenant: the discovery document names the issuer template .../{tenantid}/v2.0 and each ID
// token's `iss` must be that template with the token's own `tid`. A local stand-in plays login.microsoftonline.com.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestApp } from '../helpers/app.ts';
import { makeConfig } from '../helpers/config.ts';
import { CookieJar } from '../helpers/cookie-jar.ts';
import { freePort } from '../helpers/oauth-server.ts';
import { startStandIn } from '../helpers/oidc-stand-in.ts';
import { providerSecretsDir } from '../helpers/provider-secrets.ts';

const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const OTHER_TENANT = '9188040d-6c67-4c5b-b112-36a304b66dad';

describe('microsoft (multi-tenant issuer check)', async () => {
  const entra = await startStandIn((base) => ({
    '/common/v2.0': {
      issuer: `${base}/{tenantid}/v2.0`,
      authorization_endpoint: `${base}/common/oauth2/v2.0/authorize`,
      token_endpoint: `${base}/token`,
      jwks_uri: `${base}/keys`,
      response_types_supported: ['code'],
      subject_types_supported: ['pairwise'],
      id_token_signing_alg_values_supported: ['RS256'],
    },
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
      secrets: { dir: providerSecretsDir({ microsoft: 'entra-secret-value-1' }) },
      providers: { microsoft: { enabled: true, client_id: 'entra-app-1', issuer: `${entra.base}/common/v2.0` } },
    }),
  });
  await t.app.listen({ host: '127.0.0.1', port });

  /** Starts, lets the stand-in mint an ID token with `claims` (over the right ones), and follows the callback. */
  const signIn = async (claims: Record<string, unknown> = {}) => {
    const jar = new CookieJar();
    const started = await jar.fetch(`${issuer}/auth/federated/start?provider=microsoft`);
    assert.equal(started.status, 302);
    const authorize = new URL(started.headers.get('location') ?? '');
    assert.equal(authorize.origin + authorize.pathname, `${entra.base}/common/oauth2/v2.0/authorize`);
    entra.nextToken = {
      iss: `${entra.base}/${TENANT}/v2.0`,
      tid: TENANT,
      sub: 'entra-pairwise-sub-1',
      aud: 'entra-app-1',
      nonce: authorize.searchParams.get('nonce'),
      name: 'Satya N',
      email: 'satya@contoso.dev',
      ...claims,
    };
    const callback = new URL(authorize.searchParams.get('redirect_uri') ?? '');
    callback.search = new URLSearchParams({
      code: 'entra-code',
      state: authorize.searchParams.get('state') ?? '',
    }).toString();
    const done = await jar.fetch(callback);
    return { done, body: await done.text() };
  };
  const linked = () => t.sql`select external_subject from sign_in_methods where provider = 'microsoft'`;

  test('an ID token whose iss is the template with its own tid signs in, with PKCE and the client secret sent', async () => {
    const { done } = await signIn();
    assert.equal(done.status, 303);
    assert.deepEqual(
      [...(await linked())].map((r) => r.external_subject),
      ['entra-pairwise-sub-1'],
    );
    assert.equal(entra.lastTokenRequest?.get('client_secret'), 'entra-secret-value-1');
    assert.match(entra.lastTokenRequest?.get('code_verifier') ?? '', /^[A-Za-z0-9_-]{43,}$/);
    // Entra's email claim is not verified by Microsoft: recorded, never trusted for the collision check.
    const [email] = await t.sql`select verified_at from emails where address = 'satya@contoso.dev'`;
    assert.equal(email?.verified_at, null);
  });

  test("an iss naming another tenant than the token's tid is refused", async () => {
    const { done, body } = await signIn({ sub: 'entra-sub-2', iss: `${entra.base}/${OTHER_TENANT}/v2.0` });
    assert.equal(done.status, 400);
    assert.match(body, /<code>federated_response_invalid<\/code>/);
    assert.equal((await linked()).length, 1);
  });

  test('a tid that is not a tenant id is refused', async () => {
    const { done } = await signIn({ sub: 'entra-sub-3', tid: '{tenantid}', iss: `${entra.base}/{tenantid}/v2.0` });
    assert.equal(done.status, 400);
  });

  test('an ID token for another audience is refused', async () => {
    const { done, body } = await signIn({ sub: 'entra-sub-4', aud: 'someone-elses-app' });
    assert.equal(done.status, 400);
    assert.match(body, /<code>federated_response_invalid<\/code>/);
    assert.equal((await linked()).length, 1);
  });

  test('an ID token with another nonce is refused', async () => {
    const { done } = await signIn({ sub: 'entra-sub-5', nonce: 'not-the-transaction-nonce' });
    assert.equal(done.status, 400);
    assert.equal((await linked()).length, 1);
  });
});
