// Apache's mod_auth_openidc (Debian's libapache2-mod-auth-openidc) in front of a static page, signing a person in
// through Gatehouse in Chromium, configured by the file docs/integrations.md quotes: a `web` client with
// client_secret_post and PKCE S256, the claims the page sees (ID token and userinfo, as variables and as OIDC_CLAIM_
// headers), the module refreshing the access token before it expires (the new one works, the refresh token it
// replaced is refused), RP-initiated logout through its `?logout=` handler, and back-channel logout at
// `?logout=backchannel`. Gatehouse offers no front-channel logout, so the module's is not used.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { adminCaller } from '../helpers/admin-api.ts';
import { backchannelWorker } from '../helpers/backchannel-worker.ts';
import { newPage } from '../helpers/browser.ts';
import {
  type ModAuthOpenidcOptions,
  modAuthOpenidcOrigin,
  redirectUriOf,
  startModAuthOpenidc,
} from '../helpers/mod-auth-openidc.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { startListeningIssuer } from '../helpers/oauth-server.ts';

describe('Apache mod_auth_openidc with Gatehouse', async () => {
  const t = await startListeningIssuer();
  const sub = await makeIdentity(t.sql, { displayName: 'Katherine Johnson', email: 'katherine@example.test' });

  /** A module instance with a client of its own, registered for its redirect, logout and back-channel URIs. */
  const startRelyingParty = async (options: Pick<ModAuthOpenidcOptions, 'refreshBeforeExpiry'> = {}) => {
    const origin = await modAuthOpenidcOrigin();
    const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret, {
      redirectUris: [redirectUriOf(origin)],
      postLogoutRedirectUris: [`${origin}/signed-out.html`],
      backchannelLogoutUri: `${redirectUriOf(origin)}?logout=backchannel`,
    });
    const apache = await startModAuthOpenidc(origin, {
      issuer: t.issuer,
      clientId: client.id,
      clientSecret: secret as string,
      ...options,
    });
    const grants = async () =>
      (await t.sql`select count(*)::int as n from oauth_grants where client_id = ${client.id}`)[0]?.n;
    return { ...apache, client, secret: secret as string, grants };
  };

  /** A browser whose person is signed in at Gatehouse; returns the page and that Gatehouse session's cookie. */
  const signedInBrowser = async () => {
    const { cookie } = await makeSession(t, sub);
    const { page, problems } = await newPage();
    const [name, value] = cookie.split('=') as [string, string];
    await page.context().addCookies([{ name, value, url: t.issuer }]);
    return { page, problems, cookie };
  };

  const expectSignedIn = async (page: Page) => {
    assert.equal(await page.locator('h1').textContent(), 'Hello, Katherine Johnson');
    assert.equal(await page.locator('#user').textContent(), sub);
    assert.equal(await page.locator('#header-sub').textContent(), sub);
    // Gatehouse puts the email in userinfo only: the module fetched it there.
    assert.equal(await page.locator('#email').textContent(), 'katherine@example.test');
  };

  /** Lands on the protected page, or fails with what the browser shows instead (an error page of either side). */
  const reachPage = async (page: Page, apache: { page: string; log(): string }) => {
    await page.goto(apache.page);
    await page.waitForURL(apache.page, { timeout: 10_000 }).catch(async () => {
      assert.fail(`at ${page.url()}: ${await page.locator('body').textContent()}\n${apache.log()}`);
    });
  };

  const expectGatehouseSignIn = async (page: Page, apache: { page: string }) => {
    await page.goto(apache.page);
    await page.waitForURL(`${t.issuer}/signin?**`);
  };

  const tokensShown = async (page: Page) => ({
    accessToken: (await page.locator('#access-token').textContent()) ?? '',
    refreshToken: (await page.locator('#refresh-token').textContent()) ?? '',
  });

  const userinfo = async (accessToken: string) => {
    const response = await fetch(`${t.issuer}/oauth/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
    return { status: response.status, sub: ((await response.json()) as { sub?: string }).sub };
  };

  const refreshAtGatehouse = async (apache: { client: { id: string }; secret: string }, refreshToken: string) => {
    const response = await fetch(`${t.issuer}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: apache.client.id,
        client_secret: apache.secret,
      }),
    });
    return { status: response.status, error: ((await response.json()) as { error?: string }).error };
  };

  test('signs in through Gatehouse with PKCE S256 and client_secret_post, and the page shows the claims, refreshed before expiry, then signs out', async () => {
    // 599 of the access token's 600 seconds instead of the documented 60: the module refreshes once the token is a
    // second old.
    const apache = await startRelyingParty({ refreshBeforeExpiry: 599 });
    const { page, problems } = await signedInBrowser();
    const authorizations: URL[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(`${t.issuer}/oauth/authorize`)) authorizations.push(new URL(r.url()));
    });
    await reachPage(page, apache);
    await expectSignedIn(page);
    assert.equal(authorizations.length, 1);
    assert.equal(authorizations[0]?.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(authorizations[0]?.searchParams.get('client_id'), apache.client.id);

    const expiresShown = () => page.locator('#expires').textContent();
    const firstExpiry = await expiresShown();
    const before = await tokensShown(page);
    const deadline = Date.now() + 10_000;
    while ((await expiresShown()) === firstExpiry) {
      assert.ok(Date.now() < deadline, `no refresh within 10 s: ${apache.log()}`);
      await page.reload();
    }
    await expectSignedIn(page);
    assert.equal(await apache.grants(), 1, 'a refresh, not a second sign-in');
    const after = await tokensShown(page);
    assert.notEqual(after.accessToken, before.accessToken);
    assert.notEqual(after.refreshToken, before.refreshToken, 'Gatehouse rotates the refresh token');
    assert.deepEqual(await userinfo(after.accessToken), { status: 200, sub });

    await page.goto(`${redirectUriOf(apache.origin)}?logout=${encodeURIComponent(`${apache.origin}/signed-out.html`)}`);
    await page.waitForURL(`${apache.origin}/signed-out.html`);
    assert.equal(await page.locator('h1').textContent(), 'Signed out');
    // Both sessions ended: the module's, and Gatehouse's, so the protected page asks Gatehouse to sign in again.
    await expectGatehouseSignIn(page, apache);
    // The refresh token the module gave up is refused (past the grace for honest parallel retries).
    t.clock.advance(10);
    assert.deepEqual(await refreshAtGatehouse(apache, before.refreshToken), { status: 400, error: 'invalid_grant' });
    assert.deepEqual(problems, []);
  });

  test('a sign-out at Gatehouse reaches the module by back-channel logout and ends its session', async () => {
    // The documented 60 s: no refresh within the test, so only the logout token can end the module's session.
    const apache = await startRelyingParty();
    const worker = backchannelWorker(t);
    const { page, problems, cookie } = await signedInBrowser();
    await reachPage(page, apache);
    await expectSignedIn(page);

    const signedOut = await adminCaller(t, cookie, t.issuer)('POST', '/auth/logout', {});
    assert.equal(signedOut.status, 204);
    // Until the logout token is delivered the module's own session still stands.
    await page.reload();
    await expectSignedIn(page);
    assert.deepEqual(await worker.runOnce(), { claimed: 1, sent: 1, retried: 0, dead: 0 });
    await expectGatehouseSignIn(page, apache);
    assert.deepEqual(problems, []);
  });
});
