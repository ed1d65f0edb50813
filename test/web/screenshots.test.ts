// Every hosted page at desktop (1280 px) and phone (390 px) width: each renders without console errors or CSP
// violations, fits the phone without horizontal scrolling, and leaves a screenshot in test-artifacts/screenshots/
// (git-ignored) for a person to look at.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { crc32, deflateSync } from 'node:zlib';
import pino from 'pino';
import type { Page } from 'playwright-core';
import { createConfiguredTransport } from '../../src/delivery/run.ts';
import { createDeliveryWorker } from '../../src/delivery/worker.ts';
import { loggerOptions } from '../../src/http/logger.ts';
import { JSON_HEADERS, makeAccount, sessionCookieFor } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { makeConfig } from '../helpers/config.ts';
import { startConsoleApp } from '../helpers/console-app.ts';
import { consentTo } from '../helpers/grants.ts';
import { authorizeUrl, pkcePair } from '../helpers/oauth-flow.ts';

const SHOTS = new URL('../../test-artifacts/screenshots/', import.meta.url);
mkdirSync(SHOTS, { recursive: true });

/** A solid 96x32 RGB PNG: a stand-in logo, so the screenshots show where the logo sits. */
function solidPng(width: number, height: number, [r, g, b]: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => [r, g, b]).flat())]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', pixels), chunk('IEND', Buffer.alloc(0))]);
}
const logo = new URL('logo.png', SHOTS).pathname;
writeFileSync(logo, solidPng(96, 32, [122, 31, 92]));

// The development mailbox (a loopback issuer allows it), so its console page is among the shots.
const { t, owner, call } = await startConsoleApp(
  makeConfig({
    organization: { id: 'acme', name: 'Acme Robotics', owner_subject: '' },
    self_service: { enabled: true },
    delivery: { kind: 'dev_mailbox' },
    branding: { accent_color: '#7a1f5c', logo_file: logo },
  }),
);

const shop = await call('POST', '/admin/applications', { identifier: 'shop', name: 'Shop', environment: 'production' });
const web = await call('POST', '/admin/clients', {
  application_id: shop.json.id,
  name: 'Shop Web',
  kind: 'web',
  redirect_uris: ['https://shop.acme-robotics.dev/auth/callback', 'https://shop.acme-robotics.dev/auth/callback-two'],
  scopes: ['openid', 'profile', 'email', 'offline_access'],
  first_party: false,
});
await call('POST', '/admin/resources', {
  audience: 'https://api.acme-robotics.dev/orders',
  name: 'Orders API',
  scopes: ['orders:read', 'orders:write'],
});
const person = await makeAccount(t.sql, t.secrets, t.config, { email: 'dana.reyes@acme-robotics.dev' });
const shopWeb = { id: web.json.client_id, redirectUris: web.json.redirect_uris } as never;
const { challenge } = pkcePair();
const consentUrl = authorizeUrl({
  client: shopWeb,
  challenge,
  redirectUri: 'https://shop.acme-robotics.dev/auth/callback',
  scope: 'openid profile email',
});
// A grant for the identity page's table; narrower than the consent shot asks for, so that page still asks.
await consentTo(
  t,
  shopWeb,
  await sessionCookieFor(t.sql, person.sub, { aal: 'aal2', now: t.clock.now() }),
  'openid email',
);

// A kept sign-up message for the Mailbox page: its long link is what has to fit the phone.
const signup = await t.app.inject({
  method: 'POST',
  url: '/account/signup',
  headers: { ...JSON_HEADERS, origin: t.url },
  payload: {
    email: 'mae.jemison@acme-robotics.dev',
    password: 'endeavour mission passphrase 1992',
    display_name: 'Mae',
  },
});
assert.equal(signup.statusCode, 201, signup.body);
const transport = createConfiguredTransport(t.config, {
  deliveryKey: t.secrets.delivery,
  mailbox: { sql: t.sql, clock: t.clock.now, notice: () => {} },
});
assert.ok(transport);
const kept = await createDeliveryWorker({
  sql: t.sql,
  transport,
  deliveryKey: t.secrets.delivery,
  from: '',
  clock: t.clock.now,
  log: pino(loggerOptions('silent'), t.logs),
}).runOnce();
assert.equal(kept.sent, 1);

/** A link's fragment that is well formed but matches nothing: the page renders, and says what the server answered. */
const DUMMY_LINK = '#verification_id=ver_screenshot&secret=not-a-real-secret';

async function signedIn(page: Page, sub: string, aal: 'aal1' | 'aal2', enrollmentOnly = false) {
  const pending = enrollmentOnly ? 'enrollment' : null;
  const cookie = await sessionCookieFor(t.sql, sub as never, { aal, now: t.clock.now(), pending });
  const [name, value] = cookie.split('=') as [string, string];
  await page.context().addCookies([{ name, value, url: t.url }]);
}

interface Shot {
  name: string;
  path: string;
  as?: 'owner' | 'person' | 'enrolling';
  /** Text the page shows once it has loaded. */
  ready: string | RegExp;
}

const SHOTS_LIST: Shot[] = [
  { name: 'signin', path: '/signin', ready: 'Sign in' },
  {
    name: 'signin-for-application',
    path: `/signin?return_to=${encodeURIComponent(consentUrl)}`,
    ready: 'Sign in to continue to Shop Web',
  },
  { name: 'signup', path: '/signup', ready: 'Create an account' },
  { name: 'forgot-password', path: '/forgot-password', ready: /Forgot|Reset/ },
  { name: 'reset-password', path: `/account/password/reset${DUMMY_LINK}`, ready: 'Set new password' },
  { name: 'verify-email', path: `/account/email/verify${DUMMY_LINK}`, ready: 'Confirm my address' },
  {
    name: 'verify-new-email',
    path: `/account/email/change/verify${DUMMY_LINK}`,
    as: 'person',
    ready: 'Ask again from your account',
  },
  { name: 'enroll', path: '/enroll', as: 'enrolling', ready: /authenticat/i },
  { name: 'settings', path: '/settings', as: 'person', ready: 'Where you are signed in' },
  { name: 'consent', path: consentUrl, as: 'person', ready: 'Use another account' },
  { name: 'device', path: '/device?user_code=WDJB-MJHT', as: 'person', ready: 'Check that this is the code' },
  { name: 'not-found', path: '/no-such-page', ready: 'Page not found' },
  { name: 'console-overview', path: '/admin/console', as: 'owner', ready: 'Done: Register your first application' },
  { name: 'console-applications', path: '/admin/console/applications', as: 'owner', ready: 'shop' },
  { name: 'console-clients', path: '/admin/console/clients', as: 'owner', ready: 'Shop Web' },
  { name: 'console-resources', path: '/admin/console/resources', as: 'owner', ready: 'Orders API' },
  { name: 'console-identities', path: '/admin/console/identities', as: 'owner', ready: 'dana.reyes@acme-robotics.dev' },
  {
    name: 'console-identity',
    path: `/admin/console/identities/${person.sub}`,
    as: 'owner',
    ready: 'Shop Web',
  },
  { name: 'console-members', path: '/admin/console/members', as: 'owner', ready: 'owner@acme-robotics.dev' },
  { name: 'console-audit', path: '/admin/console/audit', as: 'owner', ready: 'client.created' },
  { name: 'console-status', path: '/admin/console/status', as: 'owner', ready: 'Signing keys' },
  {
    name: 'console-single-sign-on',
    path: '/admin/console/single-sign-on',
    as: 'owner',
    ready: 'No SAML connections yet.',
  },
  {
    name: 'console-mailbox',
    path: '/admin/console/mailbox',
    as: 'owner',
    ready: 'Confirm your email address for Acme Robotics',
  },
];

for (const width of [1280, 390])
  describe(`every hosted page at ${width} px`, () => {
    for (const shot of SHOTS_LIST)
      test(`${shot.name} renders cleanly${width === 390 ? ' and fits the phone without horizontal scrolling' : ''}`, async () => {
        const { page, problems } = await newPage({ width, height: 900 });
        if (shot.as === 'owner') await signedIn(page, owner.sub, 'aal2');
        if (shot.as === 'person') await signedIn(page, person.sub, 'aal2');
        if (shot.as === 'enrolling') await signedIn(page, person.sub, 'aal1', true);
        await page.goto(`${t.url}${shot.path}`);
        // In the page's body: the console header also names the signed-in owner (folded away on a phone).
        await page.getByRole('main').getByText(shot.ready).first().waitFor();
        await page.screenshot({ path: new URL(`${shot.name}-${width}.png`, SHOTS).pathname, fullPage: true });
        // The unknown page's own 404 is its answer, not a problem.
        const expected =
          shot.name === 'not-found'
            ? ['Failed to load resource: the server responded with a status of 404 (Not Found)']
            : [];
        assert.deepEqual(problems, expected);
        // The organization's name and logo head every page, and its accent colours the buttons.
        assert.ok((await page.getByText('Acme Robotics').count()) > 0, 'the brand header is shown');
        assert.ok((await page.locator('img.brand-logo').count()) > 0, 'the logo is shown');
        assert.equal(
          await page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--accent')"),
          '#7a1f5c',
        );
        if (width === 390) {
          // A string, run in the page: the tests are type-checked without the DOM library. Visually hidden text
          // (column headings kept for screen readers) and code blocks, which scroll inside themselves, do not count.
          const overflow = (await page.evaluate(`({
            page: document.documentElement.scrollWidth,
            wide: [...document.querySelectorAll('body *')]
              .filter((e) => e.getBoundingClientRect().right > 390.5 && !e.closest('pre, thead, .visually-hidden'))
              .map((e) => e.tagName.toLowerCase() + '.' + e.className + ' ' + (e.textContent || '').slice(0, 30))
              .slice(0, 5),
          })`)) as { page: number; wide: string[] };
          assert.ok(overflow.page <= 390, `page is ${overflow.page} px wide: ${overflow.wide.join(', ')}`);
          assert.deepEqual(overflow.wide, [], 'no element reaches past the right edge');
        }
      });
  });

describe('validation messages in the UI', () => {
  test('a refused sign-up address is said once, beside the field, as a sentence', async () => {
    const { page } = await newPage({ width: 1280, height: 900 });
    await page.goto(`${t.url}/signup`);
    await page.getByLabel('Your name').fill('Lee');
    await page.getByLabel('Email address').fill(`${'x'.repeat(65)}@acme-robotics.dev`);
    await page.getByLabel('Password').fill('a long enough passphrase 42');
    await page.getByRole('button', { name: 'Create account' }).click();
    const sentence =
      'Enter a plain address like name@example.org: at most 64 characters before the @, no quotes or spaces.';
    await page.getByText(sentence).waitFor();
    await page.screenshot({ path: new URL('signup-refused-1280.png', SHOTS).pathname, fullPage: true });
    assert.equal(await page.getByText(sentence).count(), 1);
    assert.match((await page.getByRole('alert').textContent()) ?? '', /^Check the field marked below\.Request ID/);
    assert.ok(!(await page.content()).includes('body.email'));
  });
});
