// The owner manages people in the console, in Chromium: finds a person by email, raises them to IAL2, changes their
// roles on the Members page, and suspends them, after which the person's own open session stops working at once.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type Account, makeAccount, totpCode } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { startBrowserApp } from '../helpers/browser-app.ts';
import { startMailbox } from '../helpers/mailbox.ts';

// Self-service on (it needs delivery), so the person has an account page whose session we can watch end.
const { smtp, config } = await startMailbox();
after(() => smtp.stop());
const t = await startBrowserApp(config);
await t.sql`insert into organizations (id, name) values (${t.config.organization.id}, 'Acme Robotics')`;
const owner = await makeAccount(t.sql, t.secrets, t.config, {
  email: 'owner@acme-robotics.dev',
  roles: ['owner'],
  assurance: 'ial2',
});
const person = await makeAccount(t.sql, t.secrets, t.config, { email: 'Lin.Wei@acme-robotics.dev', roles: ['member'] });
await t.sql`update identities set display_name = 'Lin Wei' where id = ${person.sub}`;

/** Opens `path`, is sent to sign-in (the 401 of a signed-out visit), signs in with both factors and comes back. */
async function signInThrough(page: Page, path: string, account: Account) {
  await page.goto(`${t.url}${path}`);
  await page.waitForURL(/\/signin\?return_to=/);
  await page.getByLabel('Email address').fill(account.email);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByLabel('Password').fill(account.password);
  t.clock.advance(30); // a fresh TOTP step for every sign-in
  await page.getByLabel('Authentication code').fill(totpCode(account.totpSeed as string, t.clock.now()));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${t.url}${path}`);
}

describe('console: identities and organization members (Chromium)', () => {
  test('the owner finds a person by email, raises them to IAL2, changes their roles and suspends them', async () => {
    const phone = await newPage({ width: 390, height: 844 });
    await signInThrough(phone.page, '/settings', person);
    await phone.page.getByRole('heading', { name: 'Your account' }).waitFor();

    const { page, problems, screenshot } = await newPage({ width: 1280, height: 900 });
    await signInThrough(page, '/admin/console/identities', owner);
    await page.getByRole('heading', { name: 'Identities' }).waitFor();
    problems.splice(0); // the signed-out visit answered 401; from here on nothing may fail

    await page.getByLabel('Search').fill('lin.wei@acme');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('cell', { name: 'Lin.Wei@acme-robotics.dev' }).waitFor();
    await page.getByRole('link', { name: 'Lin Wei' }).click();
    await page.getByRole('heading', { name: 'Lin Wei' }).waitFor();
    assert.equal(await page.getByTestId('identity-ial').textContent(), 'ial1');
    assert.equal(await page.locator('.sessions li').count(), 1, 'the person’s open session is listed');

    await page.getByRole('button', { name: 'Raise to IAL2' }).click();
    await page.getByRole('status').getByText('Identity assurance is now IAL2.').waitFor();
    await page.getByTestId('identity-ial').getByText('ial2').waitFor();

    await page.getByRole('navigation').getByRole('link', { name: 'Members' }).click();
    await page.getByRole('heading', { name: 'Organization members' }).waitFor();
    await page.getByLabel('Roles for Lin Wei', { exact: true }).fill('member support');
    await page.getByRole('button', { name: 'Save roles for Lin Wei' }).click();
    await page.getByRole('status').getByText('Saved the roles of Lin Wei.').waitFor();
    const [membership] = await t.sql`select roles from memberships where identity_id = ${person.sub}`;
    assert.deepEqual(membership?.roles, ['member', 'support']);

    await page.getByRole('link', { name: 'Lin Wei' }).click();
    await page.getByRole('heading', { name: 'Lin Wei' }).waitFor();
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Suspend' }).click();
    await page.getByRole('status').getByText('Suspended. 1 session ended, 0 app grants revoked.').waitFor();
    await page.getByTestId('identity-state').getByText('suspended').waitFor();
    await page.getByTestId('no-sessions').waitFor();
    await page.getByRole('button', { name: 'Reactivate' }).waitFor();

    // The person's page, still open: its next request is refused and sends them to sign-in.
    await phone.page.reload();
    await phone.page.waitForURL(/\/signin\?return_to=%2Fsettings/);

    const audit = await t.sql`select event from audit_events where subject = ${person.sub} and actor = ${owner.sub}
                              order by occurred_at, seq`;
    assert.deepEqual(
      audit.map((a) => a.event),
      ['identity.assurance_changed', 'membership.roles_changed', 'identity.suspended'],
    );
    await screenshot('console-identity-suspended');
    assert.deepEqual(problems, []);
  });
});
