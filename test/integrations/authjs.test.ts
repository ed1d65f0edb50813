// docs/integrations.md "Auth.js": the quoted provider, in @auth/core's own Auth() handler (what next-auth wraps), signs
// a person in through Gatehouse with Auth.js's default checks (PKCE only: no state, no nonce).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Auth, type AuthConfig } from '@auth/core';
import type { Provider } from '@auth/core/providers';
import type { Profile } from '@auth/core/types';
import { CookieJar } from '../helpers/cookie-jar.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { browse, startListeningIssuer } from '../helpers/oauth-server.ts';
import { gatehouseProvider, gatehouseProviderWithUserinfo } from './snippets/authjs.ts';

describe('Auth.js (@auth/core) with Gatehouse as a generic OIDC provider', async () => {
  const t = await startListeningIssuer();
  const app = 'http://localhost:3000';
  const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret, {
    redirectUris: [`${app}/auth/callback/gatehouse`],
  });
  const sub = await makeIdentity(t.sql, { displayName: 'Grace Hopper', email: 'grace@example.test' });
  const { cookie: gatehouseSession } = await makeSession(t, sub);

  /** A browser's whole sign-in at the app: CSRF token, sign-in POST, Gatehouse, callback, then the session. */
  async function signIn(provider: Provider) {
    const profiles: Profile[] = [];
    const config: AuthConfig = {
      providers: [provider],
      secret: 'a-test-secret-of-the-app-that-is-long-enough',
      trustHost: true,
      // Observes what Auth.js received; changes nothing in the flow.
      events: { signIn: ({ profile }) => void (profile && profiles.push(profile)) },
    };
    const jar = new CookieJar();
    const auth = async (path: string, init: RequestInit = {}) => {
      const request = new Request(`${app}${path}`, { ...init, headers: { ...init.headers, cookie: jar.header } });
      return jar.take(await Auth(request, config));
    };
    const { csrfToken } = (await (await auth('/auth/csrf')).json()) as { csrfToken: string };
    const start = await auth('/auth/signin/gatehouse', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrfToken, callbackUrl: `${app}/dashboard` }),
    });
    assert.equal(start.status, 302);
    const authorize = new URL(start.headers.get('location') as string);
    const callback = await browse(authorize, gatehouseSession);
    assert.equal(`${callback.origin}${callback.pathname}`, `${app}/auth/callback/gatehouse`);
    const done = await auth(`${callback.pathname}${callback.search}`);
    assert.equal(done.status, 302, await done.clone().text());
    assert.equal(done.headers.get('location'), `${app}/dashboard`);
    const session = (await (await auth('/auth/session')).json()) as { user?: unknown; expires?: string };
    assert.equal(profiles.length, 1);
    return { authorize, session, profile: profiles[0] as Profile };
  }

  test('signs in with PKCE alone (no state, no nonce); the profile is the ID token’s claims', async () => {
    const { authorize, session, profile } = await signIn(gatehouseProvider(t.issuer, client.id, secret as string));
    assert.equal(`${authorize.origin}${authorize.pathname}`, `${t.issuer}/oauth/authorize`);
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(authorize.searchParams.get('scope'), 'openid profile email');
    assert.equal(authorize.searchParams.has('state'), false, 'Auth.js sends no state by default');
    assert.equal(authorize.searchParams.has('nonce'), false, 'Auth.js sends no nonce by default');
    assert.equal(profile.sub, sub);
    assert.equal(profile.iss, t.issuer);
    assert.equal(profile.aud, client.id);
    assert.equal(profile.acr, 'aal2');
    assert.ok(!('nonce' in profile));
    // The ID token names the subject and the sign-in, not the person: the session holds no name or email.
    assert.deepEqual(session.user, {});
    assert.ok(Date.parse(session.expires as string) > Date.now());
  });

  test('with idToken: false the profile comes from userinfo and the session names the person', async () => {
    const { session, profile } = await signIn(gatehouseProviderWithUserinfo(t.issuer, client.id, secret as string));
    assert.deepEqual(profile, { sub, name: 'Grace Hopper', email: 'grace@example.test', email_verified: true });
    assert.deepEqual(session.user, { name: 'Grace Hopper', email: 'grace@example.test' });
  });
});
