// The account page's "Where you are signed in", in Chromium: a person signed in on a second device signs that
// session out from here; the list shows it gone at once and the other device's cookie no longer works.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeAccount, sessionCookieFor } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { startBrowserApp } from '../helpers/browser-app.ts';
import { signInThrough } from '../helpers/browser-sign-in.ts';
import { makeConfig } from '../helpers/config.ts';

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

describe('GET /settings: sessions (Chromium)', () => {
  test('signs out another session: the list drops it without an error and its cookie stops working', async () => {
    const person = await makeAccount(t.sql, t.secrets, t.config, { email: 'mary.jackson@acme-robotics.dev' });
    const elsewhere = await sessionCookieFor(t.sql, person.sub, { aal: 'aal2', now: t.clock.now() });
    const { page, problems } = await newPage();
    await signInThrough(t, page, '/settings', person);
    const sessions = page.locator('.sessions li');
    await page.getByRole('button', { name: 'Sign out everywhere else' }).waitFor();
    assert.equal(await sessions.count(), 2);

    await page.getByRole('button', { name: 'Sign out this session' }).click();
    await page.getByText('This is the only place you are signed in.').waitFor();
    assert.equal(await sessions.count(), 1);
    assert.equal(await page.getByRole('alert').count(), 0, 'no error is shown for the 204 answer');
    const other = await fetch(`${t.url}/account/sessions`, {
      headers: { cookie: elsewhere, accept: 'application/json' },
    });
    assert.equal(other.status, 401);
    assert.deepEqual(problems, []);
  });
});
