// sdk/browser in Chromium against a listening Gatehouse: a page using the BUILT package signs in with code + PKCE,
// reads userinfo, refreshes, logs out, and every check of the callback and the ID token throws its typed error.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type * as Sdk from '../../sdk/browser/dist/index.js';
import { newPage } from '../helpers/browser.ts';
import { makeClient, makeIdentity, makeResource, makeSession } from '../helpers/oauth-fixtures.ts';
import { startListeningIssuer } from '../helpers/oauth-server.ts';
import { startSdkApp } from './browser-app/server.ts';

// What the page puts on window (main.ts); the project's types have no DOM, so the few globals used are declared.
declare const window: { sdk: typeof Sdk; settings: Sdk.GatehouseConfig };
declare const location: { href: string };
declare const sessionStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void };

/** What handleCallback (or any SDK call) gave: the outcome, or the thrown error's class, code and fields. */
type Outcome =
  | { ok: true; tokens: Sdk.Tokens }
  | { ok: false; name: string; code: string; message: string; error?: string; isGatehouseError: boolean };

type Mutation = 'none' | 'state' | 'iss' | 'nonce';

describe('@gatehouse/browser in Chromium with Gatehouse', async () => {
  const t = await startListeningIssuer();
  let clientId = '';
  const app = await startSdkApp(() => ({
    issuer: t.issuer,
    clientId,
    redirectUri: `${app}/callback`,
    scope: 'openid profile email offline_access',
  }));
  const { client } = await makeClient(t.sql, t.secrets.clientSecret, {
    kind: 'browser',
    redirectUris: [`${app}/callback`],
    postLogoutRedirectUris: [`${app}/signed-out`],
  });
  clientId = client.id;
  const sub = await makeIdentity(t.sql, { displayName: 'Katherine Johnson', email: 'katherine@example.test' });
  const orders = await makeResource(t.sql, 'https://orders.example.test/', ['orders:read']);
  const { client: ordersClient } = await makeClient(t.sql, t.secrets.clientSecret, {
    kind: 'browser',
    redirectUris: [`${app}/callback`],
    scopes: ['openid', 'offline_access', 'orders:read'],
    audiences: [orders.audience],
  });

  async function openApp(signedIn = true): Promise<{ page: Page; problems: string[] }> {
    const { page, problems } = await newPage();
    if (signedIn) {
      const { cookie } = await makeSession(t, sub);
      const [name, value] = cookie.split('=') as [string, string];
      await page.context().addCookies([{ name, value, url: t.issuer }]);
    }
    await page.goto(app);
    await page.waitForFunction(() => window.sdk !== undefined);
    return { page, problems };
  }

  /** Runs login() and waits for Gatehouse to send the browser back to the callback with a code. */
  async function signIn(page: Page, override: Partial<Sdk.GatehouseConfig> = {}): Promise<URL> {
    await page.evaluate((override) => {
      void window.sdk.login({ ...window.settings, ...override });
    }, override);
    await page.waitForURL(`${app}/callback?**`);
    await page.waitForFunction(() => window.sdk !== undefined);
    return new URL(page.url());
  }

  /** handleCallback() on the page, after changing what `mutation` names. */
  function callback(page: Page, mutation: Mutation, override: Partial<Sdk.GatehouseConfig> = {}): Promise<Outcome> {
    return page.evaluate(
      async ([mutation, override]) => {
        const url = new URL(location.href);
        if (mutation === 'state') url.searchParams.set('state', 'not-the-state-this-tab-sent');
        if (mutation === 'iss') url.searchParams.set('iss', 'https://attacker.example');
        if (mutation === 'nonce') {
          const transaction = JSON.parse(sessionStorage.getItem('gatehouse.transaction') ?? '{}');
          sessionStorage.setItem('gatehouse.transaction', JSON.stringify({ ...transaction, nonce: 'another-nonce' }));
        }
        try {
          return {
            ok: true as const,
            tokens: await window.sdk.handleCallback({ ...window.settings, ...override }, url.href),
          };
        } catch (e) {
          const error = e as Sdk.TokenError;
          return {
            ok: false as const,
            name: error.constructor.name,
            code: error.code,
            message: error.message,
            error: error.error,
            isGatehouseError: error instanceof window.sdk.GatehouseError,
          };
        }
      },
      [mutation, override] as const,
    );
  }

  function assertFailure(outcome: Outcome, name: string, code: string) {
    assert.equal(outcome.ok, false, `expected ${code}, got tokens`);
    if (outcome.ok) return;
    assert.equal(outcome.name, name, outcome.message);
    assert.equal(outcome.code, code);
    assert.equal(outcome.isGatehouseError, true);
  }

  test('signs in with code + PKCE S256, state, nonce and iss, then reads userinfo, refreshes and logs out', async () => {
    const { page, problems } = await openApp();
    const authorizations: URL[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(`${t.issuer}/oauth/authorize`)) authorizations.push(new URL(r.url()));
    });
    const returned = await signIn(page);
    const sent = authorizations[0]?.searchParams;
    assert.equal(authorizations.length, 1);
    assert.equal(sent?.get('code_challenge_method'), 'S256');
    assert.match(sent?.get('code_challenge') ?? '', /^[\w-]{43}$/);
    assert.match(sent?.get('state') ?? '', /^[\w-]{43}$/);
    assert.match(sent?.get('nonce') ?? '', /^[\w-]{43}$/);
    assert.equal(returned.searchParams.get('iss'), t.issuer);

    const outcome = await callback(page, 'none');
    assert.ok(outcome.ok, outcome.ok ? '' : outcome.message);
    const { tokens } = outcome;
    assert.equal(tokens.claims?.sub, sub);
    assert.equal(tokens.claims?.nonce, sent?.get('nonce'));
    assert.equal(tokens.claims?.azp, clientId);
    assert.equal(tokens.scope, 'openid profile email offline_access');
    assert.equal(typeof tokens.refreshToken, 'string');
    // The transaction lives for one callback: it is gone, so the same callback cannot be replayed.
    assert.equal(await page.evaluate(() => sessionStorage.getItem('gatehouse.transaction')), null);
    assertFailure(await callback(page, 'none'), 'MissingTransaction', 'missing_transaction');

    const profile = await page.evaluate((token) => window.sdk.userInfo(window.settings, token), tokens.accessToken);
    assert.deepEqual(profile, {
      sub,
      name: 'Katherine Johnson',
      email: 'katherine@example.test',
      email_verified: true,
    });

    const refreshed = await page.evaluate(
      (token) => window.sdk.refresh(window.settings, token),
      tokens.refreshToken ?? '',
    );
    assert.notEqual(refreshed.refreshToken, tokens.refreshToken);
    assert.notEqual(refreshed.accessToken, tokens.accessToken);
    assert.equal(refreshed.claims?.sub, sub);
    const again = await page.evaluate((token) => window.sdk.userInfo(window.settings, token), refreshed.accessToken);
    assert.equal(again.sub, sub);

    // A refresh token the server refuses surfaces the server's own error.
    const refused = await page.evaluate(async () => {
      try {
        await window.sdk.refresh(window.settings, 'not-a-refresh-token');
        return null;
      } catch (e) {
        const error = e as Sdk.TokenError;
        return { name: error.constructor.name, code: error.code, error: error.error, status: error.status };
      }
    });
    assert.deepEqual(refused, { name: 'TokenError', code: 'token_error', error: 'invalid_grant', status: 400 });

    await page.evaluate((idTokenHint) => {
      void window.sdk.logout(window.settings, {
        idTokenHint,
        postLogoutRedirectUri: `${new URL(location.href).origin}/signed-out`,
        state: 'bye',
      });
    }, refreshed.idToken ?? '');
    await page.waitForURL(`${app}/signed-out?**`);
    assert.equal(new URL(page.url()).searchParams.get('state'), 'bye');
    assert.deepEqual(problems, []);
  });

  test('the resource option (RFC 8707) gets access tokens for that API at sign-in and at refresh', async () => {
    const { page } = await openApp();
    const override = {
      clientId: ordersClient.id,
      scope: 'openid offline_access orders:read',
      resource: orders.audience,
    };
    const sent = (await signIn(page, override)).searchParams;
    assert.ok(sent.get('code'));
    const outcome = await callback(page, 'none', override);
    assert.ok(outcome.ok, outcome.ok ? '' : outcome.message);
    const audienceOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString()).aud;
    assert.equal(audienceOf(outcome.tokens.accessToken), orders.audience);
    assert.equal(outcome.tokens.claims?.aud, ordersClient.id);
    const refreshed = await page.evaluate(
      ([override, token]) => window.sdk.refresh({ ...window.settings, ...override }, token),
      [override, outcome.tokens.refreshToken ?? ''] as const,
    );
    assert.equal(audienceOf(refreshed.accessToken), orders.audience);
    assert.match(refreshed.scope, /\borders:read\b/);
  });

  test('a callback whose state is not the one sent throws StateMismatch (state_mismatch)', async () => {
    const { page } = await openApp();
    await signIn(page);
    assertFailure(await callback(page, 'state'), 'StateMismatch', 'state_mismatch');
  });

  test('a callback from another issuer throws IssuerMismatch (issuer_mismatch, RFC 9207)', async () => {
    const { page } = await openApp();
    await signIn(page);
    assertFailure(await callback(page, 'iss'), 'IssuerMismatch', 'issuer_mismatch');
  });

  test('an ID token with another nonce throws NonceMismatch (nonce_mismatch)', async () => {
    const { page } = await openApp();
    await signIn(page);
    assertFailure(await callback(page, 'nonce'), 'NonceMismatch', 'nonce_mismatch');
  });

  test('a tampered ID token throws InvalidIdToken (invalid_id_token)', async () => {
    const { page } = await openApp();
    // The token response reaches the page with one claim of the ID token changed and the signature kept.
    await page.route(`${t.issuer}/oauth/token`, async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { id_token: string };
      const [header, payload, signature] = body.id_token.split('.') as [string, string, string];
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'usr_someone_else' })).toString('base64url');
      await route.fulfill({ response, json: { ...body, id_token: `${header}.${forged}.${signature}` } });
    });
    await signIn(page);
    assertFailure(await callback(page, 'none'), 'InvalidIdToken', 'invalid_id_token');
  });

  test('an expired ID token throws Expired (expired)', async () => {
    const { page } = await openApp();
    // Gatehouse's clock an hour behind the browser's: its ID token (10 minutes) has expired on arrival.
    t.clock.advance(-3600);
    try {
      await signIn(page);
      assertFailure(await callback(page, 'none'), 'Expired', 'expired');
    } finally {
      t.clock.advance(3600);
    }
  });

  test('prompt=none without a session throws AuthorizationError with login_required (authorization_error)', async () => {
    const { page } = await openApp(false);
    await page.evaluate(() => {
      void window.sdk.login(window.settings, { prompt: 'none' });
    });
    await page.waitForURL(`${app}/callback?**`);
    await page.waitForFunction(() => window.sdk !== undefined);
    const outcome = await callback(page, 'none');
    assertFailure(outcome, 'AuthorizationError', 'authorization_error');
    if (!outcome.ok) assert.equal(outcome.error, 'login_required');
  });

  test('a token error carries the server error and description (token_error)', async () => {
    const { page } = await openApp();
    await signIn(page);
    // The exchange reaches Gatehouse with another PKCE verifier: refused with invalid_grant (RFC 7636 §4.6).
    await page.route(`${t.issuer}/oauth/token`, async (route) => {
      const body = new URLSearchParams(route.request().postData() ?? '');
      body.set('code_verifier', 'a'.repeat(43));
      await route.continue({ postData: body.toString() });
    });
    const outcome = await callback(page, 'none');
    assertFailure(outcome, 'TokenError', 'token_error');
    if (!outcome.ok) {
      assert.equal(outcome.error, 'invalid_grant');
      assert.match(outcome.message, /^invalid_grant: ./);
    }
  });
});
