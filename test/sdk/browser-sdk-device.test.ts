// signInWithDevice() of the BUILT @gatehouse/browser in Chromium against a listening Gatehouse on real time: the page
// asks for codes, shows them (onCode), polls at the interval while the person has not decided, and resolves with
// verified tokens once they approve; a denial rejects with TokenError access_denied, and the signal stops polling.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type * as Sdk from '../../sdk/browser/dist/index.js';
import { newPage } from '../helpers/browser.ts';
import { decide, startRealTimeIssuer } from '../helpers/device-flow.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { startSdkApp } from './browser-app/server.ts';

// What the page puts on window; the project's types have no DOM, so the globals used are declared.
declare const window: {
  sdk: typeof Sdk;
  settings: Sdk.GatehouseConfig;
  code?: Sdk.DeviceCode;
  outcome?: { ok: true; tokens: Sdk.Tokens } | { ok: false; name: string; error?: string; status?: number };
  stop?: AbortController;
};

describe('@gatehouse/browser signInWithDevice() in Chromium', async () => {
  const t = await startRealTimeIssuer(1);
  let clientId = '';
  const app = await startSdkApp(() => ({ issuer: t.issuer, clientId, redirectUri: '', scope: 'openid profile' }));
  const { client } = await makeClient(t.sql, t.secrets.clientSecret, {
    kind: 'browser',
    name: 'Lobby screen',
    redirectUris: [],
    deviceAuthorizationGrant: true,
  });
  clientId = client.id;
  const sub = await makeIdentity(t.sql, { displayName: 'Mary Jackson' });
  const { cookie } = await makeSession(t, sub);

  /** Starts signInWithDevice on the page and waits for the code it shows. */
  async function start() {
    const { page, problems } = await newPage();
    await page.goto(app);
    await page.waitForFunction(() => window.sdk !== undefined);
    await page.evaluate(() => {
      window.stop = new AbortController();
      window.sdk
        .signInWithDevice(window.settings, { onCode: (code) => (window.code = code), signal: window.stop.signal })
        .then((tokens) => (window.outcome = { ok: true, tokens }))
        .catch((e: Sdk.TokenError) => {
          window.outcome = { ok: false, name: e.constructor.name, error: e.error, status: e.status };
        });
    });
    await page.waitForFunction(() => window.code !== undefined);
    const code = (await page.evaluate(() => window.code)) as Sdk.DeviceCode;
    return { page, problems, code };
  }
  const outcomeOf = async (page: import('playwright-core').Page) => {
    await page.waitForFunction(() => window.outcome !== undefined, undefined, { timeout: 20_000 });
    return page.evaluate(() => window.outcome);
  };

  test('shows the code, keeps polling while pending, and resolves with verified tokens once approved', async () => {
    const { page, problems, code } = await start();
    assert.match(code.userCode, /^[A-Z]{4}-[A-Z]{4}$/);
    assert.equal(code.verificationUri, `${t.issuer}/device`);
    assert.equal(code.verificationUriComplete, `${t.issuer}/device?user_code=${code.userCode}`);
    assert.ok(code.expiresAt > Date.now());
    // It has polled at least once and was told to wait (authorization_pending), not refused.
    await firstPoll(t, client.id);
    assert.equal(await page.evaluate(() => window.outcome), undefined);
    await decide(t, cookie, code.userCode, 'approve');
    const outcome = await outcomeOf(page);
    assert.ok(outcome?.ok, JSON.stringify(outcome));
    if (!outcome?.ok) return;
    assert.equal(outcome.tokens.claims?.sub, sub);
    assert.equal(outcome.tokens.claims?.aud, client.id);
    assert.equal(outcome.tokens.scope, 'openid profile');
    assert.deepEqual(problems, []);
  });

  test('a denial rejects with TokenError access_denied', async () => {
    const { page, code } = await start();
    await decide(t, cookie, code.userCode, 'deny');
    assert.deepEqual(await outcomeOf(page), { ok: false, name: 'TokenError', error: 'access_denied', status: 400 });
  });

  test('the abort signal stops polling', async () => {
    const { page } = await start();
    await page.evaluate(() => window.stop?.abort(new Error('cancelled')));
    const outcome = await outcomeOf(page);
    assert.equal(outcome?.ok, false);
  });
});

/** Waits until the client's newest device code has been polled (its last poll is recorded). */
async function firstPoll(t: { sql: import('../../src/db/pool.ts').Sql }, clientId: string) {
  for (;;) {
    const [row] = await t.sql`select last_polled_at from oauth_device_codes where client_id = ${clientId}
                              order by created_at desc limit 1`;
    if (row?.last_polled_at) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
