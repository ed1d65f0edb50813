// GitHub and Discord: OAuth 2 with PKCE, then the user API. Local stand-ins play github.com (an Enterprise-style base
// URL, API under /api/v3) and discord.com; the subject is the numeric id, the email only what the API marks verified.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Recorded, startApiStandIn } from '../helpers/api-stand-in.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeConfig } from '../helpers/config.ts';
import { CookieJar } from '../helpers/cookie-jar.ts';
import { freePort } from '../helpers/oauth-server.ts';
import { providerSecretsDir } from '../helpers/provider-secrets.ts';

const bearer =
  (token: string, answer: unknown) =>
  (r: Recorded): [number, unknown] =>
    r.authorization === `Bearer ${token}` ? [200, answer] : [401, { message: 'Bad credentials' }];

describe('github and discord (OAuth 2 + user API)', async () => {
  let githubUser: unknown = { id: 583231, login: 'octocat', name: 'The Octocat' };
  const github = await startApiStandIn({
    '/login/oauth/access_token': () => [
      200,
      { access_token: 'gho_stand_in', token_type: 'bearer', scope: 'read:user' },
    ],
    '/api/v3/user': (r) => bearer('gho_stand_in', githubUser)(r),
    '/api/v3/user/emails': bearer('gho_stand_in', [
      { email: 'octo-public@github.dev', primary: false, verified: false },
      { email: 'octo@github.dev', primary: true, verified: true },
    ]),
  });
  const discord = await startApiStandIn({
    '/api/oauth2/token': () => [200, { access_token: 'dc_stand_in', token_type: 'Bearer', expires_in: 604800 }],
    '/api/users/@me': bearer('dc_stand_in', {
      id: '80351110224678912',
      username: 'nelly',
      global_name: 'Nelly',
      email: 'nelly@discord.dev',
      verified: false,
    }),
  });
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
      secrets: { dir: providerSecretsDir({ github: 'github-secret-1', discord: 'discord-secret-1' }) },
      providers: {
        github: { enabled: true, client_id: 'Iv1.gatehouse', issuer: github.base },
        discord: { enabled: true, client_id: '1100220033', issuer: discord.base },
      },
    }),
  });
  await t.app.listen({ host: '127.0.0.1', port });

  const signIn = async (provider: string) => {
    const jar = new CookieJar();
    const started = await jar.fetch(`${issuer}/auth/federated/start?provider=${provider}`);
    assert.equal(started.status, 302);
    const authorize = new URL(started.headers.get('location') ?? '');
    const callback = new URL(authorize.searchParams.get('redirect_uri') ?? '');
    callback.search = new URLSearchParams({
      code: 'c0de',
      state: authorize.searchParams.get('state') ?? '',
    }).toString();
    const done = await jar.fetch(callback);
    return { authorize, done, body: await done.text() };
  };
  const methods = (provider: string) =>
    t.sql`select m.external_subject, e.address, e.verified_at is not null as verified
          from sign_in_methods m join emails e on e.identity_id = m.identity_id where m.provider = ${provider}`;

  test('GitHub signs up by numeric id with the primary verified email, sending PKCE and the secret', async () => {
    const { authorize, done } = await signIn('github');
    assert.equal(authorize.origin + authorize.pathname, `${github.base}/login/oauth/authorize`);
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(authorize.searchParams.get('scope'), 'read:user user:email');
    assert.equal(done.status, 303);
    assert.deepEqual(
      [...(await methods('github'))].map((r) => ({ ...r })),
      [{ external_subject: '583231', address: 'octo@github.dev', verified: true }],
    );
    const token = github.requests.find((r) => r.path === '/login/oauth/access_token');
    assert.equal(token?.body.get('client_secret'), 'github-secret-1');
    assert.equal(token?.body.get('code'), 'c0de');
    assert.match(token?.body.get('code_verifier') ?? '', /^[A-Za-z0-9_-]{43,}$/);
  });

  test('Discord signs up by snowflake id; an email Discord has not verified is kept unverified', async () => {
    const { done } = await signIn('discord');
    assert.equal(done.status, 303);
    assert.deepEqual(
      [...(await methods('discord'))].map((r) => ({ ...r })),
      [{ external_subject: '80351110224678912', address: 'nelly@discord.dev', verified: false }],
    );
  });

  test('a user API answer without a numeric id is refused, and nothing is created', async () => {
    githubUser = { login: 'no-id' };
    try {
      const before = (await t.sql`select count(*)::int as n from identities`)[0]?.n;
      const { done, body } = await signIn('github');
      assert.equal(done.status, 400);
      assert.match(body, /<code>federated_response_invalid<\/code>/);
      assert.equal((await t.sql`select count(*)::int as n from identities`)[0]?.n, before);
    } finally {
      githubUser = { id: 583231, login: 'octocat', name: 'The Octocat' };
    }
  });
});
