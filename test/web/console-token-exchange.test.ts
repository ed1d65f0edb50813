// The token exchange setting of a client (RFC 8693, token_exchange_audiences) in the console, in Chromium: offered
// for confidential clients only, an unregistered audience named under its field, a valid one stored and shown again
// when the client is edited, and cleared back to none (the default) once no scope depends on it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newPage } from '../helpers/browser.ts';
import { signInThrough } from '../helpers/browser-sign-in.ts';
import { startConsoleApp } from '../helpers/console-app.ts';
import { assertFocused } from '../helpers/focus.ts';

const { t, owner, call } = await startConsoleApp();
const ORDERS = 'https://api.acme-robotics.dev/orders';
const BILLING = 'https://api.acme-robotics.dev/billing';

const storedAudiences = async (name: string) =>
  (
    await t.sql<{ token_exchange_audiences: string[] }[]>`
    select token_exchange_audiences from oauth_clients where name = ${name}`
  )[0]?.token_exchange_audiences;

describe('console: which audiences a client may exchange tokens for (Chromium)', () => {
  test('the owner allows a service client to exchange for billing, is told an unknown audience, then takes it back', async () => {
    const application = await call('POST', '/admin/applications', {
      identifier: 'orders',
      name: 'Orders',
      environment: 'production',
    });
    for (const [audience, scope] of [
      [ORDERS, 'orders:read'],
      [BILLING, 'billing:read'],
    ])
      assert.equal((await call('POST', '/admin/resources', { audience, name: audience, scopes: [scope] })).status, 201);
    assert.equal(application.status, 201);
    const { page, problems } = await newPage({ width: 1280, height: 900 });
    await signInThrough(t, page, '/admin/console/clients', owner);
    await page.getByRole('heading', { name: 'OAuth clients' }).waitFor();
    problems.splice(0); // the signed-out visit answered 401; from here on nothing may fail

    const create = page.getByRole('form', { name: 'New client' });
    await create.getByLabel('Name').fill('Orders API');
    await create.getByLabel('Kind').selectOption('browser');
    assert.equal(await create.getByLabel('Token exchange audiences').count(), 0, 'a public client may not exchange');
    await create.getByLabel('Kind').selectOption('service');
    await create.getByLabel('Allowed audiences').fill(ORDERS);
    await create.getByLabel('Scopes').fill('orders:read billing:read');
    const exchange = create.getByLabel('Token exchange audiences');
    await exchange.fill(`${BILLING} https://api.acme-robotics.dev/unknown`);
    await create.getByRole('button', { name: 'Create client' }).click();
    await assertFocused(page, exchange, 'the refused field');
    assert.equal(
      await create.locator('#client-exchange-audiences-error').textContent(),
      'https://api.acme-robotics.dev/unknown: is not a registered resource audience.',
    );
    assert.equal(await storedAudiences('Orders API'), undefined, 'nothing was created');

    await exchange.fill(BILLING);
    await create.getByRole('button', { name: 'Create client' }).click();
    await page.getByTestId('client-secret').waitFor();
    assert.deepEqual(await storedAudiences('Orders API'), [BILLING]);

    await page.reload();
    await page.getByRole('button', { name: 'Edit Orders API' }).click();
    const edit = page.getByRole('form', { name: 'Edit client Orders API' });
    const editing = edit.getByLabel('Token exchange audiences');
    assert.equal(await editing.inputValue(), BILLING);
    // Without the exchange audience, billing:read is no scope this client can use any more: refused under Scopes.
    await editing.fill('');
    await edit.getByRole('button', { name: 'Save client' }).click();
    const scopes = edit.getByLabel('Scopes');
    await assertFocused(page, scopes, 'the refused scopes');
    assert.equal(
      await edit.locator('#edit-client-scopes-error').textContent(),
      'billing:read: is not a scope of the provisioned audiences.',
    );
    assert.deepEqual(await storedAudiences('Orders API'), [BILLING], 'the refused save changed nothing');
    await scopes.fill('orders:read');
    await edit.getByRole('button', { name: 'Save client' }).click();
    await edit.waitFor({ state: 'detached' });
    assert.deepEqual(await storedAudiences('Orders API'), []);
    const [record] = await t.sql<{ details: Record<string, unknown> }[]>`
      select details from audit_events where event = 'client.updated' order by id desc limit 1`;
    assert.deepEqual(record?.details, { fields: 'scopes,token_exchange_audiences' });
    assert.deepEqual(problems, []);
  });
});
