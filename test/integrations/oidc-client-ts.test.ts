// docs/integrations.md "oidc-client-ts": the quoted UserManager in a single-page app in Chromium with a `browser`
// client: sign-in with the code flow and PKCE, the token request from the app's own origin (CORS), the profile
// completed from userinfo; signinSilent() with the refresh token (the new access token works, the replaced refresh
// token is refused); and signoutRedirect(), which revokes the tokens and ends the Gatehouse session.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { newPage } from '../helpers/browser.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { startListeningIssuer } from '../helpers/oauth-server.ts';
import { startSpa } from './spa/spa-server.ts';

interface Tokens {
  access: string;
  refresh?: string;
  id?: string;
  profile: Record<string, unknown>;
}

describe('oidc-client-ts in Chromium with Gatehouse', async () => {
  const t = await startListeningIssuer();
  let clientId = '';
  const spa = await startSpa(() => ({ issuer: t.issuer, clientId }));
  const { client } = await makeClient(t.sql, t.secrets.clientSecret, {
    kind: 'browser',
    redirectUris: [`${spa}/callback`],
    postLogoutRedirectUris: [`${spa}/signed-out`],
  });
  clientId = client.id;
  const sub = await makeIdentity(t.sql, { displayName: 'Mary Jackson', email: 'mary@example.test' });

  /** What the app shows in <pre id="result"> once it has shown anything. */
  const result = async <T>(page: Page) =>
    JSON.parse((await page.locator('#result').filter({ hasText: /./ }).textContent()) ?? '{}') as T & {
      error?: string;
    };

  /** A browser signed in at Gatehouse opens the app, which signs in; returns the page and what the app shows. */
  async function signedInApp() {
    const { cookie } = await makeSession(t, sub);
    const { page, problems } = await newPage();
    const [name, value] = cookie.split('=') as [string, string];
    await page.context().addCookies([{ name, value, url: t.issuer }]);
    const requests: URL[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(`${t.issuer}/oauth/`)) requests.push(new URL(r.url()));
    });
    await page.goto(spa);
    await page.waitForURL(`${spa}/callback?**`);
    const shown = await result<{ profile?: Record<string, unknown>; scope?: string; signedIn: Tokens }>(page);
    assert.equal(shown.error, undefined, shown.error);
    return { page, problems, requests, shown };
  }

  /** The refresh token grant as a public client presents it. */
  const refreshAtGatehouse = async (refreshToken: string) => {
    const response = await fetch(`${t.issuer}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.id }),
    });
    return { status: response.status, error: ((await response.json()) as { error?: string }).error };
  };

  test('the SPA signs in with code + PKCE and gets tokens and the profile', async () => {
    const { problems, requests, shown } = await signedInApp();
    const authorizations = requests.filter((url) => url.pathname === '/oauth/authorize');
    assert.equal(authorizations.length, 1);
    assert.equal(authorizations[0]?.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(shown.scope, 'openid profile email offline_access');
    assert.equal(shown.profile?.sub, sub);
    assert.equal(shown.profile?.iss, t.issuer);
    assert.equal(shown.profile?.name, 'Mary Jackson');
    assert.equal(shown.profile?.email, 'mary@example.test');
    assert.ok(shown.signedIn.refresh, 'offline_access gave the app a refresh token');
    assert.deepEqual(problems, []);
  });

  test('signinSilent() renews the tokens with the refresh token; the new access token works, the replaced refresh token is refused', async () => {
    const { page, problems, requests } = await signedInApp();
    await page.goto(`${spa}/refresh`);
    const shown = await result<{ before: Tokens; after: Tokens; userinfo: { status: number; body: unknown } }>(page);
    assert.equal(shown.error, undefined, shown.error);
    // The refresh token grant, not another authorization request in a hidden iframe.
    assert.equal(requests.filter((url) => url.pathname === '/oauth/authorize').length, 1);
    assert.notEqual(shown.after.access, shown.before.access);
    assert.ok(shown.after.refresh);
    assert.notEqual(shown.after.refresh, shown.before.refresh, 'Gatehouse rotates the refresh token');
    assert.equal(shown.after.profile.sub, sub);
    assert.deepEqual(shown.userinfo, {
      status: 200,
      body: { sub, name: 'Mary Jackson', email: 'mary@example.test', email_verified: true },
    });
    // Presented again after the grace for honest parallel retries: refused.
    t.clock.advance(10);
    assert.deepEqual(await refreshAtGatehouse(shown.before.refresh as string), { status: 400, error: 'invalid_grant' });
    assert.deepEqual(problems, []);
  });

  test('signoutRedirect() revokes the tokens, ends the Gatehouse session and comes back signed out', async () => {
    const { page, problems, requests, shown } = await signedInApp();
    await page.goto(`${spa}/signout`);
    await page.waitForURL(`${spa}/signed-out`);
    assert.deepEqual(await result(page), { signedOut: true, user: null });
    const logout = requests.find((url) => url.pathname === '/oauth/logout');
    assert.equal(logout?.searchParams.get('id_token_hint'), shown.signedIn.id);
    assert.equal(logout?.searchParams.get('post_logout_redirect_uri'), `${spa}/signed-out`);
    // revokeTokensOnSignout: the refresh token the app held is dead, not merely forgotten by the app.
    assert.deepEqual(await refreshAtGatehouse(shown.signedIn.refresh as string), {
      status: 400,
      error: 'invalid_grant',
    });
    // Opening the app again finds no Gatehouse session: the browser lands on Gatehouse's sign-in page.
    await page.goto(spa);
    await page.waitForURL(`${t.issuer}/signin?**`);
    assert.deepEqual(problems, []);
  });
});
