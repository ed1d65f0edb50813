// A directory user on the hosted sign-in page, in Chromium: the same two steps as a local account, the password
// checked by a real slapd (LDAPS); without a Gatehouse authenticator the password leads to TOTP enrollment, and the
// next sign-in asks for the code and reaches the account page.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { totpCode } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { startBrowserApp } from '../helpers/browser-app.ts';
import { makeConfig } from '../helpers/config.ts';
import { providerSecretsDir } from '../helpers/provider-secrets.ts';
import { SERVICE_DN, SERVICE_PASSWORD, SUFFIX, startSlapd } from '../helpers/slapd.ts';

const slapd = await startSlapd();
after(() => slapd.stop());
// Self-service on, so the account page lists the ways to sign in.
const config = makeConfig({
  secrets: { dir: providerSecretsDir({ 'ldap-corp.secret': SERVICE_PASSWORD }) },
  self_service: { enabled: true },
  delivery: { kind: 'dev_mailbox' },
});
config.ldap = {
  corp: {
    name: 'Example Corp directory',
    url: slapd.ldapsUrl,
    start_tls: false,
    allow_plain_loopback: false,
    ca_file: slapd.caFile,
    bind_dn: SERVICE_DN,
    email_domains: ['corp.example'],
    user_search_base: `ou=people,${SUFFIX}`,
    user_filter: '(&(objectClass=inetOrgPerson)(mail={subject}))',
    id_attribute: 'entryUUID',
    display_name_attribute: 'cn',
    email_attribute: 'mail',
    sign_up: true,
    group_search_base: '',
    group_filter: '(member={dn})',
    group_roles: [],
    timeout_seconds: 5,
  },
};
const t = await startBrowserApp(config);

describe('hosted sign-in for an LDAP directory user (Chromium)', () => {
  test('the directory password leads to TOTP enrollment, and the next sign-in with the code reaches settings', async () => {
    const { page, problems } = await newPage();
    await page.goto(`${t.url}/signin?return_to=%2Fsettings`);
    await page.getByLabel('Email address').fill('alice@corp.example');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Password').fill('alice-password-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Set up two-factor sign-in' }).waitFor();
    const secret = (await page.getByTestId('totp-secret').textContent()) ?? '';
    t.clock.advance(30);
    await page.getByLabel('Code from the app').fill(totpCode(secret, t.clock.now()));
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.waitForURL(`${t.url}/settings`);
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    // Left for a blank page first: the open account page would notice the lost session and send itself to /signin,
    // racing the visit below (which it interrupted in CI).
    await page.goto('about:blank');
    await page.context().clearCookies();

    await page.goto(`${t.url}/signin?return_to=%2Fsettings`);
    await page.getByLabel('Email address').fill('alice@corp.example');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Password').fill('alice-password-1');
    t.clock.advance(30);
    await page.getByLabel('Authentication code').fill(totpCode(secret, t.clock.now()));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${t.url}/settings`);
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    // The list of ways to sign in names the directory as configured, never by its id (corp).
    const method = page.locator('ul.connections li', { hasText: 'Example Corp directory (alice@corp.example)' });
    await method.waitFor();
    assert.doesNotMatch((await method.textContent()) ?? '', /corp(?!\.example| directory)/i);
    const [session] = await t.sql<{ aal: string }[]>`select aal from sessions order by created_at desc limit 1`;
    assert.equal(session?.aal, 'aal2');
    assert.deepEqual(problems, []);
  });
});
