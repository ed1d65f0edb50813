// POST /oauth/authorize (OIDC Core §3.1.2.1): passed on to the GET with the same parameters, or the error page.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestApp } from '../helpers/app.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { authorizeUrl, pkcePair } from '../helpers/oauth-flow.ts';

describe('POST /oauth/authorize', async () => {
  const t = await startTestApp();
  const { client } = await makeClient(t.sql, t.secrets.clientSecret);
  const { cookie } = await makeSession(t, await makeIdentity(t.sql));
  const { challenge } = pkcePair();
  const issuer = t.config.server.issuer;
  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });
  const redirectParams = (location: string) => Object.fromEntries(new URL(location).searchParams);
  const post = (payload: string, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/oauth/authorize',
      payload,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    });

  test('a form POST goes on to the GET with the same parameters, which issues the code', async () => {
    const query = authorizeUrl({ client, challenge }).split('?')[1] as string;
    // A cross-site POST carries no SameSite=Lax cookie: the answer must not depend on one.
    const r = await post(query);
    assert.equal(r.statusCode, 303);
    // DESIGN.md: the authorization endpoint sends no CORS headers, by POST either.
    assert.equal(r.headers['access-control-allow-origin'], undefined);
    const next = new URL(r.headers.location as string, issuer);
    assert.equal(next.pathname, '/oauth/authorize');
    assert.deepEqual([...next.searchParams], [...new URLSearchParams(query)]);
    const back = await get(`${next.pathname}${next.search}`);
    assert.equal(back.statusCode, 302);
    assert.ok(redirectParams(back.headers.location as string).code);
    assert.equal(redirectParams(back.headers.location as string).state, 'st-123');
  });

  test('a repeated, over-long or control-character parameter, or too much to pass on, shows the error page', async () => {
    const query = authorizeUrl({ client, challenge }).split('?')[1] as string;
    const filler = Array.from({ length: 3 }, (_, i) => `extra${i}=${'b'.repeat(5000)}`).join('&');
    for (const [payload, message] of [
      [`${query}&state=again`, /Parameter state is included more than once/],
      [`${query}&login_hint=${'a'.repeat(9000)}`, /Parameter login_hint is too long/],
      // A name Object.prototype also has is limited like any other.
      [`${query}&constructor=${'a'.repeat(9000)}`, /Parameter constructor is too long/],
      [`${query}&login_hint=a%01`, /Parameter login_hint contains a control character/],
      [`${query}&${filler}`, /The request is too long/],
    ] as const) {
      const r = await post(payload, { cookie });
      assert.equal(r.statusCode, 400);
      assert.equal(r.headers.location, undefined);
      assert.match(r.headers['content-type'] as string, /^text\/html/);
      assert.match(r.body, message);
    }
  });

  test('a body that is not a form is refused with 415', async () => {
    const r = await t.app.inject({
      method: 'POST',
      url: '/oauth/authorize',
      payload: { client_id: client.id },
      headers: { cookie },
    });
    assert.equal(r.statusCode, 415);
    assert.equal(r.headers.location, undefined);
  });
});
