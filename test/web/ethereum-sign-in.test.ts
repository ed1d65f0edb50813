// The hosted pages in Chromium with a wallet (an EIP-1193 provider announced by EIP-6963, signing with a viem local
// account): an OAuth authorization sends the signed-out browser to sign in, "Sign in with Ethereum" signs the served
// EIP-4361 message, and the authorization finishes with a code; on the account page a signed-in person adds the
// wallet, sees its shortened address, and removes it again.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { makeAccount } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { startBrowserApp } from '../helpers/browser-app.ts';
import { applicationArrival } from '../helpers/browser-application.ts';
import { makeConfig } from '../helpers/config.ts';
import { makeClient, makeSession } from '../helpers/oauth-fixtures.ts';
import { injectWallet } from '../helpers/wallet-in-browser.ts';

const t = await startBrowserApp(
  makeConfig({
    self_service: { enabled: true },
    // Account self-service (sign-up, the account page) needs delivery configured; nothing is sent in these tests.
    delivery: {
      kind: 'smtp',
      from: 'id@acme-robotics.dev',
      smtp: { host: 'smtp.acme-robotics.dev', username: 'u', password_file: '/etc/gatehouse/secrets/smtp-password' },
    },
    providers: { ethereum: { enabled: true, chain_ids: [1] } },
  }),
);

describe('GET /signin → POST /auth/web3/ethereum/start, /complete → /oauth/authorize (Chromium)', () => {
  test('signs up with a wallet from the sign-in page and finishes the authorization with a code', async () => {
    const app = 'https://app.acme-robotics.dev/callback';
    const { client } = await makeClient(t.sql, t.secrets.clientSecret, { redirectUris: [app] });
    const account = privateKeyToAccount(generatePrivateKey());
    const { page, problems, screenshot } = await newPage();
    await injectWallet(page, account, 'Test Wallet');
    const arrived = applicationArrival(page);
    const authorize = new URL(`${t.url}/oauth/authorize`);
    authorize.search = new URLSearchParams({
      client_id: client.id,
      redirect_uri: app,
      response_type: 'code',
      scope: 'openid',
      state: 'app-state-7',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }).toString();
    await page.goto(authorize.href);
    await page.waitForURL(/\/signin\?return_to=/);
    const button = page.getByRole('button', { name: 'Sign in with Ethereum' });
    await button.waitFor();
    await screenshot('signin-with-ethereum');
    await button.click();
    const back = await arrived;
    assert.equal(back.searchParams.get('state'), 'app-state-7');
    assert.match(back.searchParams.get('code') ?? '', /.+/);
    const subject = `eip155:1:${account.address}`;
    assert.equal((await t.sql`select 1 from sign_in_methods where external_subject = ${subject}`).length, 1);
    assert.deepEqual(problems, []);
  });
});

describe('GET /settings: Ethereum wallet (Chromium)', () => {
  test('adds a wallet, lists it by its shortened address, and removes it again', async () => {
    const person = await makeAccount(t.sql, t.secrets, t.config);
    const { cookie } = await makeSession(t, person.sub);
    const account = privateKeyToAccount(generatePrivateKey());
    const { page, problems, screenshot } = await newPage();
    await injectWallet(page, account, 'Test Wallet');
    await page.context().addCookies([{ name: 'gatehouse_session', value: cookie.split('=')[1] as string, url: t.url }]);
    await page.goto(`${t.url}/settings`);
    await page.getByRole('button', { name: 'Add an Ethereum wallet' }).click();
    const short = `${account.address.slice(0, 6)}…${account.address.slice(-4)}`;
    const row = page.locator('ul.connections li', { hasText: short });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /Ethereum wallet/);
    await screenshot('account-ethereum-wallet');
    await row.getByRole('button', { name: 'Remove' }).click();
    await row.waitFor({ state: 'detached' });
    const subject = `eip155:1:${account.address}`;
    assert.equal((await t.sql`select 1 from sign_in_methods where external_subject = ${subject}`).length, 0);
    assert.deepEqual(problems, []);
  });
});
