// docs/integrations.md "express-openid-connect": the quoted configuration in a real Express app, signing a person in
// through Gatehouse with the code flow (PKCE, state and nonce, as the library sends them) and client_secret_post;
// userinfo; req.oidc.accessToken.refresh() (the refresh token rotates, the one replaced is refused); GET /logout with
// idpLogout (RP-initiated logout at Gatehouse); and the library's back-channel logout.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import express from 'express';
import expressOpenidConnect, { type BackchannelLogoutOptions } from 'express-openid-connect';
import { adminCaller } from '../helpers/admin-api.ts';
import { backchannelWorker } from '../helpers/backchannel-worker.ts';
import { CookieJar } from '../helpers/cookie-jar.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { browse, startListeningIssuer } from '../helpers/oauth-server.ts';
import { gatehouseAuth, withBackchannelLogout } from './snippets/express-openid-connect.ts';

// A CommonJS module whose exports Node cannot list for named imports.
const { auth, requiresAuth } = expressOpenidConnect;

/** An express-session style store in memory (what connect-redis and others are to a real app). */
class MemoryStore implements NonNullable<BackchannelLogoutOptions['store']> {
  readonly entries = new Map<string, unknown>();
  get(key: string, callback: (err: unknown, value?: never) => void) {
    callback(null, this.entries.get(key) as never);
  }
  set(key: string, value: unknown, callback?: (err?: unknown) => void) {
    this.entries.set(key, value);
    callback?.(null);
  }
  destroy(key: string, callback?: (err?: unknown) => void) {
    this.entries.delete(key);
    callback?.(null);
  }
}

describe('express-openid-connect with Gatehouse', async () => {
  const t = await startListeningIssuer();

  /** An Express app with a client of its own; with a store, back-channel logout too. */
  async function startApp(backchannelStore?: MemoryStore) {
    const app = express();
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    after(() => new Promise((resolve) => server.close(resolve)));
    const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret, {
      redirectUris: [`${baseURL}/callback`],
      // idpLogout returns to baseURL, which has no path: it matches the registered `/` (docs/oauth.md "Matching").
      postLogoutRedirectUris: [`${baseURL}/`],
      ...(backchannelStore ? { backchannelLogoutUri: `${baseURL}/backchannel-logout` } : {}),
    });
    const config = gatehouseAuth({
      issuer: t.issuer,
      baseURL,
      clientID: client.id,
      clientSecret: secret as string,
      sessionSecret: 'a-test-secret-of-the-app-that-is-long-enough',
    });
    app.use(auth(backchannelStore ? withBackchannelLogout(config, backchannelStore) : config));
    app.get('/profile', requiresAuth(), async (req, res) => {
      res.json({ user: req.oidc.user, claims: req.oidc.idTokenClaims, userinfo: await req.oidc.fetchUserInfo() });
    });
    // What the app holds before and after the library's refresh, and whether userinfo takes the new access token.
    app.post('/refresh', requiresAuth(), async (req, res) => {
      const before = { access: req.oidc.accessToken?.access_token, refresh: req.oidc.refreshToken };
      try {
        await req.oidc.accessToken?.refresh();
      } catch (error) {
        res.status(502).json({ error: (error as { error?: string }).error ?? String(error) });
        return;
      }
      const after = { access: req.oidc.accessToken?.access_token, refresh: req.oidc.refreshToken };
      res.json({ before, after, userinfo: await req.oidc.fetchUserInfo() });
    });
    return { baseURL, client, secret: secret as string };
  }

  /** A browser signed in at Gatehouse signs in at the app; returns the app's cookie jar and the authorization request. */
  async function signIn(app: { baseURL: string }, gatehouseSession: string) {
    const jar = new CookieJar();
    const first = await jar.fetch(`${app.baseURL}/profile`);
    assert.equal(first.status, 302);
    const authorize = new URL(first.headers.get('location') as string);
    assert.equal(`${authorize.origin}${authorize.pathname}`, `${t.issuer}/oauth/authorize`);
    const callback = await browse(authorize, gatehouseSession);
    assert.equal(`${callback.origin}${callback.pathname}`, `${app.baseURL}/callback`);
    const back = await jar.fetch(callback);
    assert.equal(back.status, 302, await back.clone().text());
    assert.equal(back.headers.get('location'), '/profile');
    return { jar, authorize };
  }

  /** The app's protected page answers 200 (signed in) or sends the browser to Gatehouse. */
  async function profileStatus(app: { baseURL: string }, jar: CookieJar) {
    const page = await jar.fetch(`${app.baseURL}/profile`);
    if (page.status === 302) assert.match(page.headers.get('location') ?? '', /\/oauth\/authorize\?/);
    return page.status;
  }

  /** Where Gatehouse sends a browser with this session cookie that starts a new sign-in at the app. */
  async function gatehouseAnswerToNewSignIn(app: { baseURL: string }, gatehouseSession: string) {
    const start = await new CookieJar().fetch(`${app.baseURL}/profile`);
    return browse(start.headers.get('location') as string, gatehouseSession);
  }

  const refreshAtGatehouse = async (app: { client: { id: string }; secret: string }, refreshToken: string) => {
    const response = await fetch(`${t.issuer}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: app.client.id,
        client_secret: app.secret,
      }),
    });
    return { status: response.status, error: ((await response.json()) as { error?: string }).error };
  };

  const app = await startApp();
  const sub = await makeIdentity(t.sql, { displayName: 'Katherine Johnson', email: 'katherine@example.test' });
  const userinfo = { sub, name: 'Katherine Johnson', email: 'katherine@example.test', email_verified: true };

  test('a protected page signs the person in through Gatehouse and then shows their claims', async () => {
    const { cookie } = await makeSession(t, sub);
    const { jar, authorize } = await signIn(app, cookie);
    assert.equal(authorize.searchParams.get('response_type'), 'code');
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(authorize.searchParams.get('scope'), 'openid profile email offline_access');

    const page = await jar.fetch(`${app.baseURL}/profile`);
    assert.equal(page.status, 200, await page.clone().text());
    const shown = (await page.json()) as Record<string, Record<string, unknown>>;
    assert.equal(shown.user?.sub, sub);
    // The library sent a nonce and a state of its own; Gatehouse bound the nonce into the ID token.
    assert.equal(shown.claims?.nonce, authorize.searchParams.get('nonce'));
    assert.ok(authorize.searchParams.get('state'));
    assert.equal(shown.claims?.iss, t.issuer);
    assert.equal(shown.claims?.aud, app.client.id);
    assert.deepEqual(shown.userinfo, userinfo);
  });

  test('accessToken.refresh() gets a new access token userinfo takes and a new refresh token; the replaced one is refused', async () => {
    const { cookie } = await makeSession(t, sub);
    const { jar } = await signIn(app, cookie);
    const refreshed = await jar.fetch(`${app.baseURL}/refresh`, { method: 'POST' });
    assert.equal(refreshed.status, 200, await refreshed.clone().text());
    const shown = (await refreshed.json()) as {
      before: { access: string; refresh: string };
      after: { access: string; refresh: string };
      userinfo: unknown;
    };
    assert.ok(shown.before.refresh, 'offline_access gave the app a refresh token');
    assert.notEqual(shown.after.access, shown.before.access);
    assert.notEqual(shown.after.refresh, shown.before.refresh, 'Gatehouse rotates the refresh token');
    assert.deepEqual(shown.userinfo, userinfo);

    // Presented again after the grace for honest parallel retries: refused, and the whole family is revoked, so
    // the app's own next refresh fails too (what a stolen refresh token's replay costs).
    t.clock.advance(10);
    assert.deepEqual(await refreshAtGatehouse(app, shown.before.refresh), { status: 400, error: 'invalid_grant' });
    const again = await jar.fetch(`${app.baseURL}/refresh`, { method: 'POST' });
    assert.equal(again.status, 502);
    assert.deepEqual(await again.json(), { error: 'invalid_grant' });
  });

  test('GET /logout ends the app session and the Gatehouse session, back at baseURL', async () => {
    const { cookie } = await makeSession(t, sub);
    const { jar } = await signIn(app, cookie);
    assert.equal(await profileStatus(app, jar), 200);

    const out = await jar.fetch(`${app.baseURL}/logout`);
    assert.equal(out.status, 302);
    const logout = new URL(out.headers.get('location') as string);
    assert.equal(`${logout.origin}${logout.pathname}`, `${t.issuer}/oauth/logout`);
    assert.equal(logout.searchParams.get('post_logout_redirect_uri'), app.baseURL);
    assert.ok(logout.searchParams.get('id_token_hint'));
    // The hint is an ID token of this very session: Gatehouse signs out without asking and sends the browser back.
    const back = await browse(logout, cookie);
    assert.equal(back.href, `${app.baseURL}/`);
    assert.equal(await profileStatus(app, jar), 302, "the app's session is gone");
    const answer = await gatehouseAnswerToNewSignIn(app, cookie);
    assert.equal(`${answer.origin}${answer.pathname}`, `${t.issuer}/signin`, "Gatehouse's session is gone");
  });

  test('a sign-out at Gatehouse reaches the app by back-channel logout and ends its session', async () => {
    const store = new MemoryStore();
    const bcApp = await startApp(store);
    const worker = backchannelWorker(t);
    const { cookie } = await makeSession(t, sub);
    const { jar } = await signIn(bcApp, cookie);
    assert.equal(await profileStatus(bcApp, jar), 200);

    const signedOut = await adminCaller(t, cookie, t.issuer)('POST', '/auth/logout', {});
    assert.equal(signedOut.status, 204);
    // Until the logout token is delivered the app's own session still stands.
    assert.equal(await profileStatus(bcApp, jar), 200);
    assert.deepEqual(await worker.runOnce(), { claimed: 1, sent: 1, retried: 0, dead: 0 });
    assert.equal(store.entries.size, 2, 'the library remembers the ended session by sid and by sub');
    assert.equal(await profileStatus(bcApp, jar), 302, "the app's session is gone");
  });
});
