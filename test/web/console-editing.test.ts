// The owner changes and removes what was registered, in Chromium, at desktop and phone widths: a client's redirect
// URIs (a bad one is named under its field; a good set saves and survives a reload), a resource's scopes, a client
// deleted after confirming, and an application that still has clients refused with 409 application_in_use; then
// the other refusals (a service client's unknown audience, an environment its clients' URIs do not fit, a resource
// still in use). After each change focus is on its outcome, so a keyboard or screen-reader user learns it there.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newPage } from '../helpers/browser.ts';
import { signInThrough } from '../helpers/browser-sign-in.ts';
import { startConsoleApp } from '../helpers/console-app.ts';
import { openConsoleSection } from '../helpers/console-nav.ts';
import { assertFocused } from '../helpers/focus.ts';

const { t, owner, call } = await startConsoleApp();
// Records are registered through the API (`call`); the browser only edits and deletes them.

async function register(tag: string) {
  const application = await call('POST', '/admin/applications', {
    identifier: `billing-${tag}`,
    name: `Billing ${tag}`,
    environment: 'production',
  });
  const resource = await call('POST', '/admin/resources', {
    audience: `https://api.acme-robotics.dev/billing-${tag}`,
    name: `Billing API ${tag}`,
    scopes: ['billing:read'],
  });
  const client = { application_id: application.json.id, scopes: ['openid', 'profile'] };
  const web = await call('POST', '/admin/clients', {
    ...client,
    name: `Billing web ${tag}`,
    kind: 'web',
    redirect_uris: [`https://billing.acme-robotics.dev/${tag}/callback`],
  });
  // A second client keeps the application in use after the first is deleted.
  await call('POST', '/admin/clients', {
    ...client,
    name: `Billing app ${tag}`,
    kind: 'browser',
    redirect_uris: [`https://app.acme-robotics.dev/${tag}/callback`],
  });
  assert.deepEqual([application.status, resource.status, web.status], [201, 201, 201]);
  return {
    applicationId: String(application.json.id),
    resourceId: String(resource.json.id),
    clientId: String(web.json.client_id),
  };
}

const VIEWPORTS = [
  { tag: 'desktop', viewport: { width: 1280, height: 900 } },
  { tag: 'phone', viewport: { width: 390, height: 844 } },
];

describe('console: editing and deleting applications, clients and resources (Chromium)', () => {
  for (const { tag, viewport } of VIEWPORTS)
    test(`at ${viewport.width}x${viewport.height} the owner fixes a client's redirect URIs, is refused an empty scope list, edits a resource's scopes, deletes a client after confirming, and is refused deleting an application that still has clients with application_in_use`, async () => {
      const ids = await register(tag);
      const { page, problems, screenshot } = await newPage(viewport);
      await signInThrough(t, page, '/admin/console/clients', owner);
      await page.getByRole('heading', { name: 'OAuth clients' }).waitFor();
      problems.splice(0); // the signed-out visit answered 401; from here on nothing may fail

      // A bad redirect URI: the API's problem shows under the field, which gets focus; nothing is stored.
      await page.getByRole('button', { name: `Edit Billing web ${tag}` }).click();
      await assertFocused(page, page.getByRole('heading', { name: `Edit client Billing web ${tag}` }), 'the edit form');
      const form = page.getByRole('form', { name: `Edit client Billing web ${tag}` });
      const redirects = form.getByLabel('Redirect URIs', { exact: true });
      const good = `https://billing.acme-robotics.dev/${tag}/callback`;
      await redirects.fill(`${good}\nhttp://billing.acme-robotics.dev/${tag}/plain`);
      await page.getByRole('button', { name: 'Save client' }).click();
      const fieldError = page.locator('#edit-client-redirects-error');
      await fieldError.waitFor();
      assert.equal(
        await fieldError.textContent(),
        `http://billing.acme-robotics.dev/${tag}/plain: must use https (http only for loopback on native clients or localhost in development applications).`,
      );
      await assertFocused(page, redirects, 'the first refused field');
      assert.equal(await redirects.getAttribute('aria-invalid'), 'true');
      assert.match(
        (await redirects.getAttribute('aria-describedby')) ?? '',
        /\bedit-client-redirects-error\b/,
        'the error is read with the field',
      );
      const alert = page.getByRole('alert');
      // Said once, beside the field; the alert points there instead of repeating it.
      await alert.getByText('Check the field marked below.').waitFor();
      assert.equal(await page.getByText('must use https (http only').count(), 1);
      assert.match((await alert.textContent()) ?? '', /Request ID: [A-Za-z0-9_-]{16}/);
      const [unchanged] = await t.sql`select redirect_uris from oauth_clients where id = ${ids.clientId}`;
      assert.deepEqual(unchanged?.redirect_uris, [good]);

      // An empty scope list: a web client must ask for something; the problem shows under Scopes.
      const scopes = form.getByLabel('Scopes');
      await redirects.fill(good);
      await scopes.fill('');
      await page.getByRole('button', { name: 'Save client' }).click();
      const scopesError = page.locator('#edit-client-scopes-error');
      await scopesError.waitFor();
      assert.equal(await scopesError.textContent(), 'A web client needs at least one scope, such as openid.');
      await assertFocused(page, scopes, 'the refused scopes');
      const [scoped] = await t.sql`select scopes from oauth_clients where id = ${ids.clientId}`;
      assert.deepEqual(scoped?.scopes, ['openid', 'profile']);
      await scopes.fill('openid profile');

      // A good set saves; the status takes focus, and the list shows it, before and after a reload.
      const second = `https://billing.acme-robotics.dev/${tag}/return`;
      await redirects.fill(`${good}\n${second}`);
      await form.getByLabel('Post-logout redirect URIs').fill(`https://billing.acme-robotics.dev/${tag}/bye`);
      await page.getByRole('button', { name: 'Save client' }).click();
      await assertFocused(
        page,
        page.getByRole('status').filter({ hasText: `Saved client Billing web ${tag}.` }),
        'the status',
      );
      await page.getByRole('cell', { name: `${good} ${second}` }).waitFor();
      await page.reload();
      await page.getByRole('cell', { name: `${good} ${second}` }).waitFor();
      const [saved] =
        await t.sql`select redirect_uris, post_logout_redirect_uris from oauth_clients where id = ${ids.clientId}`;
      assert.deepEqual(saved?.redirect_uris, [good, second]);
      assert.deepEqual(saved?.post_logout_redirect_uris, [`https://billing.acme-robotics.dev/${tag}/bye`]);

      // Delete, after the confirmation step (which takes focus); the status then has it.
      await page.getByRole('button', { name: `Delete Billing web ${tag}` }).click();
      await assertFocused(
        page,
        page.getByRole('heading', { name: `Delete client Billing web ${tag}?` }),
        'the confirmation',
      );
      await page.getByRole('button', { name: 'Delete client' }).click();
      await assertFocused(
        page,
        page.getByRole('status').filter({ hasText: `Deleted client Billing web ${tag}.` }),
        'the status',
      );
      await page.getByRole('cell', { name: `Billing web ${tag}`, exact: true }).waitFor({ state: 'detached' });
      await page.getByRole('cell', { name: `Billing app ${tag}`, exact: true }).waitFor();
      assert.equal((await t.sql`select 1 from oauth_clients where id = ${ids.clientId}`).length, 0);

      // A resource's scopes.
      await openConsoleSection(page, 'Resources');
      await page.getByRole('button', { name: `Edit Billing API ${tag}` }).click();
      await page
        .getByRole('form', { name: `Edit resource https://api.acme-robotics.dev/billing-${tag}` })
        .getByLabel('Scopes')
        .fill('billing:read billing:write');
      await page.getByRole('button', { name: 'Save resource' }).click();
      const resourceSaved = `Saved resource https://api.acme-robotics.dev/billing-${tag}.`;
      await assertFocused(page, page.getByRole('status').filter({ hasText: resourceSaved }), 'the status');
      await page
        .getByRole('row')
        .filter({ hasText: `billing-${tag}` })
        .getByRole('cell', { name: 'billing:read billing:write', exact: true })
        .waitFor();
      const [resource] = await t.sql`select scopes from oauth_resources where id = ${ids.resourceId}`;
      assert.deepEqual(resource?.scopes, ['billing:read', 'billing:write']);

      // The application still has a client: the API refuses, and the page says so with the request id, focused.
      await openConsoleSection(page, 'Applications');
      await page.getByRole('button', { name: `Delete billing-${tag}` }).click();
      await page.getByRole('button', { name: 'Delete application' }).click();
      const refusal = page.getByRole('alert');
      await refusal.getByText('The application still has clients; delete them first.').waitFor();
      assert.match((await refusal.textContent()) ?? '', /Request ID: [A-Za-z0-9_-]{16}/);
      await assertFocused(page, refusal, 'the refusal');
      assert.equal((await t.sql`select 1 from oauth_applications where id = ${ids.applicationId}`).length, 1);
      const overflow = await page.evaluate('document.documentElement.scrollWidth - innerWidth');
      assert.equal(overflow, 0, 'the page fits the screen: no sideways scrolling');
      await screenshot(`console-editing-${tag}`);
      assert.deepEqual(problems, []);
    });

  test("the refusals show where the owner acts: a service client's unknown audience under its field, 409 application_environment_conflict, 409 resource_in_use, and a refused create", async () => {
    const application = await call('POST', '/admin/applications', {
      identifier: 'robots-dev',
      name: 'Robots',
      environment: 'development',
    });
    const applicationId = String(application.json.id);
    await call('POST', '/admin/clients', {
      application_id: applicationId,
      name: 'Robots local',
      kind: 'native',
      redirect_uris: ['http://localhost:3000/callback'],
      scopes: ['openid'],
    });
    await call('POST', '/admin/resources', {
      audience: 'https://api.acme-robotics.dev/robots',
      name: 'Robots API',
      scopes: ['robots:read'],
    });
    const service = await call('POST', '/admin/clients', {
      application_id: applicationId,
      name: 'Robots sync',
      kind: 'service',
      audiences: ['https://api.acme-robotics.dev/robots'],
      scopes: ['robots:read'],
    });
    assert.equal(service.status, 201);
    const { page, problems, screenshot } = await newPage({ width: 1280, height: 900 });
    await signInThrough(t, page, '/admin/console/clients', owner);
    problems.splice(0); // the signed-out visit answered 401; from here on nothing may fail

    await page.getByRole('button', { name: 'Edit Robots sync' }).click();
    const form = page.getByRole('form', { name: 'Edit client Robots sync' });
    const audiences = form.getByLabel('Allowed audiences');
    await audiences.fill('https://api.acme-robotics.dev/robots https://api.acme-robotics.dev/unknown');
    await form.getByRole('button', { name: 'Save client' }).click();
    await assertFocused(page, audiences, 'the refused audiences');
    assert.equal(
      await form.locator('#edit-client-audiences-error').textContent(),
      'https://api.acme-robotics.dev/unknown: is not a registered resource audience.',
    );
    await form.getByRole('button', { name: 'Cancel' }).click();
    await assertFocused(page, page.getByRole('button', { name: 'Edit Robots sync' }), 'the Edit button again');

    await openConsoleSection(page, 'Applications');
    await page.getByRole('button', { name: 'Edit robots-dev' }).click();
    const applicationForm = page.getByRole('form', { name: 'Edit application robots-dev' });
    await applicationForm.getByLabel('Environment').selectOption('production');
    await applicationForm.getByRole('button', { name: 'Save application' }).click();
    const conflict = applicationForm.getByRole('alert');
    await assertFocused(page, conflict, 'the refusal');
    await conflict.getByText('http://localhost:3000/callback, which a production application may not use').waitFor();
    assert.match((await conflict.textContent()) ?? '', /Request ID: [A-Za-z0-9_-]{16}/);
    const [stored] = await t.sql`select environment from oauth_applications where id = ${applicationId}`;
    assert.equal(stored?.environment, 'development');

    await openConsoleSection(page, 'Resources');
    await page.getByRole('button', { name: 'Delete Robots API' }).click();
    await page.getByRole('button', { name: 'Delete resource' }).click();
    const inUse = page.getByRole('alert');
    await assertFocused(page, inUse, 'the refusal');
    await inUse.getByText('A client is still provisioned for this resource; update it first.').waitFor();
    assert.match((await inUse.textContent()) ?? '', /Request ID: [A-Za-z0-9_-]{16}/);

    // Creating moves focus the same way: to the refused field, then to the status once it is created.
    const create = page.getByRole('form', { name: 'New resource' });
    await create.getByLabel('Audience').fill('api.acme-robotics.dev/robots-2');
    await create.getByLabel('Name').fill('Robots API 2');
    await create.getByLabel('Scopes').fill('robots:write');
    await create.getByRole('button', { name: 'Create resource' }).click();
    await assertFocused(page, create.getByLabel('Audience'), 'the refused audience');
    assert.equal(await create.locator('#audience-error').textContent(), 'Must be an absolute URI.');
    await create.getByLabel('Audience').fill('https://api.acme-robotics.dev/robots-2');
    await create.getByRole('button', { name: 'Create resource' }).click();
    const created = page
      .getByRole('status')
      .filter({ hasText: 'Created resource https://api.acme-robotics.dev/robots-2.' });
    await assertFocused(page, created, 'the status');
    await screenshot('console-editing-refusals');
    assert.deepEqual(problems, []);
  });
});
