// Steps the granted-access tests share: a person's consent given through the real consent page, and the three
// checks that say whether tokens still work (introspection, userinfo, refresh) after access was revoked.
import assert from 'node:assert/strict';
import type { Client } from '../../src/clients/store.ts';
import type { TestApp } from './app.ts';
import { authorizeUrl, pkcePair, postForm, refreshTokens } from './oauth-flow.ts';

/** The authorization request for a third-party client, answered on its consent page with Allow. */
export async function consentTo(t: TestApp, client: Client, cookie: string, scope: string): Promise<void> {
  const url = authorizeUrl({ client, challenge: pkcePair().challenge, scope });
  const page = await t.app.inject({ method: 'GET', url, headers: { cookie } });
  assert.equal(page.statusCode, 200, 'the consent page is shown');
  assert.match(page.body, /wants to access your account/);
  const field = (name: string) =>
    (new RegExp(`name="${name}" value="([^"]*)"`).exec(page.body)?.[1] ?? '').replaceAll('&#38;', '&');
  const allowed = await t.app.inject({
    method: 'POST',
    url: '/oauth/authorize/consent',
    headers: { cookie, origin: t.config.server.issuer, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ request: field('request'), csrf: field('csrf'), decision: 'allow' }).toString(),
  });
  assert.equal(allowed.statusCode, 303);
}

/** What GET /oauth/authorize answers now: 200 when it shows the consent page, 302 when it redirects back. */
export async function authorizeAnswer(t: TestApp, client: Client, cookie: string, scope: string) {
  const url = authorizeUrl({ client, challenge: pkcePair().challenge, scope });
  const r = await t.app.inject({ method: 'GET', url, headers: { cookie } });
  const location = r.headers.location ? new URL(r.headers.location as string) : null;
  return { status: r.statusCode, body: r.body, code: location?.searchParams.get('code') ?? null };
}

/** The client itself introspects its token (RFC 7662). */
export const introspect = (t: TestApp, client: Client, secret: string, token: string) =>
  postForm(t, '/oauth/introspect', { client_id: client.id, client_secret: secret, token });

export async function userinfo(t: TestApp, accessToken: string) {
  const r = await t.app.inject({
    method: 'GET',
    url: '/oauth/userinfo',
    headers: { authorization: `Bearer ${accessToken}` },
  });
  return { status: r.statusCode, json: r.json() as Record<string, unknown>, headers: r.headers };
}

/** Asserts that every token of a revoked grant is refused: introspection, userinfo and refresh. */
export async function assertTokensDead(
  t: TestApp,
  tokens: { client: Client; secret: string; access_token: string; refresh_token: string },
) {
  assert.deepEqual((await introspect(t, tokens.client, tokens.secret, tokens.access_token)).json, { active: false });
  const info = await userinfo(t, tokens.access_token);
  assert.equal(info.status, 401);
  assert.deepEqual(info.json, {
    error: 'invalid_token',
    error_description: 'The access token is invalid, expired or revoked',
    request_id: info.headers['x-request-id'],
  });
  const refreshed = await refreshTokens(t, tokens.client, tokens.secret, tokens.refresh_token);
  assert.equal(refreshed.status, 400);
  assert.deepEqual(refreshed.json, {
    error: 'invalid_grant',
    error_description: 'The refresh token has been revoked',
    request_id: refreshed.headers['x-request-id'],
  });
}

/** Asserts that the tokens still work: introspection active, userinfo 200, a refresh succeeds (and returns its tokens). */
export async function assertTokensLive(
  t: TestApp,
  tokens: { client: Client; secret: string; access_token: string; refresh_token: string },
) {
  assert.equal((await introspect(t, tokens.client, tokens.secret, tokens.access_token)).json.active, true);
  assert.equal((await userinfo(t, tokens.access_token)).status, 200);
  const refreshed = await refreshTokens(t, tokens.client, tokens.secret, tokens.refresh_token);
  assert.equal(refreshed.status, 200, JSON.stringify(refreshed.json));
  return refreshed.json as { access_token: string; refresh_token: string };
}
