// The console's identity view, in Chromium: the owner sees the applications holding a person's grants and removes
// one's access; its tokens stop working at once, the record names the owner, and the other application keeps its.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { auditOf } from '../helpers/admin-api.ts';
import { newPage } from '../helpers/browser.ts';
import { signInThrough } from '../helpers/browser-sign-in.ts';
import { startConsoleApp } from '../helpers/console-app.ts';
import { assertTokensDead, assertTokensLive, consentTo } from '../helpers/grants.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { userTokens } from '../helpers/oauth-flow.ts';
import { tokenStateSynced } from '../helpers/token-state.ts';

const { t, owner } = await startConsoleApp();

async function client(name: string, applicationName: string, firstParty: boolean) {
  const made = await makeClient(t.sql, t.secrets.clientSecret, { name, firstParty });
  await t.sql`update oauth_applications set name = ${applicationName} where id = ${made.client.applicationId}`;
  return { client: made.client, secret: made.secret as string };
}

describe('console: an identity’s applications with access (Chromium)', () => {
  test('the owner sees the person’s applications and removes one’s access, which ends its tokens', async () => {
    const gadget = await client('Gadget sync', 'Gadget', false);
    const notes = await client('Notes web', 'Acme Notes', true);
    const person = await makeIdentity(t.sql, { displayName: 'Lin Wei' });
    const laptop = await makeSession(t, person);
    await t.sql`update sessions set user_agent = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', client_ip = '203.0.113.7'
                where id = ${laptop.session.id}`;
    await consentTo(t, gadget.client, laptop.cookie, 'openid email offline_access');
    const gadgetTokens = {
      ...gadget,
      ...(await userTokens(t, { ...gadget, cookie: laptop.cookie, scope: 'openid email offline_access' })),
    };
    t.clock.advance(5);
    const notesTokens = {
      ...notes,
      ...(await userTokens(t, { ...notes, cookie: laptop.cookie, scope: 'openid offline_access' })),
    };

    const { page, problems, screenshot } = await newPage({ width: 1280, height: 900 });
    await signInThrough(t, page, `/admin/console/identities/${person}`, owner);
    await page.getByRole('heading', { name: 'Lin Wei' }).waitFor();
    problems.splice(0); // the signed-out visit answered 401; from here on nothing may fail
    const section = page.getByRole('region', { name: 'Applications with access' });
    const entries = section.getByTestId('grants').locator(':scope > li');
    await entries.first().waitFor();
    assert.equal(await entries.count(), 2);
    const gadgetEntry = entries.nth(1);
    await gadgetEntry.getByText('Gadget · Gadget sync').waitFor();
    await gadgetEntry.getByText('Third party').waitFor();
    await gadgetEntry.getByText('Can: Know who you are (your account identifier); see your email address').waitFor();
    await gadgetEntry.getByText(`client ${gadget.client.id}`).waitFor();
    await gadgetEntry
      .getByText('Scopes held: openid email offline_access · consented: openid email offline_access')
      .waitFor();
    await gadgetEntry
      .getByText(
        new RegExp(
          `^Authorized from Firefox 133 on Linux at 203\\.0\\.113\\.7, signed in .* · session ${laptop.session.id}$`,
        ),
      )
      .waitFor();
    await screenshot('console-identity-grants');

    await section.getByRole('button', { name: 'Remove access for Gadget' }).click();
    await section
      .getByRole('status')
      .getByText('Gadget no longer has access to this account and must ask again before it gets any.')
      .waitFor();
    await section.getByText('Gadget · Gadget sync').waitFor({ state: 'detached' });
    assert.equal(await entries.count(), 1);
    await screenshot('console-identity-grants-removed');

    await tokenStateSynced(t);
    await assertTokensDead(t, gadgetTokens);
    await assertTokensLive(t, notesTokens);
    const records = await auditOf(t, person);
    assert.deepEqual(
      records.map((r) => [r.event, r.actor, r.details.client_id, r.details.grants_revoked]),
      [['oauth.access_revoked', owner.sub, gadget.client.id, 1]],
    );
    assert.deepEqual(problems, []);
  });
});
