// docs/integrations.md "Auth.js": the quoted provider and session callbacks, in @auth/core's own Auth() handler (what
// next-auth wraps): sign-in through Gatehouse with Auth.js's default checks (PKCE only: no state, no nonce), the
// profile from the ID token or userinfo, the access token renewed in the jwt callback once it has expired (the new one
// works, the replaced refresh token is refused), and a sign-out that ends the Gatehouse session too.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Auth, type AuthConfig } from '@auth/core';
import { getToken } from '@auth/core/jwt';
import type { Provider } from '@auth/core/providers';
import type { Profile } from '@auth/core/types';
import { CookieJar } from '../helpers/cookie-jar.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { browse, startListeningIssuer } from '../helpers/oauth-server.ts';
import { gatehouseProvider, gatehouseProviderWithUserinfo } from './snippets/authjs.ts';
import { gatehouseSessionCallbacks, gatehouseSignOutUrl, withOfflineAccess } from './snippets/authjs-session.ts';

const SECRET = 'a-test-secret-of-the-app-that-is-long-enough';

interface AppSession {
  user?: unknown;
  expires?: string;
  accessToken?: string;
  error?: string;
}

describe('Auth.js (@auth/core) with Gatehouse as a generic OIDC provider', async () => {
  const t = await startListeningIssuer();
  const app = 'http://localhost:3000';
  const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret, {
    redirectUris: [`${app}/auth/callback/gatehouse`],
    postLogoutRedirectUris: [`${app}/signed-out`],
  });
  const sub = await makeIdentity(t.sql, { displayName: 'Grace Hopper', email: 'grace@example.test' });
  const withSessionCallbacks = {
    providers: [withOfflineAccess(gatehouseProvider(t.issuer, client.id, secret as string))],
    callbacks: gatehouseSessionCallbacks(t.issuer, client.id, secret as string),
  };

  /** One browser at the app: its cookies, Auth.js's routes, and what the app's server reads from its session JWT. */
  function browser(config: Pick<AuthConfig, 'providers' | 'callbacks'>, profiles: Profile[] = []) {
    const full: AuthConfig = {
      ...config,
      secret: SECRET,
      trustHost: true,
      // Observes what Auth.js received; changes nothing in the flow.
      events: { signIn: ({ profile }) => void (profile && profiles.push(profile)) },
    };
    const jar = new CookieJar();
    const auth = async (path: string, init: RequestInit = {}) => {
      const request = new Request(`${app}${path}`, { ...init, headers: { ...init.headers, cookie: jar.header } });
      return jar.take(await Auth(request, full));
    };
    const form = async (path: string, fields: Record<string, string>) => {
      const { csrfToken } = (await (await auth('/auth/csrf')).json()) as { csrfToken: string };
      return auth(path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrfToken, ...fields }),
      });
    };
    const session = async () => (await (await auth('/auth/session')).json()) as AppSession | null;
    const jwt = () => getToken({ req: { headers: { cookie: jar.header } }, secret: SECRET, secureCookie: false });
    /** The sign-in button: Auth.js's redirect to Gatehouse's authorization endpoint. */
    const startSignIn = async () => {
      const start = await form('/auth/signin/gatehouse', { callbackUrl: `${app}/dashboard` });
      assert.equal(start.status, 302);
      return new URL(start.headers.get('location') as string);
    };
    return { auth, form, session, jwt, startSignIn, profiles };
  }

  /** A browser's whole sign-in at the app: CSRF token, sign-in POST, Gatehouse, callback, then the session. */
  async function signIn(config: Pick<AuthConfig, 'providers' | 'callbacks'>, gatehouseSession: string) {
    const profiles: Profile[] = [];
    const b = browser(config, profiles);
    const authorize = await b.startSignIn();
    const callback = await browse(authorize, gatehouseSession);
    assert.equal(`${callback.origin}${callback.pathname}`, `${app}/auth/callback/gatehouse`);
    const done = await b.auth(`${callback.pathname}${callback.search}`);
    assert.equal(done.status, 302, await done.clone().text());
    assert.equal(done.headers.get('location'), `${app}/dashboard`);
    const signedIn = await b.session();
    assert.equal(profiles.length, 1);
    return { ...b, authorize, signedIn, profile: profiles[0] as Profile };
  }

  const provider = (make: (issuer: string, id: string, secret: string) => Provider) => ({
    providers: [make(t.issuer, client.id, secret as string)],
  });

  const userinfo = async (accessToken: string | undefined) => {
    const response = await fetch(`${t.issuer}/oauth/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
    return { status: response.status, sub: ((await response.json()) as { sub?: string }).sub };
  };

  const refreshAtGatehouse = async (refreshToken: unknown) => {
    const response = await fetch(`${t.issuer}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: String(refreshToken),
        client_id: client.id,
        client_secret: secret as string,
      }),
    });
    return { status: response.status, error: ((await response.json()) as { error?: string }).error };
  };

  test('signs in with PKCE alone (no state, no nonce); the profile is the ID token’s claims', async () => {
    const { cookie } = await makeSession(t, sub);
    const { authorize, signedIn: session, profile } = await signIn(provider(gatehouseProvider), cookie);
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
    assert.deepEqual(session?.user, {});
    assert.ok(Date.parse(session?.expires as string) > Date.now());
  });

  test('with idToken: false the profile comes from userinfo and the session names the person', async () => {
    const { cookie } = await makeSession(t, sub);
    const { signedIn: session, profile } = await signIn(provider(gatehouseProviderWithUserinfo), cookie);
    assert.deepEqual(profile, { sub, name: 'Grace Hopper', email: 'grace@example.test', email_verified: true });
    assert.deepEqual(session?.user, { name: 'Grace Hopper', email: 'grace@example.test' });
  });

  test('once the access token has expired the jwt callback renews it: the new one works, the replaced refresh token is refused', async (context) => {
    const { cookie } = await makeSession(t, sub);
    const b = await signIn(withSessionCallbacks, cookie);
    assert.equal(b.authorize.searchParams.get('scope'), 'openid profile email offline_access');
    assert.equal(b.signedIn?.error, undefined);
    assert.deepEqual(await userinfo(b.signedIn?.accessToken), { status: 200, sub });
    const first = await b.jwt();
    assert.ok(first?.refresh_token, 'offline_access gave the app a refresh token');
    assert.equal(await b.jwt().then((token) => token?.access_token), b.signedIn?.accessToken);

    // Past the access token's 600 seconds, for the app (Date, which Auth.js reads) and for Gatehouse (its clock).
    context.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const pass = (seconds: number) => {
      context.mock.timers.tick(seconds * 1000);
      t.clock.advance(seconds);
    };
    pass(601);
    assert.deepEqual(await userinfo(b.signedIn?.accessToken), { status: 401, sub: undefined });
    const renewed = await b.session();
    assert.equal(renewed?.error, undefined);
    assert.notEqual(renewed?.accessToken, b.signedIn?.accessToken);
    assert.deepEqual(await userinfo(renewed?.accessToken), { status: 200, sub });
    const second = await b.jwt();
    assert.ok(second?.refresh_token);
    assert.notEqual(second?.refresh_token, first?.refresh_token, 'Gatehouse rotates the refresh token');
    // Still valid: no refresh on the next request.
    assert.equal((await b.session())?.accessToken, renewed?.accessToken);

    // Presented again after the grace for honest parallel retries: refused, and the family revoked, so when the
    // app's access token next expires its renewal fails and the session says so.
    pass(10);
    assert.deepEqual(await refreshAtGatehouse(first?.refresh_token), { status: 400, error: 'invalid_grant' });
    pass(601);
    assert.equal((await b.session())?.error, 'RefreshTokenError');
  });

  test('signing out ends the app session and the Gatehouse session, back at the registered page', async () => {
    const { cookie } = await makeSession(t, sub);
    const b = await signIn(withSessionCallbacks, cookie);
    // The app's sign-out: the end-session URL for this session, as Auth.js's signOut() redirect.
    const endSession = gatehouseSignOutUrl(t.issuer, client.id, await b.jwt(), `${app}/signed-out`);
    const out = await b.form('/auth/signout', { callbackUrl: endSession });
    assert.equal(out.status, 302);
    assert.equal(out.headers.get('location'), endSession);
    assert.equal(await b.session(), null, "the app's session is gone");

    // The hint is an ID token of this very Gatehouse session: it ends without a confirmation page.
    assert.equal((await browse(endSession, cookie)).href, `${app}/signed-out`);
    const again = await browse(await b.startSignIn(), cookie);
    assert.equal(`${again.origin}${again.pathname}`, `${t.issuer}/signin`, "Gatehouse's session is gone");
  });

  test('the redirect callback lets signOut() go to Gatehouse’s end-session endpoint and nowhere else off-site', async () => {
    const { cookie } = await makeSession(t, sub);
    const b = await signIn(withSessionCallbacks, cookie);
    const out = await b.form('/auth/signout', { callbackUrl: 'https://elsewhere.example/oauth/logout?x=1' });
    assert.equal(out.status, 302);
    assert.equal(out.headers.get('location'), app);
  });
});
