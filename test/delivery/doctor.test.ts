import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { appendFileSync, chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { runDoctor } from '../../src/cli/doctor.ts';
import type { LoadedConfig } from '../../src/config/load.ts';
import type { Config } from '../../src/config/schema.ts';
import { generateSecretFiles, loadSecrets } from '../../src/crypto/secret-files.ts';
import { readMigrations } from '../../src/db/migrate.ts';
import { redactDatabaseUrl } from '../../src/db/pool.ts';
import { formatCheck } from '../../src/delivery/check.ts';
import { dkimRecord } from '../../src/delivery/dkim-key.ts';
import type { DnsResolver } from '../../src/delivery/dns-report.ts';
import { describeKey } from '../../src/oauth/keyring.ts';
import { runCli, writeCliConfig } from '../helpers/cli.ts';
import { makeConfig, scratchDir, smtpPasswordFile } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { freePort, makeCertificate, TestSmtpServer } from './smtp-server.ts';

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
      smtp: {
        host: 'localhost',
        port: relay.port,
        username: credentials.username,
        password_file: smtpPasswordFile(password),
        ca_file: certificate.caFile,
      },
    },
  });

const doctor = async (config: Config, resolver: DnsResolver = noDns) =>
  (
    await runDoctor(loaded(config), {
      resolver,
      withDatabase: (_url, _dir, work) => work(database.sql),
    })
  ).map(formatCheck);

const webhookConfig = (url: string) =>
  makeConfig({
    secrets: { dir: secretsDir },
    database: { url: database.url },
    delivery: { kind: 'webhook', from: 'no-reply@acme.dev', webhook: { url, timeout_seconds: 5 } },
  });

const receiver = createServer((_request, response) => response.writeHead(405).end());
receiver.listen(0, '127.0.0.1');
await once(receiver, 'listening');
after(() => receiver.close());
const receiverAddress = receiver.address();
const receiverPort = typeof receiverAddress === 'object' && receiverAddress ? receiverAddress.port : 0;

const dkimKeyFile = path.join(dir, 'dkim.pem');
const dkimKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
writeFileSync(dkimKeyFile, dkimKey, { mode: 0o600 });
const notAKeyFile = path.join(dir, 'not-a-key.pem');
writeFileSync(notAKeyFile, 'not a key\n', { mode: 0o600 });

const directMxConfig = (keyFile: string) =>
  makeConfig({
    secrets: { dir: secretsDir },
    database: { url: database.url },
    delivery: {
      kind: 'direct_mx',
      from: 'Acme <no-reply@acme.dev>',
      direct_mx: {
        helo_name: 'mx1.acme.dev',
        dkim_domain: 'acme.dev',
        dkim_selector: 'gh2026',
        dkim_private_key_file: keyFile,
      },
    },
  });

/** A fully published zone for acme.dev, behind the resolver interface (no DNS server answers for it here). */
const publishedDns: DnsResolver = {
  resolveMx: () => Promise.resolve([]),
  resolve4: async (name) => (name === 'mx1.acme.dev' ? ['198.51.100.7'] : []),
  reverse: async () => ['mx1.acme.dev'],
  resolveTxt: async (name) =>
    ({
      'acme.dev': [['v=spf1 ip4:198.51.100.7 -all']],
      'gh2026._domainkey.acme.dev': [[dkimRecord(dkimKey.toString())]],
      '_dmarc.acme.dev': [['v=DMARC1; p=reject']],
    })[name] ?? [],
};

describe('gatehouse doctor', () => {
  test('reports config, secrets, database, migrations, keys, TLS, providers, outbox and a relay that accepts the login', async () => {
    assert.deepEqual(await doctor(smtpConfig(credentials.password)), [
      'ok    config     /etc/gatehouse/gatehouse.toml',
      `ok    secrets    ${secretsDir}`,
      `ok    database   ${redactDatabaseUrl(database.url)} is reachable`,
      `ok    migrations all ${readMigrations().length} applied`,
      `ok    keys       ${kid} signs; 0 retired key(s) still published`,
      'info  tls        external: plain HTTP at http://localhost:8080 (local development)',
      'info  providers  none enabled: people sign in with a password',
      'ok    passkeys   rp id localhost (the issuer host); origins http://localhost:8080',
      'ok    outbox     0 pending, 0 sent, 0 dead',
      `ok    delivery   SMTP relay localhost:${relay.port} (starttls)`,
      `ok    smtp       localhost:${relay.port} accepted TLS and the login`,
    ]);
  });

  test('fails on a relay password file that group or others can read, and on a missing one, naming the file', async () => {
    const config = smtpConfig(credentials.password);
    const file = config.delivery.smtp.password_file;
    chmodSync(file, 0o640);
    assert.equal(
      (await doctor(config)).at(-1),
      `fail  smtp       localhost:${relay.port}: Secret file ${file} is accessible to group or others (mode 640); run chmod 600 ${file}`,
    );
    rmSync(file);
    assert.equal(
      (await doctor(config)).at(-1),
      `fail  smtp       localhost:${relay.port}: delivery.smtp.password_file ${file} does not exist: \`gatehouse config delivery --smtp-password-stdin\` (or --smtp-password-file F) writes it`,
    );
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

  test('the development mailbox is reported as information: messages are kept, not sent', async () => {
    const config = makeConfig({
      secrets: { dir: secretsDir },
      self_service: { enabled: true },
      delivery: { kind: 'dev_mailbox' },
    });
    assert.equal(
      (await doctor(config)).at(-1),
      'info  delivery   development mailbox: messages are kept, not sent; read them on the console Mailbox page and the terminal',
    );
  });

  test('a webhook that answers is reachable; its query and credentials are never printed', async () => {
    const lines = await doctor(
      webhookConfig(`http://hook:s3cret-pass@127.0.0.1:${receiverPort}/gatehouse/in?token=s3cret-token`),
    );
    assert.deepEqual(lines.slice(-2), [
      `ok    delivery   webhook http://127.0.0.1:${receiverPort}`,
      `ok    webhook    http://127.0.0.1:${receiverPort}/gatehouse/in answers (HTTP 405 to HEAD)`,
    ]);
    assert.ok(!lines.join('\n').includes('s3cret'));
  });

  test('a webhook nobody listens at is a failure', async () => {
    const port = await freePort();
    const lines = await doctor(webhookConfig(`http://127.0.0.1:${port}/gatehouse?token=s3cret-token`));
    assert.equal(lines.at(-1), `fail  webhook    http://127.0.0.1:${port}/gatehouse is unreachable: ECONNREFUSED`);
    assert.ok(!lines.join('\n').includes('s3cret'));
  });

  test('direct MX with a readable key reports the DNS records', async () => {
    assert.deepEqual((await doctor(directMxConfig(dkimKeyFile), publishedDns)).slice(-5), [
      'ok    delivery   direct MX as mx1.acme.dev, DKIM gh2026._domainkey.acme.dev',
      'ok    PTR        mx1.acme.dev has address 198.51.100.7, whose PTR is mx1.acme.dev',
      'ok    SPF        acme.dev: v=spf1 ip4:198.51.100.7 -all',
      'ok    DKIM       gh2026._domainkey.acme.dev holds the configured key',
      'ok    DMARC      _dmarc.acme.dev: v=DMARC1; p=reject',
    ]);
  });

  test('direct MX with an unreadable or malformed DKIM key fails on the key and skips the DNS report', async () => {
    const missing = path.join(dir, 'missing.pem');
    assert.deepEqual((await doctor(directMxConfig(missing), publishedDns)).slice(-2), [
      'ok    delivery   direct MX as mx1.acme.dev, DKIM gh2026._domainkey.acme.dev',
      `fail  dkim key   cannot read ${missing} (ENOENT)`,
    ]);
    assert.deepEqual(
      (await doctor(directMxConfig(dir), publishedDns)).at(-1),
      `fail  dkim key   cannot read ${dir} (EISDIR)`,
    );
    assert.deepEqual(
      (await doctor(directMxConfig(notAKeyFile), publishedDns)).at(-1),
      `fail  dkim key   ${notAKeyFile} is not an RSA private key in PEM`,
    );
  });

  test('an unreachable database is a failure', async () => {
    const lines = (
      await runDoctor(loaded(smtpConfig(credentials.password)), {
        resolver: noDns,
        withDatabase: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1')),
      })
    ).map(formatCheck);
    assert.equal(
      lines[2],
      `fail  database   ${redactDatabaseUrl(database.url)} is unreachable: connect ECONNREFUSED 127.0.0.1:1`,
    );
  });

  test('an IP-address issuer leaves passkeys unavailable: a warning that says why and what to set', async () => {
    const config = smtpConfig(credentials.password);
    const lines = await doctor({ ...config, server: { ...config.server, issuer: 'http://127.0.0.1:8080' } });
    assert.deepEqual(
      lines.filter((line) => line.includes('passkeys')),
      [
        'warn  passkeys   unavailable: 127.0.0.1 is an IP address; passkeys need a domain name; set passkeys.rp_id or a domain issuer',
      ],
    );
  });

  test('an RP ID that is a public suffix of the issuer host stops doctor with exit 78 naming passkeys.rp_id', async () => {
    const file = writeCliConfig();
    writeFileSync(file, readFileSync(file, 'utf8').replace('http://localhost:8080', 'https://id.acme.dev'));
    appendFileSync(file, '[passkeys]\nrp_id = "dev"\n');
    const result = await runCli(['doctor', '--config', file]);
    assert.equal(result.code, 78, result.stderr);
    assert.equal(result.stdout, '');
    assert.match(
      result.stderr,
      /^gatehouse doctor: Invalid configuration in .*:\n {2}passkeys\.rp_id: .*"dev" is a public suffix/,
    );
  });
});
