// The account page's "Ways to sign in" in Chromium: link a provider account through the upstream Gatehouse, see it
// listed with its name and mark, and remove it again.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newPage } from '../helpers/browser.ts';
import { startDownstream, startUpstream, upstreamPerson } from '../helpers/federation.ts';
import { makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';

describe('GET /settings: ways to sign in (Chromium)', () => {
  test('links the generic provider from the account page, lists it, and removes it', async () => {
    const upstream = await startUpstream();
    // localhost downstream, 127.0.0.1 upstream: one browser keeps their session cookies apart.
    const down = await startDownstream(upstream, () => ({}), 'localhost');
    const sub = await makeIdentity(down.sql, { email: 'barbara@acme.dev', displayName: 'Barbara Liskov' });
    await down.sql`insert into sign_in_methods (identity_id, kind, provider, external_subject, label)
                   values (${sub}, 'password', 'local', 'barbara@acme.dev', 'Password')`;
    const downCookie = (await makeSession(down, sub)).cookie;
    const person = await upstreamPerson(upstream, 'barbara@corp.dev');

    const { page, problems, screenshot } = await newPage();
    const value = (cookie: string) => cookie.split('=')[1] as string;
    await page.context().addCookies([
      { name: 'gatehouse_session', value: value(downCookie), url: down.url },
      { name: 'gatehouse_session', value: value(person.cookie), url: upstream.issuer },
    ]);
    await page.goto(`${down.url}/settings`);
    const section = page.locator('section', { has: page.getByRole('heading', { name: 'Ways to sign in' }) });
    const add = section.getByRole('link', { name: 'Add sign-in with Corp SSO' });
    await add.waitFor();
    await add.click();
    await page.waitForURL(`${down.url}/settings`);
    const linked = section.locator('ul.connections li', { hasText: 'Corp SSO' });
    await linked.waitFor();
    assert.match((await linked.textContent()) ?? '', /Corp SSO \(barbara@corp\.dev\)/);
    assert.equal(await section.getByRole('link', { name: 'Add sign-in with Corp SSO' }).count(), 0);
    await screenshot('account-connections-linked');
    const [row] = await down.sql`select identity_id from sign_in_methods where provider = 'corp'`;
    assert.equal(row?.identity_id, sub);

    await linked.getByRole('button', { name: 'Remove' }).click();
    await section.getByRole('link', { name: 'Add sign-in with Corp SSO' }).waitFor();
    assert.equal(await section.locator('ul.connections li', { hasText: 'Corp SSO' }).count(), 0);
    assert.equal((await down.sql`select 1 from sign_in_methods where provider = 'corp'`).length, 0);
    assert.deepEqual(problems, []);
  });
});
