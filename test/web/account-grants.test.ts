// The account page's "Applications with access", in Chromium: a person signed in to a third-party and a first-party
// application sees both, with what each can do and where it was authorized from, removes the third party's access,
// and its tokens stop working at once while it must ask for consent again.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeAccount } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { startBrowserApp } from '../helpers/browser-app.ts';
import { signInThrough } from '../helpers/browser-sign-in.ts';
import { makeConfig } from '../helpers/config.ts';
import { assertTokensDead, assertTokensLive, authorizeAnswer, consentTo } from '../helpers/grants.ts';
import { makeClient, makeSession } from '../helpers/oauth-fixtures.ts';
import { userTokens } from '../helpers/oauth-flow.ts';
import { tokenStateSynced } from '../helpers/token-state.ts';

// Account pages need self-service with delivery configured; nothing here sends a message.
const t = await startBrowserApp(
  makeConfig({
    self_service: { enabled: true },
    delivery: {
      kind: 'smtp',
      from: 'id@acme-robotics.dev',
      smtp: { host: 'smtp.acme-robotics.dev', username: 'u', password_file: '/etc/gatehouse/secrets/smtp-password' },
    },
  }),
);

async function client(name: string, applicationName: string, firstParty: boolean) {
  const made = await makeClient(t.sql, t.secrets.clientSecret, { name, firstParty });
  await t.sql`update oauth_applications set name = ${applicationName} where id = ${made.client.applicationId}`;
  return { client: made.client, secret: made.secret as string };
}

describe('GET /settings: applications with access (Chromium)', () => {
  test('lists the person’s applications and removes one’s access, which ends its tokens and its consent', async () => {
    const gadget = await client('Gadget sync', 'Gadget', false);
    const notes = await client('Notes web', 'Acme Notes', true);
    const person = await makeAccount(t.sql, t.secrets, t.config, { email: 'lin.wei@acme-robotics.dev' });
    const { page, problems, screenshot } = await newPage({ width: 1024, height: 900 });
    await signInThrough(t, page, '/settings', person);
    const section = page.getByRole('region', { name: 'Applications with access' });
    await section.getByText('No application has access to your account.').waitFor();
    problems.splice(0); // the signed-out visit answered 401; from here on nothing may fail

    // The browser's own session authorizes both; the first-party one also from a second device.
    const [cookie] = (await page.context().cookies()).filter((c) => c.name === 'gatehouse_session');
    const browserCookie = `gatehouse_session=${cookie?.value}`;
    await consentTo(t, gadget.client, browserCookie, 'openid profile offline_access');
    const gadgetTokens = {
      ...gadget,
      ...(await userTokens(t, { ...gadget, cookie: browserCookie, scope: 'openid profile offline_access' })),
    };
    await userTokens(t, { ...notes, cookie: browserCookie, scope: 'openid email' });
    const phone = await makeSession(t, person.sub);
    await t.sql`update sessions set user_agent = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1', client_ip = '198.51.100.23'
                where id = ${phone.session.id}`;
    t.clock.advance(5);
    const notesTokens = {
      ...notes,
      ...(await userTokens(t, { ...notes, cookie: phone.cookie, scope: 'openid offline_access' })),
    };

    await page.reload();
    const entries = section.getByTestId('grants').locator(':scope > li');
    await entries.first().waitFor();
    assert.equal(await entries.count(), 2);
    // Most recently used first: the first-party application's phone sign-in came last.
    const notesEntry = entries.nth(0);
    await notesEntry.getByText('Acme Notes · Notes web').waitFor();
    await notesEntry.getByText('First party').waitFor();
    await notesEntry
      .getByText('Can: Know who you are (your account identifier); see your email address; stay signed in')
      .waitFor();
    // The session it was last used from leads.
    const notesFrom = notesEntry.getByText(/^Authorized from /);
    assert.match(
      (await notesFrom.nth(0).textContent()) ?? '',
      /^Authorized from Mobile Safari 17 on Apple iPhone, iOS 17\.5 at 198\.51\.100\.23, signed in /,
    );
    assert.match(
      (await notesFrom.nth(1).textContent()) ?? '',
      /^Authorized from this browser at 127\.0\.0\.1, signed in /,
    );
    const gadgetEntry = entries.nth(1);
    await gadgetEntry.getByText('Gadget · Gadget sync').waitFor();
    await gadgetEntry.getByText('Third party').waitFor();
    await gadgetEntry
      .getByText('Can: Know who you are (your account identifier); see your name; stay signed in and act for you')
      .waitFor();
    await gadgetEntry.getByText(/^Authorized from this browser at 127\.0\.0\.1, signed in /).waitFor();
    await screenshot('settings-grants-listed');

    await section.getByRole('button', { name: 'Remove access for Gadget' }).click();
    const done = section
      .getByRole('status')
      .getByText('Gadget no longer has access to your account and must ask again before it gets any.');
    await done.waitFor();
    assert.ok(await done.evaluate((el) => el === document.activeElement), 'focus moved to the outcome');
    await section.getByText('Gadget · Gadget sync').waitFor({ state: 'detached' });
    assert.equal(await entries.count(), 1);
    await screenshot('settings-grants-removed');

    await tokenStateSynced(t);
    await assertTokensDead(t, gadgetTokens);
    assert.equal((await authorizeAnswer(t, gadget.client, browserCookie, 'openid')).status, 200, 'consent asked');
    await assertTokensLive(t, notesTokens);
    assert.deepEqual(problems, []);
  });
});
