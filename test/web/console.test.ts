// The owner's first visit, in Chromium: the enrollment link from setup, a password and TOTP, sign-in, and the
// console: an application, a web client whose secret is shown once (and not after a reload), and a resource.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { exportJWK, generateKeyPair } from 'jose';
import { ensureBootstrap } from '../../src/identity/bootstrap.ts';
import { issueEnrollmentLink } from '../../src/login/local/enrollment-link.ts';
import { makeAccount, totpCode } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { startBrowserApp } from '../helpers/browser-app.ts';
import { makeConfig } from '../helpers/config.ts';

const t = await startBrowserApp(
  makeConfig({ organization: { id: 'acme', name: 'Acme', owner_subject: 'owner@acme-robotics.dev' } }),
);
const installation = await ensureBootstrap(t.sql, {
  organizationId: 'acme',
  organizationName: 'Acme',
  ownerSubject: 'owner@acme-robotics.dev',
});

describe('owner enrollment and the administration console (Chromium)', () => {
  test('the owner enrolls from the link, signs in, and registers an application, a web client and a resource', async () => {
    const { page, problems, screenshot } = await newPage({ width: 1280, height: 900 });
    const password = 'the owner keeps a long passphrase 8';
    const link = await issueEnrollmentLink(t.sql, installation.ownerId, t.config.server.issuer, t.clock.now());

    // The token rides in the fragment: no request the browser makes carries it, in the URL or the Referer.
    const token = new URLSearchParams(new URL(link.url).hash.slice(1)).get('token') ?? '';
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    const leaks: string[] = [];
    page.on('request', (request) => {
      const referer = request.headers().referer ?? '';
      if (request.url().includes(token) || referer.includes(token)) leaks.push(request.url());
    });
    await page.goto(link.url);
    await page.getByLabel('New password').waitFor();
    assert.equal(page.url(), `${t.url}/enroll`, 'the page dropped the token from the address bar');
    await page.getByLabel('New password').fill(password);
    await page.getByLabel('Repeat the password').fill(password);
    await page.getByRole('button', { name: 'Set password' }).click();
    const secret = (await page.getByTestId('totp-secret').textContent()) ?? '';
    t.clock.advance(30);
    await page.getByLabel('Code from the app').fill(totpCode(secret, t.clock.now()));
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    // "I have saved them" leaves /enroll for the console. That page is then left for a blank one before the cookies
    // go: still open, it would notice the lost session and send itself to /signin, racing the visit below (which it
    // interrupted in CI).
    await Promise.all([
      page.waitForURL((url) => url.pathname !== '/enroll'),
      page.getByRole('button', { name: 'I have saved them' }).click(),
    ]);
    assert.deepEqual(leaks, [], 'no request carried the enrollment token');
    await page.goto('about:blank');

    // A fresh sign-in with both factors, as the owner will do from now on.
    await page.context().clearCookies();
    // The console sends a signed-out visitor on to /signin as soon as it loads: wait for the response only, so that
    // the redirect cannot interrupt the navigation, then for the sign-in page.
    await page.goto(`${t.url}/admin/console`, { waitUntil: 'commit' });
    await page.waitForURL(/\/signin\?return_to=%2Fadmin%2Fconsole/);
    await page.getByLabel('Email address').fill('owner@acme-robotics.dev');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Password').fill(password);
    t.clock.advance(30);
    await page.getByLabel('Authentication code').fill(totpCode(secret, t.clock.now()));
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The console opens on its overview; the first step of its checklist leads to Applications.
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Add an application' }).click();
    await page.getByRole('heading', { name: 'Applications' }).waitFor();

    await page.getByLabel('Identifier').fill('billing-web');
    await page.getByLabel('Name').fill('Billing');
    await page.getByLabel('Environment').selectOption('production');
    await page.getByRole('button', { name: 'Create application' }).click();
    await page.getByRole('cell', { name: 'billing-web', exact: true }).waitFor();

    await page.getByRole('link', { name: 'Resources' }).click();
    await page.getByLabel('Audience').fill('https://api.acme-robotics.dev/billing');
    await page.getByLabel('Name').fill('Billing API');
    await page.getByLabel('Scopes').fill('billing:read billing:write');
    await page.getByRole('button', { name: 'Create resource' }).click();
    await page.getByRole('cell', { name: 'https://api.acme-robotics.dev/billing', exact: true }).waitFor();

    await page.getByRole('link', { name: 'Clients' }).click();
    await page.getByLabel('Name').fill('Billing web');
    await page.getByLabel('Kind').selectOption('web');
    await page.getByLabel('Redirect URIs').fill('https://billing.acme-robotics.dev/callback');
    await page.getByLabel('Require pushed authorization requests (PAR)').check();
    await page.getByLabel('Back-channel logout URL').fill('https://billing.acme-robotics.dev/backchannel');
    await page.getByRole('button', { name: 'Create client' }).click();
    const shown = (await page.getByTestId('client-secret').textContent()) ?? '';
    assert.ok(shown.length >= 32, 'the secret is shown once');
    await page.getByRole('cell', { name: 'Billing web', exact: true }).waitFor();
    await screenshot('console-client-secret');
    const [web = {}] = await t.sql`
      select require_pushed_authorization_requests, backchannel_logout_uri from oauth_clients where name = 'Billing web'`;
    assert.deepEqual(web, {
      require_pushed_authorization_requests: true,
      backchannel_logout_uri: 'https://billing.acme-robotics.dev/backchannel',
    });

    await page.reload();
    await page.getByRole('cell', { name: 'Billing web', exact: true }).waitFor();
    assert.equal(await page.getByTestId('client-secret').count(), 0, 'not shown again after a reload');
    assert.ok(!(await page.content()).includes(shown));
    await screenshot('console-clients');

    // A service client that authenticates with a registered key instead of a secret, and must use DPoP.
    const { publicKey } = await generateKeyPair('ES256', { extractable: true });
    await page.getByLabel('Name').fill('Billing sync');
    await page.getByLabel('Kind').selectOption('service');
    await page.getByLabel('Allowed audiences').fill('https://api.acme-robotics.dev/billing');
    await page.getByLabel('Scopes').fill('billing:read');
    await page.getByLabel('Client authentication').selectOption('private_key_jwt');
    await page.getByLabel('Public keys (JWKS)').fill(JSON.stringify({ keys: [await exportJWK(publicKey)] }));
    await page.getByLabel(/Require DPoP-bound tokens/).check();
    await page.getByRole('button', { name: 'Create client' }).click();
    await page.getByRole('cell', { name: 'Billing sync', exact: true }).waitFor();
    assert.equal(await page.getByTestId('client-secret').count(), 0, 'a keyed client has no secret to show');
    const [keyed = {}] = await t.sql`
      select token_endpoint_auth_method, jwks, secret_hmac, dpop_bound_access_tokens
      from oauth_clients where name = 'Billing sync'`;
    assert.deepEqual(
      { ...keyed, jwks: (keyed.jwks as { keys: unknown[] } | null)?.keys.length },
      { token_endpoint_auth_method: 'private_key_jwt', jwks: 1, secret_hmac: null, dpop_bound_access_tokens: true },
    );
    assert.deepEqual(problems, []);
  });

  test('a signed-in member who is not an owner sees a clear "Not allowed" page with the reason and request id', async () => {
    const member = await makeAccount(t.sql, t.secrets, t.config, { roles: ['member'], organizationId: 'acme' });
    const { page, problems, screenshot } = await newPage({ width: 390, height: 844 });
    // The console sends a signed-out visitor on to /signin as soon as it loads: wait for the response only, so that
    // the redirect cannot interrupt the navigation, then for the sign-in page.
    await page.goto(`${t.url}/admin/console`, { waitUntil: 'commit' });
    await page.waitForURL(/\/signin\?return_to=%2Fadmin%2Fconsole/);
    await page.getByLabel('Email address').fill(member.email);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Password').fill(member.password);
    t.clock.advance(30);
    await page.getByLabel('Authentication code').fill(totpCode(member.totpSeed ?? '', t.clock.now()));
    await page.getByRole('button', { name: 'Sign in' }).click();

    await page.getByRole('heading', { name: 'Not allowed' }).waitFor();
    assert.equal(await page.title(), 'Not allowed · Acme');
    const alert = page.getByRole('alert');
    await alert.getByText('Only an owner of the organization may do this').waitFor();
    assert.match((await alert.textContent()) ?? '', /Request ID: [A-Za-z0-9_-]{16}/);
    assert.equal(await page.getByRole('navigation', { name: 'Console sections' }).count(), 0);
    assert.equal(await page.getByRole('link', { name: 'Go to your account' }).getAttribute('href'), '/settings');
    await screenshot('console-not-allowed');
    assert.deepEqual(problems, []);
  });
});
