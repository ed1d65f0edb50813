// The console's "Single sign-on" page adds a SAML connection from the identity provider's metadata and deletes it
// (Chromium against the real app and PostgreSQL): a refused addition shows the problem at its field and stores
// nothing; a connection from the configuration file offers no Delete.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { newPage } from '../helpers/browser.ts';
import { signInThrough } from '../helpers/browser-sign-in.ts';
import { makeConfig } from '../helpers/config.ts';
import { startConsoleApp } from '../helpers/console-app.ts';
import { providerSecretsDir } from '../helpers/provider-secrets.ts';
import { makeKeyPair, startTestIdp } from '../helpers/saml-idp.ts';
import { samlConnection } from '../helpers/saml-sp.ts';

const sp = makeKeyPair('gatehouse-sp');
const idp = await startTestIdp({ spCert: sp.cert, person: () => ({ nameId: 'x', attributes: {} }) });
after(() => idp.stop());
const config = makeConfig({
  secrets: { dir: providerSecretsDir({ 'saml-corp.key': sp.key, 'saml-corp.crt': sp.cert }) },
});
config.saml = { corp: samlConnection(idp, { name: 'Corp single sign-on', email_domains: ['corp.example'] }) };
const { t, owner } = await startConsoleApp(config);

describe('console "Single sign-on": add and delete a SAML connection (Chromium)', () => {
  test('the owner adds one from metadata, sees what to give the identity provider, and deletes it', async () => {
    const { page, problems } = await newPage({ width: 1280, height: 900 });
    await signInThrough(t, page, '/admin/console/single-sign-on', owner);
    await page.getByRole('heading', { name: 'Corp single sign-on corp' }).waitFor();
    // The configuration file's connection is read-only here.
    assert.equal(await page.getByRole('button', { name: 'Delete Corp single sign-on' }).count(), 0);
    await page.getByText('From the configuration file').waitFor();

    const form = page.locator('section', { has: page.getByRole('heading', { name: 'Add a connection' }) });
    await form.getByLabel('Connection id').fill('partner');
    await form.getByLabel('Name shown to people').fill('Partner SSO');
    await form.getByLabel('Identity provider metadata (XML)').fill(idp.metadataXml);
    // A domain the configured connection owns is refused at its field, and nothing is stored.
    await form.getByLabel('Email domains').fill('corp.example');
    await form.getByRole('button', { name: 'Add connection' }).click();
    await form.getByText('corp.example: corp.example already belongs to saml.corp.').waitFor();
    assert.equal((await t.sql`select id from saml_connections`).length, 0);

    await form.getByLabel('Email domains').fill('partner.example');
    await form.getByRole('button', { name: 'Add connection' }).click();
    await page.getByRole('status').getByText('Added Partner SSO.').waitFor();
    await page.getByRole('heading', { name: 'Partner SSO partner' }).waitFor();
    const metadata = `${t.url}/auth/saml/partner/metadata`;
    assert.equal(await page.getByRole('link', { name: metadata }).getAttribute('href'), metadata);
    await page.getByText(`${t.url}/auth/saml/partner/acs`).waitFor();
    assert.deepEqual(
      (await t.sql`select id, idp_sso_url from saml_connections`).map((r) => [r.id, r.idp_sso_url]),
      [['partner', idp.ssoUrl]],
    );

    await page.getByRole('button', { name: 'Delete Partner SSO' }).click();
    await page.getByRole('button', { name: 'Delete Partner SSO for good' }).click();
    await page.getByRole('status').getByText('Deleted Partner SSO.').waitFor();
    await page.getByRole('heading', { name: 'Partner SSO partner' }).waitFor({ state: 'detached' });
    assert.equal((await t.sql`select id from saml_connections`).length, 0);
    assert.deepEqual(problems, []);
  });
});
