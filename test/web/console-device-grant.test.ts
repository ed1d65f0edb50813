// The device authorization grant setting of a client (RFC 8628, device_authorization_grant) in the console, in
// Chromium: not offered for service clients; a native client allowed it is created without any redirect URI; the
// edit form shows it and takes it back (then a redirect URI is needed again, said under its field).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newPage } from '../helpers/browser.ts';
import { signInThrough } from '../helpers/browser-sign-in.ts';
import { startConsoleApp } from '../helpers/console-app.ts';

const { t, owner, call } = await startConsoleApp();
const LABEL = 'Allow the device authorization grant (sign-in on a TV or command line, approved on /device)';

const stored = async (name: string) =>
  (
    await t.sql<{ device_authorization_grant: boolean; redirect_uris: string[] }[]>`
      select device_authorization_grant, redirect_uris from oauth_clients where name = ${name}`
  )[0];

describe('console: whether a client may use the device authorization grant (Chromium)', () => {
  test('the owner creates a TV app allowed the grant without a redirect URI, then takes the grant back', async () => {
    const application = await call('POST', '/admin/applications', {
      identifier: 'tv',
      name: 'TV',
      environment: 'production',
    });
    assert.equal(application.status, 201);
    const { page, problems } = await newPage({ width: 1280, height: 900 });
    await signInThrough(t, page, '/admin/console/clients', owner);
    await page.getByRole('heading', { name: 'OAuth clients' }).waitFor();
    problems.splice(0); // the signed-out visit answered 401; from here on nothing may fail

    const create = page.getByRole('form', { name: 'New client' });
    await create.getByLabel('Kind').selectOption('service');
    assert.equal(await create.getByLabel(LABEL).count(), 0, 'a service client signs no person in');
    await create.getByLabel('Kind').selectOption('native');
    await create.getByLabel('Name').fill('Acme TV');
    await create.getByLabel('Scopes').fill('openid offline_access');
    await create.getByLabel(LABEL).check();
    await create.getByRole('button', { name: 'Create client' }).click();
    await page.getByRole('button', { name: 'Edit Acme TV' }).waitFor();
    assert.deepEqual(await stored('Acme TV'), { device_authorization_grant: true, redirect_uris: [] });

    await page.getByRole('button', { name: 'Edit Acme TV' }).click();
    const edit = page.getByRole('form', { name: 'Edit client Acme TV' });
    const box = edit.getByLabel(LABEL);
    assert.equal(await box.isChecked(), true);
    await box.uncheck();
    await edit.getByRole('button', { name: 'Save client' }).click();
    await edit.locator('#edit-client-redirects-error').waitFor();
    assert.equal(
      await edit.locator('#edit-client-redirects-error').textContent(),
      'A native client needs at least one redirect URI.',
    );
    assert.equal((await stored('Acme TV'))?.device_authorization_grant, true, 'the refused save changed nothing');
    await edit.getByLabel('Redirect URIs', { exact: true }).fill('http://127.0.0.1/callback');
    await edit.getByRole('button', { name: 'Save client' }).click();
    await edit.waitFor({ state: 'detached' });
    assert.deepEqual(await stored('Acme TV'), {
      device_authorization_grant: false,
      redirect_uris: ['http://127.0.0.1/callback'],
    });
    assert.deepEqual(problems, []);
  });
});
