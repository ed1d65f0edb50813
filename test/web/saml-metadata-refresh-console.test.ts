// The console's "Single sign-on" page with a metadata URL (Chromium against the real app and PostgreSQL): the owner
// adds a connection from the identity provider's metadata URL with its attribute names, and after the identity
// provider rolls its signing key over, "Refresh metadata now" shows the new certificate; a refresh that cannot fetch
// shows why and keeps the last good copy.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { newPage } from '../helpers/browser.ts';
import { signInThrough } from '../helpers/browser-sign-in.ts';
import { makeConfig } from '../helpers/config.ts';
import { startConsoleApp } from '../helpers/console-app.ts';
import { makeKeyPair, startTestIdp } from '../helpers/saml-idp.ts';

const idp = await startTestIdp({
  spCert: makeKeyPair('unused-sp').cert,
  person: () => ({ nameId: 'x', attributes: {} }),
});
after(() => idp.stop());
const { t, owner } = await startConsoleApp(makeConfig());
const certificateBody = (cert: string) => cert.replace(/-----[A-Z ]+-----|\s/g, '');

describe('console "Single sign-on": metadata URL and refresh now (Chromium)', () => {
  test('the owner adds a connection by metadata URL, then refreshes it after a key rollover', async () => {
    const { page, problems } = await newPage({ width: 1280, height: 900 });
    await signInThrough(t, page, '/admin/console/single-sign-on', owner);
    const form = page.locator('section', { has: page.getByRole('heading', { name: 'Add a connection' }) });
    await form.getByLabel('Connection id').fill('partner');
    await form.getByLabel('Name shown to people').fill('Partner SSO');
    await form.getByLabel('Email domains').fill('partner.example');
    await form.getByLabel('Identity provider metadata URL').fill(`${idp.url}/metadata`);
    await form.getByLabel('Email attribute').fill('urn:oid:0.9.2342.19200300.100.1.3');
    await form.getByRole('button', { name: 'Add connection' }).click();
    await page.getByRole('status').getByText('Added Partner SSO.').waitFor();
    const panel = page.locator('section', { has: page.getByRole('heading', { name: 'Partner SSO partner' }) });
    await panel.getByText(`(metadata from ${idp.url}/metadata)`).waitFor();
    await panel.getByText('email from urn:oid:0.9.2342.19200300.100.1.3, name from displayName').waitFor();
    const [row] = await t.sql`select settings from saml_connections where id = 'partner'`;
    assert.equal(row?.settings.email_attribute, 'urn:oid:0.9.2342.19200300.100.1.3');
    assert.equal(row?.settings.idp_metadata_url, `${idp.url}/metadata`);

    const next = makeKeyPair('console-rolled-idp');
    idp.metadataAnswer.body = idp.metadataXml.replace(certificateBody(idp.keys.cert), certificateBody(next.cert));
    await panel.getByRole('button', { name: 'Refresh metadata of Partner SSO now' }).click();
    await page.getByRole('status').getByText('Fetched the metadata of Partner SSO again.').waitFor();
    await panel.getByText(/Identity provider \(signing\): CN=console-rolled-idp/).waitFor();
    const [stored] = await t.sql`select idp_certificates from saml_connections where id = 'partner'`;
    assert.deepEqual(stored?.idp_certificates, [`${next.cert.trim()}\n`]);

    idp.metadataAnswer.status = 500;
    await panel.getByRole('button', { name: 'Refresh metadata of Partner SSO now' }).click();
    await panel
      .getByText(
        "The identity provider's metadata could not be fetched or read (answered HTTP 500); the connection keeps its last good copy.",
      )
      .waitFor();
    await panel.getByText(/Identity provider \(signing\): CN=console-rolled-idp/).waitFor();
    // Chromium logs the refused refresh's 502; nothing else may show up.
    assert.deepEqual(problems, ['Failed to load resource: the server responded with a status of 502 (Bad Gateway)']);
  });
});
