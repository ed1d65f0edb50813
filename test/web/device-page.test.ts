// The /device page in Chromium (RFC 8628 §3.3): a TV app asks for codes with oauth4webapi; the person opens the
// verification_uri_complete, is sent to sign in (password and TOTP, the hosted sign-in's rules), comes back to the
// page with the code filled in, sees the application, the kind of device and the scopes with the warning, and
// approves: the TV's next poll gets tokens. Another person types a code by hand on a phone-sized screen and denies.
// The page is checked at 1280 and 390 px wide: nothing overflows sideways.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { makeAccount } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { startBrowserApp } from '../helpers/browser-app.ts';
import { signInThrough } from '../helpers/browser-sign-in.ts';
import { makeConfig } from '../helpers/config.ts';
import { discover, poll, requestCodes } from '../helpers/device-flow.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';

const TV =
  'Mozilla/5.0 (SMART-TV; LINUX; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) 85.0.4183.93/6.0 TV Safari/537.36';
const WARNING =
  'Approve only if you started this sign-in yourself, on a device in front of you that shows this code. If someone sent you this code or link, deny: approving would give them access to your account.';

const t = await startBrowserApp(makeConfig());
const as = await discover(t.url);
const tv = await makeClient(t.sql, t.secrets.clientSecret, {
  kind: 'native',
  name: 'Acme TV',
  redirectUris: [],
  scopes: ['openid', 'profile', 'offline_access'],
  deviceAuthorizationGrant: true,
  firstParty: false,
});

/** Nothing on the page is wider than the window: no sideways scrolling on a phone. */
async function fitsWidth(page: import('playwright-core').Page) {
  const { scroll, width } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    width: window.innerWidth,
  }));
  assert.ok(scroll <= width, `page is ${scroll}px wide in a ${width}px window`);
}

describe('/device (Chromium)', () => {
  test('a person signs in from the complete verification link, checks the request and approves it (1280 px)', async () => {
    const codes = await requestCodes(as, tv.client.id, { scope: 'openid profile offline_access' }, { userAgent: TV });
    const account = await makeAccount(t.sql, t.secrets, t.config);
    const { page, problems, screenshot } = await newPage({ width: 1280, height: 800 });
    const link = new URL(codes.verification_uri_complete as string);
    await signInThrough(t, page, `${link.pathname}${link.search}`, account);

    await page.getByRole('heading', { name: 'Connect a device' }).waitFor();
    await page.getByText('Check that this is the code your device shows, then continue.').waitFor();
    assert.equal(await page.getByLabel('Code').inputValue(), codes.user_code);
    await page.getByRole('button', { name: 'Continue' }).click();

    await page.getByText('Acme TV asks to sign in to your account on this device:').waitFor();
    await page.getByText('A TV').waitFor();
    await page.getByText(codes.user_code).waitFor();
    await page.getByText('See your name').waitFor();
    await page.getByText('Stay signed in and act for you while you are away').waitFor();
    await page.getByText(WARNING).waitFor();
    await fitsWidth(page);
    await screenshot('device-review-1280');

    // Still pending while the person reads.
    const pending = await poll(as, tv.client.id, codes.device_code);
    assert.equal(((await pending.json()) as { error: string }).error, 'authorization_pending');

    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Done: Acme TV is signed in on your device. You can go back to it now.').waitFor();
    await screenshot('device-approved-1280');
    t.clock.advance(5);
    const tokens = await oauth.processDeviceCodeResponse(
      as,
      { client_id: tv.client.id },
      await poll(as, tv.client.id, codes.device_code),
    );
    assert.ok(tokens.refresh_token);
    // The sign-in used both factors: the tokens say so.
    assert.equal(decodeJwt(tokens.access_token).acr, 'aal2');
    assert.deepEqual(problems, []);
  });

  test('on a phone-sized screen a person types the code by hand and denies the request (390 px)', async () => {
    const codes = await requestCodes(as, tv.client.id, { scope: 'openid' }, { userAgent: 'acme-tv-cli/2.1' });
    const account = await makeAccount(t.sql, t.secrets, t.config);
    const { page, problems, screenshot } = await newPage({ width: 390, height: 844 });
    await signInThrough(t, page, '/device', account);
    await page.getByText('Type the code your device shows.').waitFor();
    await fitsWidth(page);
    await screenshot('device-enter-390');

    // A typo first: the page says so in words, and lets the person type again.
    await page.getByLabel('Code').fill('bcdf ghjk');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page
      .getByRole('alert')
      .getByText('This code is not valid or has expired. Check the code on your device and type it again.')
      .waitFor();
    await page.getByLabel('Code').fill(codes.user_code.toLowerCase().replace('-', ' '));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText('An unknown device').waitFor();
    await page.getByText('acme-tv-cli/2.1').waitFor();
    await fitsWidth(page);
    await screenshot('device-review-390');
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('Denied: the device was not signed in.').waitFor();
    await fitsWidth(page);

    const denied = await poll(as, tv.client.id, codes.device_code);
    assert.equal(denied.status, 400);
    assert.equal(((await denied.json()) as { error: string }).error, 'access_denied');
    assert.deepEqual(problems, []);
  });

  test('a German browser gets the page, the device words and the warning in German', async () => {
    const codes = await requestCodes(as, tv.client.id, { scope: 'openid' }, { userAgent: TV });
    const sub = await makeIdentity(t.sql, { displayName: 'Lena Kraus' });
    const { cookie } = await makeSession(t, sub);
    const { page, problems } = await newPage({ width: 390, height: 844 }, { locale: 'de-DE' });
    const [name, value] = cookie.split('=') as [string, string];
    await page.context().addCookies([{ name, value, url: t.url }]);
    await page.goto(codes.verification_uri_complete as string);
    await page.getByRole('heading', { name: 'Gerät verbinden' }).waitFor();
    await page.getByRole('button', { name: 'Weiter' }).click();
    await page.getByText('Ein Fernseher').waitFor();
    await page.getByText(/^Stimmen Sie nur zu, wenn Sie diese Anmeldung selbst begonnen haben/).waitFor();
    await fitsWidth(page);
    await page.getByRole('button', { name: 'Zustimmen' }).click();
    await page.getByText(/^Fertig: Acme TV ist auf Ihrem Gerät angemeldet\./).waitFor();
    assert.deepEqual(problems, []);
  });
});
