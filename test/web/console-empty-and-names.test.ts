// The console for a new organization: every empty list says what to do next instead of showing an empty table, the
// overview's checklist reflects the real state, and the audit log shows people and records by name (id on hover).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newPage } from '../helpers/browser.ts';
import { startConsoleApp } from '../helpers/console-app.ts';

const { t, owner, call } = await startConsoleApp();

async function ownerPage() {
  const { page, problems } = await newPage({ width: 1280, height: 900 });
  const { sessionCookieFor } = await import('../helpers/accounts.ts');
  const cookie = await sessionCookieFor(t.sql, owner.sub, { aal: 'aal2', now: t.clock.now() });
  const [name, value] = cookie.split('=') as [string, string];
  await page.context().addCookies([{ name, value, url: t.url }]);
  return { page, problems };
}

describe('console lists of a new organization', () => {
  for (const [path, text] of [
    ['applications', 'No applications yet. Register your product below'],
    ['clients', 'No clients yet. Create one below'],
    ['resources', 'No protected APIs yet. Register an API below'],
  ] as const)
    test(`/admin/console/${path} shows what to do instead of an empty table`, async () => {
      const { page, problems } = await ownerPage();
      await page.goto(`${t.url}/admin/console/${path}`);
      await page.getByTestId('empty-state').waitFor();
      assert.match(
        (await page.getByTestId('empty-state').textContent()) ?? '',
        new RegExp(`^${text.replace(/[.?]/g, '\\$&')}`),
      );
      assert.equal(await page.locator('main table').count(), 0);
      assert.deepEqual(problems, []);
    });

  test('/admin/console/audit with filters that match nothing says so and how to see everything', async () => {
    const { page, problems } = await ownerPage();
    await page.goto(`${t.url}/admin/console/audit`);
    await page.locator('details.audit-filters summary').click();
    await page.getByLabel('Event').fill('nothing.happened');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No record matches these filters. Clear them to see the whole log.').waitFor();
    assert.equal(await page.locator('table.audit').count(), 0);
    assert.deepEqual(problems, []);
  });

  test('the overview checklist marks what is done from the real state, and a first application ticks its item', async () => {
    const { page } = await ownerPage();
    await page.goto(`${t.url}/admin/console`);
    await page.getByText('To do: Register your first application').waitFor();
    assert.equal(await page.getByText('To do: Configure verification delivery').count(), 1);
    assert.equal(await page.getByText('No clients yet.').count(), 1);
    await call('POST', '/admin/applications', { identifier: 'shop', name: 'Shop', environment: 'production' });
    await page.reload();
    await page.getByText('Done: Register your first application').waitFor();
    assert.equal(await page.getByText('To do: Add a client for it').count(), 1);
  });
});

describe('the audit log', () => {
  test('shows the actor and the subject by name, with the id in the title', async () => {
    const app = await call('POST', '/admin/applications', {
      identifier: 'ledger',
      name: 'Ledger',
      environment: 'staging',
    });
    const { page } = await ownerPage();
    await page.goto(`${t.url}/admin/console/audit`);
    const row = page.locator('tr', { hasText: 'application.created' }).filter({ hasText: 'Ledger' });
    await row.waitFor();
    const subject = row.locator(`[data-id="${app.json.id}"]`);
    assert.equal(await subject.textContent(), 'Ledger');
    assert.equal(await subject.getAttribute('title'), app.json.id);
    const actor = row.locator(`[data-id="${owner.sub}"]`);
    assert.equal(await actor.getAttribute('title'), owner.sub);
    assert.notEqual(await actor.textContent(), owner.sub);
  });
});

describe('the overview for an organization with a web client', () => {
  test("shows the provider's URLs and the client's values, each with a copy button that copies it, and a filled-in openid-client configuration", async () => {
    const app = await call('POST', '/admin/applications', {
      identifier: 'storefront',
      name: 'Storefront',
      environment: 'production',
    });
    const client = await call('POST', '/admin/clients', {
      application_id: app.json.id,
      name: 'Storefront Web',
      kind: 'web',
      redirect_uris: ['https://store.acme-robotics.dev/auth/callback'],
      scopes: ['openid', 'profile', 'email'],
      first_party: true,
    });
    assert.equal(client.status, 201);
    const clientId = client.json.client_id as string;
    const { page, problems } = await ownerPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    await page.goto(`${t.url}/admin/console`);

    const provider = page.getByRole('region', { name: 'Your identity provider' });
    await provider.getByText(t.url, { exact: true }).waitFor();
    const values = async (region: typeof provider) =>
      Object.fromEntries(
        await region
          .locator('dl.copy-values > div')
          .evaluateAll((rows) =>
            rows.map((r) => [r.querySelector('dt')?.textContent, r.querySelector('code')?.textContent]),
          ),
      );
    assert.deepEqual(await values(provider), {
      Issuer: t.url,
      Discovery: `${t.url}/.well-known/openid-configuration`,
      JWKS: `${t.url}/.well-known/jwks.json`,
    });

    const section = page.getByRole('region', { name: 'Storefront Web (web)' });
    assert.deepEqual(await values(section), {
      Issuer: t.url,
      'Client ID': clientId,
      'Redirect URIs': 'https://store.acme-robotics.dev/auth/callback',
      Scopes: 'openid profile email',
    });

    // Each value's button is named for it, and copies exactly the value shown.
    for (const [name, expected] of [
      ['Copy Discovery', `${t.url}/.well-known/openid-configuration`],
      ['Copy JWKS', `${t.url}/.well-known/jwks.json`],
    ] as const) {
      await provider.getByRole('button', { name }).click();
      await provider.getByRole('button', { name }).getByText('Copied').waitFor();
      assert.equal(await page.evaluate('navigator.clipboard.readText()'), expected);
    }
    await section.getByRole('button', { name: 'Copy Client ID' }).click();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), clientId);
    for (const name of ['Copy Issuer', 'Copy Redirect URIs', 'Copy Scopes'])
      assert.equal(await section.getByRole('button', { name }).count(), 1, name);

    // The openid-client configuration, opened and copied, carries this client's values.
    await section.getByText('openid-client', { exact: true }).click();
    const snippet = (await section.locator('details.snippet[open] pre').textContent()) ?? '';
    for (const part of [
      `new URL('${t.url}')`,
      `'${clientId}'`,
      "token_endpoint_auth_method: 'client_secret_post'",
      "redirect_uri: 'https://store.acme-robotics.dev/auth/callback'",
      "scope: 'openid profile email'",
    ])
      assert.ok(snippet.includes(part), `the snippet has ${part}`);
    await section.getByRole('button', { name: 'Copy openid-client configuration for Storefront Web' }).click();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), snippet);
    assert.deepEqual(await section.locator('details.snippet summary').allTextContents(), [
      'openid-client',
      'oauth4webapi',
      'Auth.js',
      'express-openid-connect',
    ]);
    assert.deepEqual(problems, []);
  });
});
