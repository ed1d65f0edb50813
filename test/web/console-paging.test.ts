// The console's application, client and resource lists are paged by the API (25 a page), in Chromium: each table
// shows the newest page and "Show more" appends the next, a row edited after "Show more" stays on screen, and the
// new-client form's application select offers every application, however many pages they take. The audit log shows
// one page of 25 at a time (Newer/Older), and new filters start again from page 1.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newPage } from '../helpers/browser.ts';
import { signInThrough } from '../helpers/browser-sign-in.ts';
import { startConsoleApp } from '../helpers/console-app.ts';

const { t, owner, call } = await startConsoleApp();

const pad = (n: number) => String(n).padStart(3, '0');
// 105 applications: more than one request of 100, so the select must follow next_cursor. One second apart, so the
// newest-first order is the creation order reversed.
let first = '';
for (let n = 1; n <= 105; n++) {
  const created = await call('POST', '/admin/applications', {
    identifier: `app-${pad(n)}`,
    name: `App ${pad(n)}`,
    environment: 'production',
  });
  assert.equal(created.status, 201);
  if (n === 1) first = String(created.json.id);
  t.clock.advance(1);
}
for (let n = 1; n <= 30; n++) {
  const resource = await call('POST', '/admin/resources', {
    audience: `https://api.acme-robotics.dev/r${pad(n)}`,
    name: `API ${pad(n)}`,
    scopes: ['read'],
  });
  const client = await call('POST', '/admin/clients', {
    application_id: first,
    name: `Client ${pad(n)}`,
    kind: 'browser',
    redirect_uris: [`https://app.acme-robotics.dev/${pad(n)}/callback`],
    scopes: ['openid'],
  });
  assert.deepEqual([resource.status, client.status], [201, 201]);
  t.clock.advance(1);
}

describe('console: paged lists of applications, clients and resources (Chromium)', () => {
  test('each list shows 25 and more on request, an edited row stays, and the client form offers every application', async () => {
    const { page, problems, screenshot } = await newPage({ width: 1280, height: 900 });
    await signInThrough(t, page, '/admin/console/applications', owner);
    await page.getByRole('heading', { name: 'Applications' }).waitFor();
    problems.splice(0); // the signed-out visit answered 401; from here on nothing may fail

    const caption = page.locator('table caption');
    await caption.getByText('25 applications; more are available').waitFor();
    await page.getByRole('cell', { name: 'app-105', exact: true }).waitFor();
    assert.equal(await page.getByRole('cell', { name: 'app-080', exact: true }).count(), 0, 'the 26th is not shown');
    await page.getByRole('button', { name: 'Show more applications' }).click();
    await caption.getByText('50 applications; more are available').waitFor();
    await page.getByRole('cell', { name: 'app-056', exact: true }).waitFor();

    await page.getByRole('navigation').getByRole('link', { name: 'Clients' }).click();
    await page.getByRole('heading', { name: 'OAuth clients' }).waitFor();
    await caption.getByText('25 clients; more are available').waitFor();
    const select = page.getByLabel('Application');
    await select.locator('option').nth(104).waitFor({ state: 'attached' });
    assert.equal(await select.locator('option').count(), 105, 'every application, from both requests');
    assert.equal(await select.locator('option', { hasText: '(app-001)' }).count(), 1);
    await page.getByRole('button', { name: 'Show more clients' }).click();
    await caption.getByText('30 clients', { exact: true }).waitFor();
    await page.getByRole('cell', { name: 'Client 001', exact: true }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Show more clients' }).count(), 0, 'nothing more to show');

    await page.getByRole('navigation').getByRole('link', { name: 'Resources' }).click();
    await page.getByRole('heading', { name: 'Protected API resources' }).waitFor();
    await caption.getByText('25 resources; more are available').waitFor();
    await page.getByRole('button', { name: 'Show more resources' }).click();
    await caption.getByText('30 resources', { exact: true }).waitFor();
    // The oldest resource came with "Show more"; after saving it the list reloads, and it is still there.
    await page.getByRole('button', { name: 'Edit API 001' }).click();
    await page
      .getByRole('form', { name: 'Edit resource https://api.acme-robotics.dev/r001' })
      .getByLabel('Scopes')
      .fill('read write');
    await page.getByRole('button', { name: 'Save resource' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved resource https://api.acme-robotics.dev/r001.' }).waitFor();
    await page
      .getByRole('row')
      .filter({ hasText: 'r001' })
      .getByRole('cell', { name: 'read write', exact: true })
      .waitFor();
    await caption.getByText('30 resources', { exact: true }).waitFor();
    await screenshot('console-paged-resources');
    assert.deepEqual(problems, []);
  });

  test('the audit log shows 25 records a page, older pages on request; new filters start again from page 1', async () => {
    const { page, problems } = await newPage({ width: 1280, height: 900 });
    await signInThrough(t, page, '/admin/console/audit', owner);
    problems.splice(0);
    const caption = page.locator('table caption');
    await caption.getByText('Page 1, 25 records, newest first').waitFor();
    await page.getByRole('button', { name: 'Older records' }).click();
    await caption.getByText('Page 2, 25 records, newest first').waitFor();

    await page.locator('details.audit-filters summary').click();
    await page.getByLabel('Event').fill('resource.created');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await caption.getByText('Page 1, 25 records, newest first').waitFor();
    await page.getByRole('button', { name: 'Older records' }).click();
    await caption.getByText('Page 2, 5 records, newest first').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Older records' }).isDisabled(), true, 'nothing older');
    await page.getByRole('button', { name: 'Clear' }).click();
    await caption.getByText('Page 1, 25 records, newest first').waitFor();
    assert.deepEqual(problems, []);
  });

  test('a "Show more" answer that arrives after the list reloaded is dropped, not appended twice', async () => {
    const { page, problems } = await newPage({ width: 1280, height: 900 });
    await signInThrough(t, page, '/admin/console/applications', owner);
    const caption = page.locator('table caption');
    await caption.getByText('25 applications; more are available').waitFor();
    problems.splice(0);

    // Hold the next page's answer while an edit reloads the list from the start.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      void page.route(/\/admin\/applications\?cursor=/, async (route) => {
        resolve();
        await new Promise<void>((go) => {
          release = go;
        });
        await route.continue();
      });
    });
    await page.getByRole('button', { name: 'Show more applications' }).click();
    await held;
    await page.getByRole('button', { name: 'Edit app-105' }).click();
    await page.getByRole('form', { name: 'Edit application app-105' }).getByLabel('Name').fill('App 105 renamed');
    await page.getByRole('button', { name: 'Save application' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved application app-105.' }).waitFor();
    await page.getByRole('cell', { name: 'App 105 renamed', exact: true }).waitFor();

    const answered = page.waitForResponse(/\/admin\/applications\?cursor=/);
    release();
    await answered;
    await page.getByRole('button', { name: 'Show more applications' }).waitFor();
    await caption.getByText('25 applications; more are available').waitFor();
    assert.equal(await page.getByRole('row').count(), 26, 'a header and the 25 rows of the reload, nothing appended');
    assert.deepEqual(problems, []);
  });
});
