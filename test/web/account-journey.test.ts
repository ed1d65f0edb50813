// A person's journey through the hosted pages in Chromium: sign up, confirm through the link that really arrived by
// SMTP, sign in, enroll TOTP, keep the recovery codes, reach the account page, and then sign in to a relying party
// through /oauth/authorize; the relying party (oauth4webapi) receives the code and exchanges it.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { after, describe, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import { totpCode } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { startBrowserApp } from '../helpers/browser-app.ts';
import { deliveryWorker, Inbox, startMailbox } from '../helpers/mailbox.ts';
import { makeClient } from '../helpers/oauth-fixtures.ts';

const { smtp, config } = await startMailbox();
after(() => smtp.stop());
const t = await startBrowserApp(config);
const inbox = new Inbox(smtp, deliveryWorker(t.sql, t.config, t.secrets.delivery, t.clock.now, t.logs));

/** What the person holds after the first test: the relying-party test signs in with it. */
const person = { email: 'katherine@acme-robotics.dev', password: 'orbital mechanics passphrase 1962', seed: '' };

/** The relying party's callback: a loopback server that records where the browser was sent. */
const callbacks: URL[] = [];
const rp = createServer((request, response) => {
  callbacks.push(new URL(request.url ?? '/', `http://${request.headers.host}`));
  response
    .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    .end('<!doctype html><title>Relying party</title><h1>Signed in</h1>');
});
rp.listen(0, '127.0.0.1');
await once(rp, 'listening');
after(() => rp.close());
const rpAddress = rp.address();
const callbackUri = `http://127.0.0.1:${typeof rpAddress === 'object' && rpAddress ? rpAddress.port : 0}/callback`;

describe('hosted pages: sign-up to account settings (Chromium)', () => {
  test('a new person signs up, confirms by email, enrolls TOTP and reaches the account page', async () => {
    const { page, problems, screenshot } = await newPage({ width: 390, height: 844 });
    const { email, password } = person;

    await page.goto(`${t.url}/signup`);
    await page.getByLabel('Your name').fill('Katherine Johnson');
    await page.getByLabel('Email address').fill(email);
    // A guessable password is refused, and the page says why and what to do.
    await page.getByLabel('Password').fill('passwordpassword');
    await page.getByRole('button', { name: 'Create account' }).click();
    // Said once, under the password field; the alert points there.
    await page.getByRole('alert').getByText('Check the field marked below.').waitFor();
    assert.equal(
      await page.locator('#password-error').textContent(),
      'Repeated character patterns like "abcabcabc" are easy to guess; add more words that are less common; ' +
        'avoid repeated words and characters.',
    );
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('status').getByText(`We sent a confirmation link to ${email}`).waitFor();

    const [mail] = await inbox.deliver(1);
    const link = /(http:\/\/\S+\/account\/email\/verify#\S+)/.exec(mail?.text ?? '')?.[1];
    assert.ok(link, 'the message carries the confirmation link');
    await page.goto(link);
    assert.equal(new URL(page.url()).hash, '', 'the secret is dropped from the address bar');
    // The link proves the mailbox; the password typed again proves this sign-up is the person's own.
    await page.getByLabel('Your password').fill(password);
    await page.getByRole('button', { name: 'Confirm my address' }).click();
    await page.getByText('Your email address is confirmed.').waitFor();

    await page.getByRole('link', { name: 'Continue to sign-in' }).click();
    await page.getByLabel('Email address').fill(email);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Password').fill(password);
    // No authenticator yet: the code stays empty; the password alone leads to enrollment.
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Set up two-factor sign-in' }).waitFor();

    const secret = (await page.getByTestId('totp-secret').textContent()) ?? '';
    assert.match(secret, /^[A-Z2-7]{16,}$/);
    person.seed = secret;
    assert.ok(await page.getByRole('img', { name: 'QR code for your authenticator app' }).isVisible());
    t.clock.advance(30);
    await page.getByLabel('Code from the app').fill(totpCode(secret, t.clock.now()));
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    await page.getByRole('heading', { name: 'Save your recovery codes' }).waitFor();
    // One heading on the codes page: the page title says it, the codes section does not repeat it.
    assert.deepEqual(await page.getByRole('heading').allTextContents(), ['Save your recovery codes']);
    assert.equal(await page.getByTestId('recovery-codes').locator('li').count(), 10);
    // Leaving the codes page returns to where sign-in was headed: the account page.
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.waitForURL(`${t.url}/settings`);
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    assert.equal(await page.getByLabel('Name').inputValue(), 'Katherine Johnson');
    await page.getByText(`You sign in with ${email} (verified).`).waitFor();
    await page.getByText('this browser').waitFor();
    // The session reads as a browser and a system (ua-parser-js), the raw User-Agent only on hover.
    const device = page.locator('.sessions strong').first();
    assert.match((await device.textContent()) ?? '', /^Chrome Headless \d+ on Linux$/);
    assert.match((await device.getAttribute('title')) ?? '', /^Mozilla\/5\.0 /);
    await page.getByText('This is the only place you are signed in.').waitFor();
    await page.getByText('Every account keeps at least one way to sign in').waitFor();
    await screenshot('account-settings');
    assert.deepEqual(problems, []);
  });

  test('then signs in to a relying party through /oauth/authorize, which receives a code and exchanges it', async () => {
    assert.ok(person.seed, 'the sign-up test ran first');
    const { client: registered, secret } = await makeClient(t.sql, t.secrets.clientSecret, {
      kind: 'web',
      name: 'Mission Control',
      redirectUris: [callbackUri],
      scopes: ['openid', 'profile', 'email'],
    });
    const issuer = new URL(t.config.server.issuer);
    const insecure = { [oauth.allowInsecureRequests]: true };
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
    // The server runs on the test clock, which the journey moved ahead; a real relying party tolerates skew too.
    const client: oauth.Client = {
      client_id: registered.id,
      [oauth.clockSkew]: Math.round((t.clock.now().getTime() - Date.now()) / 1000),
    };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    const authorize = new URL(as.authorization_endpoint ?? '');
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: registered.id,
      redirect_uri: callbackUri,
      scope: 'openid profile email',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    }).toString();

    const { page, problems, screenshot } = await newPage({ width: 390, height: 844 });
    await page.goto(authorize.href);
    await page.waitForURL(/\/signin\?return_to=/);
    await page.getByLabel('Email address').fill(person.email);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Password').fill(person.password);
    t.clock.advance(30);
    await page.getByLabel('Authentication code').fill(totpCode(person.seed, t.clock.now()));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Signed in' }).waitFor();
    await screenshot('relying-party-signed-in');

    const [callback] = callbacks;
    assert.ok(callback);
    assert.equal(callback.searchParams.get('iss'), t.config.server.issuer);
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.ClientSecretPost(secret ?? ''),
      params,
      callbackUri,
      verifier,
      insecure,
    );
    const result = await oauth.processAuthorizationCodeResponse(as, client, response, {
      expectedNonce: nonce,
      requireIdToken: true,
    });
    await oauth.validateApplicationLevelSignature(as, response, insecure);
    const claims = oauth.getValidatedIdTokenClaims(result);
    const [identity] = await t.sql<
      { identity_id: string }[]
    >`select identity_id from emails where normalized = ${person.email}`;
    assert.equal(claims?.sub, identity?.identity_id, 'the relying party keys the person by sub');
    assert.deepEqual(claims?.amr, ['pwd', 'otp']);
    const info = await oauth.processUserInfoResponse(
      as,
      client,
      claims?.sub ?? '',
      await oauth.userInfoRequest(as, client, result.access_token, insecure),
    );
    assert.equal(info.email, person.email);
    assert.equal(info.name, 'Katherine Johnson');
    assert.deepEqual(problems, []);
  });
});
