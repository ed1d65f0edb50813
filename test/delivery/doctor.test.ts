import assert from 'node:assert/strict';
import { createPrivateKey } from 'node:crypto';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { runDoctor } from '../../src/cli/doctor.ts';
import type { LoadedConfig } from '../../src/config/load.ts';
import type { Config } from '../../src/config/schema.ts';
import { generateSecretFiles, loadSecrets } from '../../src/crypto/secret-files.ts';
import { readMigrations } from '../../src/db/migrate.ts';
import { formatCheck } from '../../src/delivery/check.ts';
import type { DnsResolver } from '../../src/delivery/dns-report.ts';
import { describeKey } from '../../src/oauth/keyring.ts';
import { makeConfig, scratchDir } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { makeCertificate, TestSmtpServer } from './smtp-server.ts';

const dir = scratchDir();
const secretsDir = path.join(dir, 'secrets');
generateSecretFiles(secretsDir);
const { kid } = await describeKey(createPrivateKey(loadSecrets(secretsDir).oidcSigningKey));
const credentials = { username: 'mailer', password: 'relay-password-7Qx' };
const certificate = await makeCertificate(dir);
const relay = await new TestSmtpServer({ certificate, credentials }).start();
after(() => relay.stop());
const database = await createTestDatabase();

const noDns: DnsResolver = {
  resolveMx: () => Promise.reject(new Error('no DNS in tests')),
  resolveTxt: () => Promise.reject(new Error('no DNS in tests')),
  resolve4: () => Promise.reject(new Error('no DNS in tests')),
  reverse: () => Promise.reject(new Error('no DNS in tests')),
};

const loaded = (config: Config): LoadedConfig => ({
  config,
  file: '/etc/gatehouse/gatehouse.toml',
  development: false,
  deferred: [],
});
const smtpConfig = (password: string) =>
  makeConfig({
    secrets: { dir: secretsDir },
    database: { url: database.url },
    delivery: {
      kind: 'smtp',
      from: 'no-reply@acme.dev',
      smtp: { host: 'localhost', port: relay.port, ...credentials, password, ca_file: certificate.caFile },
    },
  });

const doctor = async (config: Config) =>
  (
    await runDoctor(loaded(config), {
      resolver: noDns,
      withDatabase: (_url, _dir, work) => work(database.sql),
    })
  ).map(formatCheck);

describe('gatehouse doctor', () => {
  test('reports config, secrets, database, migrations, keys, TLS, providers, outbox and a relay that accepts the login', async () => {
    assert.deepEqual(await doctor(smtpConfig(credentials.password)), [
      'ok    config     /etc/gatehouse/gatehouse.toml',
      `ok    secrets    ${secretsDir}`,
      `ok    database   ${database.url} is reachable`,
      `ok    migrations all ${readMigrations().length} applied`,
      `ok    keys       ${kid} signs; 0 retired key(s) still published`,
      'info  tls        external: plain HTTP at http://localhost:8080 (local development)',
      'info  providers  none enabled: people sign in with a password',
      'ok    outbox     0 pending, 0 sent, 0 dead',
      `ok    delivery   SMTP relay localhost:${relay.port} (starttls)`,
      `ok    smtp       localhost:${relay.port} accepted TLS and the login`,
    ]);
  });

  test('fails on wrong relay credentials, without printing them', async () => {
    const lines = await doctor(smtpConfig('wrong-password-9Zr'));
    assert.equal(
      lines.at(-1),
      `fail  smtp       localhost:${relay.port}: SMTP 535: Invalid login: 535 Invalid username or password`,
    );
    assert.ok(!lines.join('\n').includes('wrong-password-9Zr'));
  });

  test('self-service enabled without delivery is a failure; without self-service it is information', async () => {
    const base = makeConfig({ secrets: { dir: secretsDir } });
    const expected = (status: string) =>
      `${status}  delivery   not configured (delivery.kind is "none"): sign-up and recovery are refused; set it with \`gatehouse config delivery\``;
    assert.equal((await doctor(base)).at(-1), expected('info'));
    assert.equal((await doctor({ ...base, self_service: { enabled: true } })).at(-1), expected('fail'));
  });

  test('an unreachable database is a failure', async () => {
    const lines = (
      await runDoctor(loaded(smtpConfig(credentials.password)), {
        resolver: noDns,
        withDatabase: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1')),
      })
    ).map(formatCheck);
    assert.equal(lines[2], `fail  database   ${database.url} is unreachable: connect ECONNREFUSED 127.0.0.1:1`);
  });
});
