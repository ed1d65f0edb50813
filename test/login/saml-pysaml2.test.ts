// SAML sign-in against a real third-party identity provider, pysaml2 (test/helpers/pysaml2-idp.ts), through the real
// app and PostgreSQL over HTTP with the browser's cookie: its default attribute names (urn:oid:...) name the new
// identity, a response carrying thousands of groups signs in, one past the ACS's 1 MiB is a 413 page, and a signing
// key rollover at the identity provider does not stop the next sign-in.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { adminCaller, auditOf } from '../helpers/admin-api.ts';
import { makeAdmin } from '../helpers/oauth-fixtures.ts';
import { startPysaml2Idp } from '../helpers/pysaml2-idp.ts';
import { makeKeyPair } from '../helpers/saml-idp.ts';
import { samlSettings, startSamlApp } from '../helpers/saml-sp.ts';

const sp = makeKeyPair('gatehouse-sp');
const idp = await startPysaml2Idp();
after(() => idp.stop());
const groups = (count: number) =>
  Array.from({ length: count }, (_, i) => `cn=group-${String(i).padStart(5, '0')},ou=groups,dc=corp,dc=example`);

const t = await startSamlApp(sp, {
  corp: samlSettings({ name: 'Corp (pysaml2)', idp_metadata_url: idp.metadataUrl }),
});
idp.setServiceProvider((await t.app.inject({ url: '/auth/saml/corp/metadata' })).body);

/** A browser's sign-in: start, follow the redirect to pysaml2, post its form to the ACS; the ACS's answer. */
async function signIn(uid: string, attributes: Record<string, string[]>) {
  idp.setPerson({ uid, attributes });
  const started = await t.app.inject({ url: '/auth/saml/corp/start?return_to=%2Fsettings' });
  assert.equal(started.statusCode, 302, started.body);
  const cookie = String(started.headers['set-cookie']).split(';')[0] as string;
  const page = await fetch(String(started.headers.location));
  const html = await page.text();
  assert.equal(page.status, 200, html);
  const samlResponse = /name="SAMLResponse" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const acs = await t.app.inject({
    method: 'POST',
    url: '/auth/saml/corp/acs',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', cookie },
    payload: new URLSearchParams({ SAMLResponse: samlResponse }).toString(),
  });
  return { acs, xml: Buffer.from(samlResponse, 'base64').toString('utf8') };
}

const identityOf = async (uid: string) => {
  const [row] = await t.sql`
    select i.display_name, e.address, e.verified_at from sign_in_methods m join identities i on i.id = m.identity_id
    left join emails e on e.identity_id = i.id where m.kind = 'saml' and m.external_subject = ${uid}`;
  return row ? { name: row.display_name, email: row.address, verified: row.verified_at } : null;
};

describe('SAML sign-in through pysaml2 (POST /auth/saml/<id>/acs)', () => {
  it('names the new identity from the OID attributes pysaml2 sends by default', async () => {
    const { acs, xml } = await signIn('pysaml2-ada', { mail: ['ada@corp.example'], displayName: ['Ada Lovelace'] });
    assert.equal(acs.statusCode, 303, acs.body);
    assert.equal(acs.headers.location, '/settings');
    // What pysaml2 sent: the urn:oid: names, not the friendly ones.
    assert.match(xml, /Name="urn:oid:0\.9\.2342\.19200300\.100\.1\.3"/);
    assert.match(xml, /Name="urn:oid:2\.16\.840\.1\.113730\.3\.1\.241"/);
    assert.deepEqual(await identityOf('pysaml2-ada'), {
      name: 'Ada Lovelace',
      email: 'ada@corp.example',
      verified: null,
    });
  });

  it('signs in with a 300 KB+ response carrying 2,500 groups', async () => {
    const { acs, xml } = await signIn('pysaml2-many', { mail: ['many@corp.example'], isMemberOf: groups(2500) });
    assert.ok(xml.length > 300_000, `${xml.length} bytes`);
    assert.equal(acs.statusCode, 303, acs.body);
    assert.equal((await identityOf('pysaml2-many'))?.email, 'many@corp.example');
  });

  it('answers a response past 1 MiB with 413 payload_too_large on the SAML error page, signing nobody in', async () => {
    const { acs } = await signIn('pysaml2-huge', { mail: ['huge@corp.example'], isMemberOf: groups(12_000) });
    assert.equal(acs.statusCode, 413);
    assert.match(String(acs.headers['content-type']), /^text\/html/);
    assert.match(acs.body, /<p>The request body is too large\.<\/p>/);
    assert.match(acs.body, /<code>payload_too_large<\/code>/);
    assert.equal(await identityOf('pysaml2-huge'), null);
  });

  it('signs in right after the identity provider rolls its signing key over, without waiting for the refresh', async () => {
    idp.rollKey('pysaml2-rolled');
    const { acs } = await signIn('pysaml2-rolled', { mail: ['rolled@corp.example'], displayName: ['Rolled Over'] });
    assert.equal(acs.statusCode, 303, acs.body);
    assert.deepEqual(await identityOf('pysaml2-rolled'), {
      name: 'Rolled Over',
      email: 'rolled@corp.example',
      verified: null,
    });
  });

  it("fetches at most once a minute for failed responses; the owner's refresh now (admin API) picks the next key up", async () => {
    idp.rollKey('pysaml2-second');
    const refused = await signIn('pysaml2-second', { mail: ['second@corp.example'] });
    assert.equal(refused.acs.statusCode, 400);
    assert.match(refused.acs.body, /<code>saml_response_invalid<\/code>/);
    assert.equal(await identityOf('pysaml2-second'), null);

    const call = adminCaller(t, (await makeAdmin(t)).cookie);
    const refreshed = await call('POST', '/admin/saml-connections/corp/metadata/refresh', {});
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.json));
    const certificates = refreshed.json.certificates as { role: string; subject: string }[];
    assert.deepEqual(
      certificates.filter((c) => c.role === 'identity_provider').map((c) => c.subject),
      ['CN=pysaml2-second'],
    );
    assert.deepEqual(
      (await auditOf(t, 'corp')).map((row) => [row.event, row.details]),
      [['saml_connection.metadata_refreshed', { keys_changed: 'true' }]],
    );
    const { acs } = await signIn('pysaml2-second', { mail: ['second@corp.example'] });
    assert.equal(acs.statusCode, 303, acs.body);
  });

  it('fetches again for a failed response once a minute has passed since the last fetch', async () => {
    idp.rollKey('pysaml2-third');
    t.clock.advance(61);
    const { acs } = await signIn('pysaml2-third', { mail: ['third@corp.example'] });
    assert.equal(acs.statusCode, 303, acs.body);
  });
});
