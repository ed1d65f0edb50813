// The hosted pages in Chromium with Sign In With Farcaster, offline (relay stand-in, ID registry stand-in on a local
// ganache chain 10): an OAuth authorization sends the signed-out browser to sign in, "Sign in with Farcaster" shows
// the QR code and deep link with a waiting status (screenshot), the Farcaster app (a viem custody key) approves on
// the relay, the page's polling signs in and the authorization finishes with a code. On the account page a
// signed-in person adds a Farcaster account and sees it listed by username and fid.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { makeAccount } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { startBrowserApp } from '../helpers/browser-app.ts';
import { applicationArrival } from '../helpers/browser-application.ts';
import { makeConfig } from '../helpers/config.ts';
import { startFarcasterChain } from '../helpers/farcaster-chain.ts';
import { appSignsIn, startRelayStandIn } from '../helpers/farcaster-relay.ts';
import { makeClient, makeSession } from '../helpers/oauth-fixtures.ts';

const chain = await startFarcasterChain();
const relay = await startRelayStandIn();
const t = await startBrowserApp(
  makeConfig({
    self_service: { enabled: true },
    // Account self-service (sign-up, the account page) needs delivery configured; nothing is sent in these tests.
    delivery: {
      kind: 'smtp',
      from: 'id@acme-robotics.dev',
      smtp: { host: 'smtp.acme-robotics.dev', username: 'u', password_file: '/etc/gatehouse/secrets/smtp-password' },
    },
    providers: { farcaster: { enabled: true, relay_url: relay.url, rpc_url: chain.url } },
  }),
);

async function farcasterAccount(fid: number) {
  const custody = privateKeyToAccount(generatePrivateKey());
  await chain.register(fid, custody.address);
  return { fid, custody };
}

describe('GET /signin → Sign in with Farcaster → /oauth/authorize (Chromium)', () => {
  test('shows the QR code while waiting, signs in once the app approves, and finishes the authorization', async () => {
    const app = 'https://app.acme-robotics.dev/callback';
    const { client } = await makeClient(t.sql, t.secrets.clientSecret, { redirectUris: [app] });
    const who = await farcasterAccount(3001);
    const { page, problems, screenshot } = await newPage();
    const arrived = applicationArrival(page);
    const authorize = new URL(`${t.url}/oauth/authorize`);
    authorize.search = new URLSearchParams({
      client_id: client.id,
      redirect_uri: app,
      response_type: 'code',
      scope: 'openid',
      state: 'app-state-9',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }).toString();
    await page.goto(authorize.href);
    await page.waitForURL(/\/signin\?return_to=/);
    await page.getByRole('button', { name: 'Sign in with Farcaster' }).click();
    await page.getByRole('status').filter({ hasText: 'Waiting for you to approve in the Farcaster app' }).waitFor();
    const qr = page.getByRole('img', { name: /QR code/ });
    await qr.waitFor();
    assert.match((await qr.getAttribute('src')) ?? '', /^data:image\/svg\+xml;charset=utf-8,%3Csvg/);
    const deepLink =
      (await page.getByRole('link', { name: 'open Farcaster on this device' }).getAttribute('href')) ?? '';
    assert.ok(
      [...relay.channels.values()].some((c) => c.url === deepLink),
      'the link is the relay channel the server opened',
    );
    await screenshot('signin-farcaster-qr');

    await appSignsIn(relay.url, deepLink, { ...who, username: 'dana', displayName: 'Dana' });
    const back = await arrived;
    assert.equal(back.searchParams.get('state'), 'app-state-9');
    assert.match(back.searchParams.get('code') ?? '', /.+/);
    assert.equal((await t.sql`select 1 from sign_in_methods where external_subject = 'farcaster:3001'`).length, 1);
    assert.deepEqual(problems, []);
  });
});

describe('GET /settings: Farcaster account (Chromium)', () => {
  test('adds a Farcaster account and lists it by username and fid', async () => {
    const person = await makeAccount(t.sql, t.secrets, t.config);
    const { cookie } = await makeSession(t, person.sub);
    const who = await farcasterAccount(3002);
    const { page, problems, screenshot } = await newPage();
    await page.context().addCookies([{ name: 'gatehouse_session', value: cookie.split('=')[1] as string, url: t.url }]);
    await page.goto(`${t.url}/settings`);
    await page.getByRole('button', { name: 'Add a Farcaster account' }).click();
    const link = page.getByRole('link', { name: 'open Farcaster on this device' });
    await link.waitFor();
    await appSignsIn(relay.url, (await link.getAttribute('href')) ?? '', { ...who, username: 'erin' });
    const row = page.locator('ul.connections li', { hasText: '@erin, fid 3002' });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /Farcaster/);
    assert.doesNotMatch((await row.textContent()) ?? '', /Ethereum/);
    await screenshot('account-farcaster');
    assert.deepEqual(problems, []);
  });
});
