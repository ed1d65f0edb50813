// POST /admin/saml-connections/:id/metadata/refresh and connections made through the admin API from a metadata URL
// (idp_metadata_url), against the test identity provider's /metadata through the real app and PostgreSQL: the
// URL is fetched at creation, a refresh stores the fresh copy, and every refusal is the envelope with nothing changed.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { adminCaller, assertAdminError, auditOf } from '../helpers/admin-api.ts';
import { runCli, writeCliConfig } from '../helpers/cli.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { makeAdmin } from '../helpers/oauth-fixtures.ts';
import { makeKeyPair, startTestIdp } from '../helpers/saml-idp.ts';
import { startSamlApp } from '../helpers/saml-sp.ts';

const idp = await startTestIdp({
  spCert: makeKeyPair('unused-sp').cert,
  person: () => ({ nameId: 'x', attributes: {} }),
});
after(() => idp.stop());
// The database by URL too: the CLI test runs `gatehouse` against it as a separate process.
const db = await createTestDatabase();
const t = await startSamlApp(makeKeyPair('file-sp'), {}, db.sql);
const call = adminCaller(t, (await makeAdmin(t)).cookie);
const metadataUrl = `${idp.url}/metadata`;
const byUrl = { id: 'by-url', name: 'By URL', email_domains: ['url.example'], idp_metadata_url: metadataUrl };
const stored = async () =>
  (
    await t.sql`select id, settings->>'idp_metadata_url' as url, idp_certificates from saml_connections order by id`
  ).map((row) => [row.id, row.url, (row.idp_certificates as string[]).length]);
/** The test IdP's metadata with another signing certificate, as after a key rollover. */
const rolledMetadata = (cert: string) =>
  idp.metadataXml.replace(
    /<ds:X509Certificate>[^<]+</,
    `<ds:X509Certificate>${cert.replace(/-----[A-Z ]+-----|\s/g, '')}<`,
  );

describe('SAML connection metadata by URL and refresh now (admin API)', () => {
  test('a connection made from idp_metadata_url is fetched at creation; an unreadable URL is refused', async () => {
    idp.metadataAnswer.status = 500;
    assertAdminError(
      await call('POST', '/admin/saml-connections', byUrl),
      400,
      'invalid_request',
      'idp_metadata_url: could not be read: answered HTTP 500',
      [{ path: 'body.idp_metadata_url', problem: 'could not be read: answered HTTP 500' }],
    );
    assert.deepEqual(await stored(), []);
    idp.metadataAnswer.status = 200;
    const created = await call('POST', '/admin/saml-connections', byUrl);
    assert.equal(created.status, 201, JSON.stringify(created.json));
    assert.equal(created.json.idp_metadata_url, metadataUrl);
    assert.equal(created.json.idp_sso_url, idp.ssoUrl);
    assert.deepEqual(await stored(), [['by-url', metadataUrl, 1]]);
  });

  test('refresh now stores the rolled-over certificate and audits it', async () => {
    const next = makeKeyPair('rolled-idp');
    idp.metadataAnswer.body = rolledMetadata(next.cert);
    const refreshed = await call('POST', '/admin/saml-connections/by-url/metadata/refresh', {});
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.json));
    const [row] = await t.sql`select idp_certificates from saml_connections where id = 'by-url'`;
    assert.deepEqual(row?.idp_certificates, [`${next.cert.trim()}\n`]);
    const certificates = refreshed.json.certificates as { role: string; subject: string }[];
    assert.deepEqual(
      certificates.filter((c) => c.role === 'identity_provider').map((c) => c.subject),
      ['CN=rolled-idp'],
    );
    const events = (await auditOf(t, 'by-url')).map((r) => [r.event, r.details]);
    assert.deepEqual(events.at(-1), ['saml_connection.metadata_refreshed', { keys_changed: 'true' }]);
  });

  test('refresh is refused with the envelope: metadata down (502), no URL (409), unknown connection (404)', async () => {
    const row = async () => JSON.stringify(await t.sql`select * from saml_connections where id = 'by-url'`);
    const before = await row();
    idp.metadataAnswer.status = 503;
    assertAdminError(
      await call('POST', '/admin/saml-connections/by-url/metadata/refresh', {}),
      502,
      'saml_metadata_unreachable',
      "The identity provider's metadata could not be fetched or read (answered HTTP 503); the connection keeps its last good copy.",
    );
    idp.metadataAnswer.status = 200;
    const fromXml = { id: 'by-xml', name: 'By XML', email_domains: ['xml.example'], idp_metadata_xml: idp.metadataXml };
    assert.equal((await call('POST', '/admin/saml-connections', fromXml)).status, 201);
    assertAdminError(
      await call('POST', '/admin/saml-connections/by-xml/metadata/refresh', {}),
      409,
      'saml_metadata_url_missing',
      'This single sign-on connection was not given a metadata URL, so there is nothing to fetch.',
    );
    assertAdminError(
      await call('POST', '/admin/saml-connections/nope/metadata/refresh', {}),
      404,
      'not_found',
      'No such SAML connection',
    );
    assert.equal(await row(), before);
    assert.equal((await auditOf(t, 'by-xml')).filter((r) => r.event.endsWith('metadata_refreshed')).length, 0);
  });

  test('gatehouse saml refresh-metadata stores the fresh copy for every node; refusals exit non-zero', async () => {
    const configFile = writeCliConfig();
    const saml = (...args: string[]) =>
      runCli(['saml', 'refresh-metadata', ...args, '--config', configFile, '--database-url', db.url]);
    const next = makeKeyPair('cli-rolled-idp');
    idp.metadataAnswer.body = rolledMetadata(next.cert);
    const done = await saml('by-url');
    assert.equal(done.code, 0, done.stderr);
    assert.equal(
      done.stdout,
      `Refreshed SAML connection by-url from its metadata URL (${idp.entityId}): new signing keys\n`,
    );
    const [row] = await t.sql`select idp_certificates from saml_connections where id = 'by-url'`;
    assert.deepEqual(row?.idp_certificates, [`${next.cert.trim()}\n`]);
    const [record] = await t.sql`
      select actor, details from audit_pending where subject = 'by-url' and event = 'saml_connection.metadata_refreshed'
      union all
      select actor, details from audit_events where subject = 'by-url' and event = 'saml_connection.metadata_refreshed'
        and actor like 'operator:%'`;
    assert.match(String(record?.actor), /^operator:/);
    assert.deepEqual(record?.details, { keys_changed: 'true' });

    const noUrl = await saml('by-xml');
    assert.deepEqual([noUrl.code, noUrl.stdout], [1, '']);
    assert.equal(
      noUrl.stderr,
      'gatehouse saml: SAML connection by-xml was not given a metadata URL, so there is nothing to fetch\n',
    );
    idp.metadataAnswer.status = 500;
    const down = await saml('by-url');
    assert.equal(
      down.stderr,
      `gatehouse saml: ${metadataUrl}: answered HTTP 500; the connection keeps its last good copy\n`,
    );
    idp.metadataAnswer.status = 200;
    assert.deepEqual(
      (await t.sql`select idp_certificates from saml_connections where id = 'by-url'`)[0]?.idp_certificates,
      [`${next.cert.trim()}\n`],
    );
  });

  test('PATCH moves a connection to a metadata URL and back to a document; the URL goes with it', async () => {
    const toUrl = await call('PATCH', '/admin/saml-connections/by-xml', { idp_metadata_url: metadataUrl });
    assert.equal(toUrl.status, 200, JSON.stringify(toUrl.json));
    assert.equal(toUrl.json.idp_metadata_url, metadataUrl);
    assert.equal((await call('POST', '/admin/saml-connections/by-xml/metadata/refresh', {})).status, 200);
    const toXml = await call('PATCH', '/admin/saml-connections/by-xml', { idp_metadata_xml: idp.metadataXml });
    assert.equal(toXml.json.idp_metadata_url, '');
    const [row] = await t.sql`select settings->>'idp_metadata_url' as url from saml_connections where id = 'by-xml'`;
    assert.equal(row?.url, '');
    assertAdminError(
      await call('PATCH', '/admin/saml-connections/by-xml', {
        idp_metadata_url: metadataUrl,
        idp_metadata_xml: idp.metadataXml,
      }),
      400,
      'invalid_request',
      'idp_metadata_url: set it or idp_metadata_xml, not both',
      [{ path: 'body.idp_metadata_url', problem: 'set it or idp_metadata_xml, not both' }],
    );
    assert.equal(
      (await t.sql`select settings->>'idp_metadata_url' as url from saml_connections where id = 'by-xml'`)[0]?.url,
      '',
    );
  });
});
