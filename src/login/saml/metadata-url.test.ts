// idp_metadata_url against the identity provider running in the test, which publishes its metadata over HTTP at
// /metadata: the app reads it at startup and signs in through it; a failed refresh keeps the last good copy and logs
// why; a key rollover published there is picked up by the next refresh; metadata that cannot be fetched at startup
// leaves the server running with that connection answering 503 until a fetch succeeds.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { createServer } from 'node:net';
import { after, describe, it } from 'node:test';
import { makeConfig } from '../../../test/helpers/config.ts';
import { providerSecretsDir } from '../../../test/helpers/provider-secrets.ts';
import { makeKeyPair, startTestIdp, type TestIdp } from '../../../test/helpers/saml-idp.ts';
import { assertEnvelope, samlConnection, spMoves, startSamlApp } from '../../../test/helpers/saml-sp.ts';
import { loadSamlConnection } from './connection.ts';
import { keepIdpMetadataFresh, type RefreshTimer, refreshIdpMetadata } from './metadata-url.ts';

const sp = makeKeyPair('gatehouse-sp');
const person = { nameId: 'u-2002', attributes: { email: 'lin@corp.example', displayName: 'Lin Ma' } };
const idp = await startTestIdp({ spCert: sp.cert, person: () => person });
after(() => idp.stop());

const byUrl = (target: TestIdp | string) =>
  samlConnection(idp, {
    idp_metadata_url: typeof target === 'string' ? target : `${target.url}/metadata`,
    idp_entity_id: '',
    idp_sso_url: '',
    idp_certificate_files: [],
  });

/** A loopback port nothing listens on: connecting to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}

const fingerprint = (pem: string | undefined) => new X509Certificate(pem ?? '').fingerprint256;

describe('idp_metadata_url: read at startup, then signed in through', async () => {
  const t = await startSamlApp(sp, { corp: byUrl(idp) });
  const { start, idpAnswer, post, methodOwner } = spMoves(t, sp, idp, person);

  it('sends the AuthnRequest to the fetched SingleSignOnService and accepts an assertion signed by the fetched key', async () => {
    assert.match(
      t.logs.text,
      /SAML connection corp: identity provider metadata read from http:\/\/127\.0\.0\.1:\d+\/metadata/,
    );
    const { cookie, location } = await start('/settings');
    assert.equal(location.origin + location.pathname, idp.ssoUrl);
    const response = await post(cookie, await idpAnswer(location));
    assert.equal(response.statusCode, 303, response.body);
    assert.ok(await methodOwner('u-2002'));
  });
});

describe('idp_metadata_url unreachable at startup', async () => {
  const url = `http://127.0.0.1:${await closedPort()}/metadata`;
  const t = await startSamlApp(sp, { corp: byUrl(url) });

  it('starts anyway; the connection answers 503 saml_connection_unavailable and the log says which key and why', async () => {
    const health = await t.app.inject({ url: '/auth/saml/corp/metadata' });
    assert.equal(health.statusCode, 200, 'our own SP metadata does not depend on the identity provider');
    const response = await t.app.inject({ url: '/auth/saml/corp/start?return_to=%2Fsettings' });
    assert.equal(response.statusCode, 503);
    assertEnvelope(response, 'saml_connection_unavailable');
    const page = await t.app.inject({ url: '/auth/saml/corp/start', headers: { accept: 'text/html' } });
    assert.equal(page.statusCode, 503);
    assert.match(page.body, /<code>saml_connection_unavailable<\/code>/);
    assert.ok(
      t.logs.lines.some(
        (line) =>
          line.includes(`SAML connection corp idp_metadata_url ${url}: fetch failed (connect ECONNREFUSED`) &&
          line.includes('sign-in through it is unavailable until a fetch succeeds'),
      ),
      t.logs.text,
    );
  });
});

describe('refreshIdpMetadata', () => {
  const config = makeConfig({
    secrets: { dir: providerSecretsDir({ 'saml-corp.key': sp.key, 'saml-corp.crt': sp.cert }) },
  });
  const logged: string[] = [];
  const log = (_connection: string, level: string, message: string) => logged.push(`${level}: ${message}`);

  it('keeps the last good copy when the identity provider answers an error, and logs why', async () => {
    config.saml = { corp: byUrl(idp) };
    const connection = loadSamlConnection(config, 'corp');
    assert.equal(await refreshIdpMetadata(connection, log), null);
    assert.equal(connection.idpSsoUrl, idp.ssoUrl);
    idp.metadataAnswer.status = 503;
    try {
      assert.equal(await refreshIdpMetadata(connection, log), 'answered HTTP 503');
    } finally {
      idp.metadataAnswer.status = 200;
    }
    assert.equal(connection.idpEntityId, idp.entityId);
    assert.equal(connection.idpSsoUrl, idp.ssoUrl);
    assert.equal(fingerprint(connection.idpCertificates[0]), fingerprint(idp.keys.cert));
    assert.match(logged.at(-1) ?? '', /^warn: .*: answered HTTP 503; keeping the last good copy$/);
  });

  it('refuses a document that is not usable metadata and keeps the last good copy', async () => {
    config.saml = { corp: byUrl(idp) };
    const connection = loadSamlConnection(config, 'corp');
    await refreshIdpMetadata(connection, log);
    const good = idp.metadataAnswer.body;
    try {
      idp.metadataAnswer.body = `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${good}`;
      assert.equal(await refreshIdpMetadata(connection, log), 'declares a DTD, which SAML metadata never needs');
      idp.metadataAnswer.body = good.replace(`${idp.url}/sso"`, 'http://idp.elsewhere.example/sso"');
      assert.equal(
        await refreshIdpMetadata(connection, log),
        'its SingleSignOnService must be https:// (http:// only for a loopback host)',
      );
    } finally {
      idp.metadataAnswer.body = good;
    }
    assert.equal(connection.idpSsoUrl, idp.ssoUrl);
  });

  it("picks up the identity provider's key rollover from the next refresh", async () => {
    config.saml = { corp: byUrl(idp) };
    const connection = loadSamlConnection(config, 'corp');
    await refreshIdpMetadata(connection, log);
    const rolled = makeKeyPair('test-idp-next');
    const good = idp.metadataAnswer.body;
    try {
      const body = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s/g, '');
      idp.metadataAnswer.body = good.replace(body(idp.keys.cert), body(rolled.cert));
      assert.equal(await refreshIdpMetadata(connection, log), null);
    } finally {
      idp.metadataAnswer.body = good;
    }
    assert.equal(connection.idpCertificates.length, 1);
    assert.equal(fingerprint(connection.idpCertificates[0]), fingerprint(rolled.cert));
  });

  it('makes a connection that had no copy usable once a fetch succeeds', async () => {
    idp.metadataAnswer.status = 500;
    config.saml = { corp: byUrl(idp) };
    const connection = loadSamlConnection(config, 'corp');
    try {
      assert.equal(await refreshIdpMetadata(connection, log), 'answered HTTP 500');
      assert.equal(connection.idpSsoUrl, '');
      assert.match(logged.at(-1) ?? '', /sign-in through it is unavailable until a fetch succeeds$/);
    } finally {
      idp.metadataAnswer.status = 200;
    }
    assert.equal(await refreshIdpMetadata(connection, log), null);
    assert.equal(connection.idpSsoUrl, idp.ssoUrl);
  });

  it('does not follow a redirect', async () => {
    idp.metadataAnswer.status = 302;
    config.saml = { corp: byUrl(idp) };
    const connection = loadSamlConnection(config, 'corp');
    try {
      assert.equal(await refreshIdpMetadata(connection, log), 'answered HTTP 302');
    } finally {
      idp.metadataAnswer.status = 200;
    }
  });
});

describe('keepIdpMetadataFresh: when it fetches again (real fetches, delays recorded instead of waited)', () => {
  it('retries a connection with no copy after a minute, then refreshes every idp_metadata_refresh_seconds', async () => {
    const config = makeConfig({
      secrets: { dir: providerSecretsDir({ 'saml-corp.key': sp.key, 'saml-corp.crt': sp.cert }) },
    });
    config.saml = { corp: { ...byUrl(idp), idp_metadata_refresh_seconds: 7200 } };
    const connection = loadSamlConnection(config, 'corp');
    const asked: { ms: number; run: () => void; cancelled: boolean }[] = [];
    const timer: RefreshTimer = {
      after(ms, run) {
        const entry = { ms, run, cancelled: false };
        asked.push(entry);
        return { cancel: () => (entry.cancelled = true) };
      },
    };
    let nextLine: (line: string) => void = () => undefined;
    const logged = () => new Promise<string>((resolve) => (nextLine = resolve));
    const log = (_connection: string, level: string, message: string) => nextLine(`${level}: ${message}`);
    /** Runs the fetch scheduled last and returns its log line. */
    const runNext = async () => {
      // The previous fetch schedules the next one just after logging: let that happen first.
      await new Promise<void>((resolve) => setImmediate(resolve));
      const line = logged();
      asked.at(-1)?.run();
      return await line;
    };
    idp.metadataAnswer.status = 500;
    try {
      const first = logged();
      const stop = await keepIdpMetadataFresh(new Map([['corp', connection]]), log, timer);
      assert.match(await first, /^warn: .*answered HTTP 500; sign-in through it is unavailable/);
      assert.deepEqual(
        asked.map((a) => a.ms),
        [60_000],
      );
      idp.metadataAnswer.status = 200;
      assert.match(await runNext(), /^info: .*identity provider metadata read/);
      assert.equal(connection.idpSsoUrl, idp.ssoUrl);
      idp.metadataAnswer.status = 503;
      assert.match(await runNext(), /^warn: .*answered HTTP 503; keeping the last good copy$/);
      assert.equal(connection.idpSsoUrl, idp.ssoUrl);
      // With a copy in hand a failure waits the full interval, not the one-minute retry.
      await new Promise<void>((resolve) => setImmediate(resolve));
      assert.deepEqual(
        asked.map((a) => a.ms),
        [60_000, 7_200_000, 7_200_000],
      );
      stop();
      assert.equal(asked.at(-1)?.cancelled, true);
    } finally {
      idp.metadataAnswer.status = 200;
    }
  });
});
