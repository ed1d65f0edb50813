// Body limits of the SAML routes (body-limits.ts), through the real app and PostgreSQL: a response carrying
// thousands of groups (several hundred kilobytes, over the global 64 KiB) signs in at the ACS; one past the ACS's
// 1 MiB is refused with 413 payload_too_large on the SAML error page (HTML, never a 500) and signs nobody in; and
// POST /admin/saml-connections takes metadata as long as its schema allows.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { adminCaller, assertAdminError } from '../../../test/helpers/admin-api.ts';
import { makeAdmin } from '../../../test/helpers/oauth-fixtures.ts';
import { makeKeyPair, signElement, startTestIdp } from '../../../test/helpers/saml-idp.ts';
import { assertEnvelope, samlConnection, spMoves, startSamlApp } from '../../../test/helpers/saml-sp.ts';

const groups = (count: number) =>
  Array.from({ length: count }, (_, i) => `cn=group-${String(i).padStart(5, '0')},ou=groups,dc=corp,dc=example`);
const sp = makeKeyPair('gatehouse-sp');
const person = {
  nameId: 'u-2001',
  attributes: { email: 'big@corp.example', displayName: 'Many Groups', groups: [''] },
};
const idp = await startTestIdp({ spCert: sp.cert, person: () => person });
after(() => idp.stop());

describe('POST /auth/saml/<id>/acs body limit', async () => {
  const t = await startSamlApp(sp, { corp: samlConnection(idp) });
  const { start, idpAnswer, post, assertionFor, responseFor, methodOwner } = spMoves(t, sp, idp, person);

  it('signs in with a 300 KB+ response carrying 5,000 groups (over the global 64 KiB limit)', async () => {
    person.attributes.groups = groups(5000);
    const { cookie, location } = await start('/settings');
    const xml = await idpAnswer(location);
    assert.ok(xml.length > 300_000, `response is ${xml.length} bytes`);
    const response = await post(cookie, xml, 'text/html');
    assert.equal(response.statusCode, 303, response.body);
    assert.equal(response.headers.location, '/settings');
    assert.ok(await methodOwner('u-2001'));
  });

  it('refuses a response past 1 MiB with 413 payload_too_large on the SAML error page, signing nobody in', async () => {
    const { cookie, request } = await start();
    const big = { ...person.attributes, groups: groups(15_000) };
    const xml = responseFor(
      request.id,
      signElement(assertionFor(request.id, { nameId: 'u-2002', attributes: big }), 'Assertion', idp.keys),
    );
    const page = await post(cookie, xml, 'text/html');
    assert.equal(page.statusCode, 413);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.body, /<p>The request body is too large\.<\/p>/);
    assert.match(page.body, /<code>payload_too_large<\/code>/);
    assert.ok(page.body.includes(`<code>${page.headers['x-request-id']}</code>`));
    const json = await post(cookie, xml);
    assert.equal(json.statusCode, 413);
    assertEnvelope(json, 'payload_too_large');
    assert.equal(json.json().error_description, 'The request body is too large.');
    assert.equal(await methodOwner('u-2002'), undefined);
  });
});

describe('POST /admin/saml-connections body limit', async () => {
  const t = await startSamlApp(sp, {});
  const call = adminCaller(t, (await makeAdmin(t)).cookie);
  // Metadata padded with an XML comment to near the schema's 200,000 characters: a real federation document's size.
  const padded = (length: number) => idp.metadataXml.replace('<md:IDPSSO', `<!--${'x'.repeat(length)}--><md:IDPSSO`);
  const body = (xml: string) => ({ id: 'big', name: 'Big IdP', email_domains: ['big.example'], idp_metadata_xml: xml });

  it('accepts idp_metadata_xml of 199,000 characters (over the global 64 KiB limit)', async () => {
    const xml = padded(199_000 - idp.metadataXml.length - 7);
    assert.equal(xml.length, 199_000);
    const created = await call('POST', '/admin/saml-connections', body(xml));
    assert.equal(created.status, 201, JSON.stringify(created.json));
    assert.deepEqual(
      (await t.sql`select id from saml_connections`).map((row) => row.id),
      ['big'],
    );
  });

  it('refuses idp_metadata_xml past 200,000 characters with the envelope and stores nothing', async () => {
    const xml = padded(201_000);
    const refused = await call('POST', '/admin/saml-connections', { ...body(xml), id: 'bigger' });
    assertAdminError(refused, 400, 'invalid_request', 'Idp metadata xml: use at most 200000 characters.', [
      { path: 'body.idp_metadata_xml', problem: 'Use at most 200000 characters.' },
    ]);
    assert.deepEqual(
      (await t.sql`select id from saml_connections`).map((row) => row.id),
      ['big'],
    );
  });
});
