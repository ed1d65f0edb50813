// tls.mode = "acme" against Debian's pebble: the real startServer orders a certificate with HTTP-01 validated by
// pebble against our challenge listener, serves it (a TLS client verifies it against pebble's issuing root),
// renews it when it is due, keeps it when the authority is down, and reports all of it in the status section.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import type { Config } from '../../src/config/schema.ts';
import { generateSecretFiles } from '../../src/crypto/secret-files.ts';
import { startServer } from '../../src/server.ts';
import { tlsStatus } from '../../src/status/tls.ts';
import { acmePaths, readAcmeState, readStoredPair } from '../../src/tls/acme-files.ts';
import { ACME_ORDER_LOCK } from '../../src/tls/acme-mode.ts';
import { startChallengeListener } from '../../src/tls/challenge-listener.ts';
import { putChallenge } from '../../src/tls/challenge-store.ts';
import { freePort } from '../delivery/smtp-server.ts';
import { makeConfig, scratchDir } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { startPebble } from '../helpers/pebble.ts';
import { servedCertificate, WaitableLogs } from '../helpers/tls.ts';

const DAY_MS = 86_400_000;
const database = await createTestDatabase();

function plainGet(port: number, urlPath: string): Promise<{ status: number; body: string; location?: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: urlPath, agent: false }, (response) => {
      let body = '';
      response.on('data', (chunk) => {
        body += chunk;
      });
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          body,
          ...(response.headers.location ? { location: response.headers.location } : {}),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

async function acmeNode(
  directoryUrl: string,
  caFile: string,
  httpPort: number,
  issuer = 'https://localhost',
  email = 'ops@acme.test',
) {
  const dir = scratchDir();
  const secretsDir = path.join(dir, 'secrets');
  generateSecretFiles(secretsDir);
  const config: Config = makeConfig({
    server: { issuer },
    database: { url: database.url },
    secrets: { dir: secretsDir },
    data: { dir },
    tls: {
      mode: 'acme',
      acme_directory_url: directoryUrl,
      acme_ca_file: caFile,
      acme_email: email,
      acme_http_listen: `127.0.0.1:${httpPort}`,
    },
  });
  return { config, paths: acmePaths({ secretsDir, dataDir: dir }) };
}

describe('tls.mode = "acme" against pebble', async () => {
  const httpPort = await freePort();
  const pebble = await startPebble(scratchDir(), httpPort);
  const node = await acmeNode(pebble.directoryUrl, pebble.caFile, httpPort);
  let now = Date.now();
  const logs = new WaitableLogs();
  const server = await startServer(
    { config: node.config, file: null, development: false, deferred: [] },
    { logStream: logs, clock: () => new Date(now), tls: { acmeCheckMs: 0 } },
  );
  after(() => server.stop());
  const port = Number(new URL(server.url).port);
  const root = await pebble.root();

  test('obtains a certificate before listening and serves it over HTTPS, verified against pebble’s root', async () => {
    assert.match(server.url, /^https:/);
    const leaf = await servedCertificate(port, root);
    assert.equal(leaf.subjectaltname, 'DNS:localhost');
    assert.match(String(leaf.issuer.CN), /^Pebble Intermediate CA/);
    // Everything in data.dir/tls (the installed unit lets the service write only there and in its logs): the keys
    // 0600 in a 0700 directory; nothing in the read-only secrets directory.
    const tls = path.join(node.config.data.dir, 'tls');
    assert.equal(statSync(tls).mode & 0o777, 0o700);
    assert.equal(path.dirname(node.paths.certificateKey), tls);
    assert.equal(path.dirname(node.paths.accountKey), tls);
    assert.equal(statSync(node.paths.certificateKey).mode & 0o777, 0o600);
    assert.equal(statSync(node.paths.accountKey).mode & 0o777, 0o600);
    assert.deepEqual(
      readdirSync(node.config.secrets.dir).filter((f) => f.startsWith('acme')),
      [],
    );
    assert.equal(new X509Certificate(readFileSync(node.paths.certificate)).fingerprint256, leaf.fingerprint256);
  });

  test('reports the certificate’s issuer, expiry and days left, and no error, in the status section', () => {
    const section = tlsStatus(node.config, new Date(now));
    assert.equal(section.status, 'ok');
    assert.match(section.certificate?.issuer ?? '', /CN=Pebble Intermediate CA/);
    assert.ok((section.certificate?.days_left ?? 0) > 30);
    assert.equal(section.acme?.last_error, null);
    assert.match(section.checks[0]?.detail ?? '', /^acme: CN=localhost|^acme: .*issued by .*Pebble Intermediate CA/);
  });

  test('renews once fewer than acme_renew_days are left, and new handshakes get the new certificate', async () => {
    const before = await servedCertificate(port, root);
    assert.equal(await server.tls.reload('check'), 'not_due');
    now = new Date(before.valid_to).getTime() - 29 * DAY_MS;
    assert.equal(await server.tls.reload('check'), 'renewed');
    const after = await servedCertificate(port, root);
    assert.notEqual(after.fingerprint256, before.fingerprint256);
    assert.equal(readAcmeState(node.paths).last_success_at, new Date(now).toISOString());
  });

  test('an installation whose keys an earlier release kept in secrets.dir serves and renews with them', async () => {
    // As releases before 1.1 left it: both keys in secrets.dir, none in data.dir/tls.
    const served = await servedCertificate(port, root);
    renameSync(node.paths.certificateKey, node.paths.legacy.certificateKey);
    renameSync(node.paths.accountKey, node.paths.legacy.accountKey);
    assert.equal(readStoredPair(node.paths)?.leaf.fingerprint256, served.fingerprint256, 'the old key is found');
    now = new Date(served.valid_to).getTime() - 29 * DAY_MS;
    assert.equal(await server.tls.reload('check'), 'renewed');
    // The same ACME account carries on, now kept where the service may write; the new certificate key too.
    assert.deepEqual(readFileSync(node.paths.accountKey), readFileSync(node.paths.legacy.accountKey));
    assert.equal(statSync(node.paths.certificateKey).mode & 0o777, 0o600);
    assert.equal(readStoredPair(node.paths)?.leaf.fingerprint256, (await servedCertificate(port, root)).fingerprint256);
  });

  test('renews with an account registered without a contact address (no empty account update)', async () => {
    // Its challenges are answered by the first node's listener on pebble's port (they share the database), which
    // judges their expiry by its clock: both nodes run on the same one.
    const bare = await acmeNode(pebble.directoryUrl, pebble.caFile, await freePort(), 'https://localhost', '');
    const bareServer = await startServer(
      { config: bare.config, file: null, development: false, deferred: [] },
      { logStream: new WaitableLogs(), clock: () => new Date(now), tls: { acmeCheckMs: 0 } },
    );
    try {
      const first = readStoredPair(bare.paths);
      assert.ok(first);
      now = first.leaf.validToDate.getTime() - 29 * DAY_MS;
      assert.equal(await bareServer.tls.reload('check'), 'renewed', readAcmeState(bare.paths).last_error ?? '');
      assert.notEqual(readStoredPair(bare.paths)?.leaf.fingerprint256, first.leaf.fingerprint256);
    } finally {
      await bareServer.stop();
    }
  });

  test('leaves a due renewal to the node that holds the ACME lock, answering busy', async () => {
    const serving = await servedCertificate(port, root);
    now = new Date(serving.valid_to).getTime() - 20 * DAY_MS;
    const other = await database.sql.reserve();
    try {
      await other`select pg_advisory_lock(${ACME_ORDER_LOCK})`;
      assert.equal(await server.tls.reload('check'), 'busy');
    } finally {
      await other`select pg_advisory_unlock(${ACME_ORDER_LOCK})`;
      other.release();
    }
    assert.equal((await servedCertificate(port, root)).fingerprint256, serving.fingerprint256);
  });

  test('refuses to start, exit status 78 (not restarted), when the authority answers but cannot validate the order', async () => {
    // pebble cannot resolve this name, so HTTP-01 validation fails: restarting would only spend the authority's limits.
    const fresh = await acmeNode(
      pebble.directoryUrl,
      pebble.caFile,
      await freePort(),
      'https://nowhere.gatehouse.invalid',
    );
    const failedLine = logs.next(/ACME: no certificate and the first order failed/);
    await assert.rejects(
      startServer({ config: fresh.config, file: null, development: false, deferred: [] }, { logStream: logs }),
      (error: Error & { exitCode?: number }) => {
        assert.equal(error.name, 'AcmeStartFailed');
        assert.equal(error.exitCode, 78);
        assert.match(
          error.message,
          /^no TLS certificate for nowhere\.gatehouse\.invalid: the order at https:\/\/localhost:\d+\/dir failed \(.+\); exiting with 78, not retried /,
        );
        return true;
      },
    );
    assert.match(await failedLine, /"exit_status":78/);
    assert.equal(existsSync(fresh.paths.certificate), false);
  });

  test('keeps serving the current certificate when the authority is down and reports why', async () => {
    const serving = await servedCertificate(port, root);
    await pebble.stop();
    now = new Date(serving.valid_to).getTime() - 10 * DAY_MS;
    const failedLine = logs.next(/ACME renewal failed/);
    assert.equal(await server.tls.reload('check'), 'failed');
    assert.match(await failedLine, /still serving the current certificate/);
    assert.equal((await servedCertificate(port, root)).fingerprint256, serving.fingerprint256);
    const section = tlsStatus(node.config, new Date(now));
    assert.equal(section.status, 'warn');
    assert.match(section.acme?.last_error ?? '', /ECONNREFUSED/);
    assert.match(section.checks[0]?.detail ?? '', /renewal is failing; the last attempt \(.*\) failed: .*ECONNREFUSED/);
  });

  test('refuses to start without any certificate while the authority is down, saying why', async () => {
    const fresh = await acmeNode(pebble.directoryUrl, pebble.caFile, await freePort());
    await assert.rejects(
      startServer({ config: fresh.config, file: null, development: false, deferred: [] }, { logStream: logs }),
      (error: Error & { exitCode?: number }) => {
        assert.equal(error.name, 'AcmeStartFailed');
        // 69: unreachable may heal, so the unit restarts it (within its start limit).
        assert.equal(error.exitCode, 69);
        assert.match(
          error.message,
          /^no TLS certificate for localhost and the ACME authority is unreachable \(the ACME directory https:\/\/localhost:\d+\/dir is unreachable: .*ECONNREFUSED.*\); exiting with 69, systemd tries again$/,
        );
        return true;
      },
    );
    assert.equal(existsSync(fresh.paths.certificate), false);
    const section = tlsStatus(fresh.config, new Date());
    assert.equal(section.status, 'fail');
    assert.match(section.checks[0]?.detail ?? '', /^acme: no certificate for localhost from .*ECONNREFUSED/);
  });
});

describe('tls.mode = "acme" without pebble', async () => {
  test('never orders a reserved name from a public authority: the start is refused with the reason', async () => {
    const node = await acmeNode('https://acme-v02.api.letsencrypt.org/directory', '', await freePort());
    await assert.rejects(
      startServer(
        { config: node.config, file: null, development: false, deferred: [] },
        { logStream: new WaitableLogs() },
      ),
      {
        name: 'AcmeStartFailed',
        exitCode: 78,
        message:
          'no TLS certificate for localhost: the order at https://acme-v02.api.letsencrypt.org/directory failed (localhost is a reserved name: no certificate is ordered from the public authority https://acme-v02.api.letsencrypt.org/directory (use tls.mode "files" or "external", or a private ACME authority with tls.acme_ca_file)); ' +
          "exiting with 78, not retried (each attempt counts against the authority's limits): check that localhost resolves to this host, that port 80 reaches tls.acme_http_listen and the tls.acme_* settings, then start the service again",
      },
    );
    assert.equal(existsSync(node.paths.accountKey), false, 'no account was even created');
  });

  test('the challenge listener answers a stored token from any node, 404s an unknown one and redirects the rest', async () => {
    const listener = await startChallengeListener(
      database.sql,
      'https://id.acme.test',
      { host: '127.0.0.1', port: 0 },
      () => new Date(),
      { warn: () => {} },
    );
    after(() => listener.close());
    await putChallenge(database.sql, 'tok_1-A', 'tok_1-A.thumbprint', new Date(Date.now() + 60_000), new Date());
    assert.deepEqual(await plainGet(listener.port, '/.well-known/acme-challenge/tok_1-A'), {
      status: 200,
      body: 'tok_1-A.thumbprint',
    });
    assert.deepEqual(await plainGet(listener.port, '/.well-known/acme-challenge/unknown'), {
      status: 404,
      body: 'not found\n',
    });
    assert.deepEqual(await plainGet(listener.port, '/admin/console?x=1'), {
      status: 301,
      body: '',
      location: 'https://id.acme.test/admin/console',
    });
  });
});
