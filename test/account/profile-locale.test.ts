// PATCH /account/profile {locale}: the language a person chose, which then outranks their browser's Accept-Language on
// pages and in the messages sent to them; anything but a shipped language (or null, "follow the browser") is a 400
// that changes nothing.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { JSON_HEADERS, makeAccount } from '../helpers/accounts.ts';
import { startTestApp } from '../helpers/app.ts';
import { deliveryWorker, Inbox, startMailbox } from '../helpers/mailbox.ts';
import { makeSession } from '../helpers/oauth-fixtures.ts';

const { smtp, config } = await startMailbox();
after(() => smtp.stop());
const t = await startTestApp({ config });
const inbox = new Inbox(smtp, deliveryWorker(t.sql, t.config, t.secrets.delivery, t.clock.now, t.logs));

const patch = (cookie: string, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'PATCH', url: '/account/profile', headers: { ...JSON_HEADERS, cookie }, payload });
const localeOf = async (cookie: string) =>
  ((await t.app.inject({ method: 'GET', url: '/account/profile', headers: { cookie } })).json() as { locale: unknown })
    .locale;

describe('PATCH /account/profile with locale', () => {
  test('saves a shipped language, which then outranks Accept-Language on pages; null follows the browser again', async () => {
    const account = await makeAccount(t.sql, t.secrets, t.config);
    const { cookie } = await makeSession(t, account.sub);
    assert.equal(await localeOf(cookie), null);

    const saved = await patch(cookie, { locale: 'ja' });
    assert.equal(saved.statusCode, 200);
    assert.equal((saved.json() as { locale: string }).locale, 'ja');
    const page = await t.app.inject({ method: 'GET', url: '/settings', headers: { cookie, 'accept-language': 'de' } });
    assert.equal(page.headers['content-language'], 'ja');
    const [audited] = await t.sql<{ event: string }[]>`
      select event from audit_events where subject = ${account.sub} and event = 'profile.updated'`;
    assert.equal(audited?.event, 'profile.updated');

    assert.equal((await patch(cookie, { locale: null })).statusCode, 200);
    assert.equal(await localeOf(cookie), null);
    const followed = await t.app.inject({
      method: 'GET',
      url: '/settings',
      headers: { cookie, 'accept-language': 'de' },
    });
    assert.equal(followed.headers['content-language'], 'de');
  });

  test('refuses a language that is not shipped with 400 invalid_request and keeps the saved one', async () => {
    const account = await makeAccount(t.sql, t.secrets, t.config);
    const { cookie } = await makeSession(t, account.sub);
    assert.equal((await patch(cookie, { locale: 'fr' })).statusCode, 200);
    for (const locale of ['pt', 'FR', 'fr-FR', '', 7]) {
      const refused = await patch(cookie, { locale });
      assert.equal(refused.statusCode, 400, `${locale}`);
      const body = refused.json() as { error: string; request_id: string };
      assert.equal(body.error, 'invalid_request');
      assert.ok(body.request_id);
    }
    assert.equal(await localeOf(cookie), 'fr');
  });

  test("mails to the person use their saved language, whatever the requesting browser's", async () => {
    const account = await makeAccount(t.sql, t.secrets, t.config);
    const { cookie } = await makeSession(t, account.sub);
    assert.equal((await patch(cookie, { locale: 'es' })).statusCode, 200);
    const forgot = await t.app.inject({
      method: 'POST',
      url: '/account/password/forgot',
      headers: { ...JSON_HEADERS, 'accept-language': 'ja' },
      payload: { email: account.email },
    });
    assert.equal(forgot.statusCode, 202);
    const [mail] = await inbox.deliver(1);
    assert.equal(mail?.subject, 'Restablece tu contraseña de Acme Robotics');
    assert.ok(mail?.text.includes('Caduca en 30 minutos.'), mail?.text);
  });
});
