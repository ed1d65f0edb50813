// What a person sees when sign-in goes wrong, and the consent step of a third-party client, in Chromium.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeAccount, totpCode } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { startBrowserApp } from '../helpers/browser-app.ts';
import { makeConfig } from '../helpers/config.ts';
import { makeClient } from '../helpers/oauth-fixtures.ts';

const t = await startBrowserApp(makeConfig());

async function openSignIn(email: string, returnTo = '/settings') {
  const session = await newPage({ width: 390, height: 844 });
  await session.page.goto(`${t.url}/signin?return_to=${encodeURIComponent(returnTo)}`);
  await session.page.getByLabel('Email address').fill(email);
  await session.page.getByRole('button', { name: 'Continue' }).click();
  await session.page.getByLabel('Password').waitFor();
  return session;
}

async function submit(page: import('playwright-core').Page, password: string, code: string) {
  await page.getByLabel('Password').fill(password);
  await page.getByLabel('Authentication code').fill(code);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('sign-in failures and consent (Chromium)', () => {
  // Browsers strip tabs and newlines from a URL and read a backslash as "/", so "/<tab>/evil.example" is
  // "//evil.example", another host.
  for (const returnTo of ['/\t/evil.example', '/\n/evil.example', '/\\evil.example', '//evil.example'])
    test(`a return_to of ${JSON.stringify(returnTo)} does not leave this origin after sign-in`, async () => {
      const account = await makeAccount(t.sql, t.secrets, t.config);
      const { page } = await openSignIn(account.email, returnTo);
      t.clock.advance(30);
      await submit(page, account.password, totpCode(account.totpSeed ?? '', t.clock.now()));
      await page.waitForURL((at) => at.pathname !== '/signin');
      assert.equal(new URL(page.url()).origin, new URL(t.url).origin, page.url());
    });

  test('a wrong password and a wrong code show the same message with a request id, and a retry succeeds', async () => {
    const account = await makeAccount(t.sql, t.secrets, t.config);
    const { page, problems, screenshot } = await openSignIn(account.email);
    await submit(page, 'not the password at all', totpCode(account.totpSeed ?? '', t.clock.now()));
    const alert = page.getByRole('alert');
    await alert.getByText('The sign-in details are not correct.').waitFor();
    const first = (await alert.textContent()) ?? '';
    assert.match(first, /Request ID: [A-Za-z0-9_-]{16}/);

    await submit(page, account.password, '000000');
    await alert.getByText('The sign-in details are not correct.').waitFor();
    const second = (await alert.textContent()) ?? '';
    assert.notEqual(second, first, 'the second failure shows its own request id');
    assert.equal(second.replace(/Request ID: \S+/, ''), first.replace(/Request ID: \S+/, ''), 'same message');

    t.clock.advance(30);
    await submit(page, account.password, totpCode(account.totpSeed ?? '', t.clock.now()));
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await screenshot('signin-retry-succeeds');
    assert.deepEqual(problems, []);
  });

  test('a locked account says to wait, and for how long', async () => {
    const account = await makeAccount(t.sql, t.secrets, t.config);
    const { page, problems, screenshot } = await openSignIn(account.email);
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await submit(page, `wrong password number ${attempt}`, '123456');
      await page.getByRole('alert').getByText('The sign-in details are not correct.').waitFor();
    }
    await submit(page, account.password, totpCode(account.totpSeed ?? '', t.clock.now()));
    const alert = page.getByRole('alert');
    await alert.getByText('Too many sign-in attempts; retry later.').waitFor();
    await alert.getByText(/Try again in about \d+ seconds\./).waitFor();
    await screenshot('signin-locked');
    assert.deepEqual(problems, []);
  });

  test('a third-party client shows consent in plain words, and Allow continues to the client', async () => {
    const account = await makeAccount(t.sql, t.secrets, t.config);
    const { client } = await makeClient(t.sql, t.secrets.clientSecret, {
      name: 'Partner Analytics',
      firstParty: false,
      redirectUris: ['https://partner.example.test/callback'],
      scopes: ['openid', 'profile', 'email'],
    });
    const authorize = new URL(`${t.url}/oauth/authorize`);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.id,
      redirect_uri: 'https://partner.example.test/callback',
      scope: 'openid profile email',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      state: 'partner-state-1',
      nonce: 'partner-nonce-1',
    }).toString();
    const { page, problems, screenshot } = await openSignIn(account.email, `${authorize.pathname}${authorize.search}`);
    t.clock.advance(30);
    await submit(page, account.password, totpCode(account.totpSeed ?? '', t.clock.now()));
    await page.getByRole('heading', { name: 'Partner Analytics wants to access your account' }).waitFor();
    for (const words of ['Know who you are (your account identifier)', 'See your name', 'See your email address'])
      await page.getByText(words).waitFor();
    // The server-rendered page wears the UI's stylesheet (28rem wide at most; unstyled it would be 'none').
    assert.equal(await page.evaluate("getComputedStyle(document.querySelector('main.page')).maxWidth"), '448px');
    // The partner's site does not exist here: catch the navigation to it and read where the browser was sent.
    const redirected = page.waitForRequest((request) =>
      request.url().startsWith('https://partner.example.test/callback'),
    );
    await page.route('https://partner.example.test/**', (route) => route.fulfill({ status: 200, body: 'partner' }));
    await page.getByRole('button', { name: 'Allow' }).click();
    const target = new URL((await redirected).url());
    assert.equal(target.searchParams.get('state'), 'partner-state-1');
    assert.equal(target.searchParams.get('iss'), t.config.server.issuer);
    assert.match(target.searchParams.get('code') ?? '', /^[A-Za-z0-9_-]{43}$/);
    await page.waitForURL(/^https:\/\/partner\.example\.test\/callback/);
    await screenshot('consent-allowed-partner');
    assert.deepEqual(problems, []);
  });
});
