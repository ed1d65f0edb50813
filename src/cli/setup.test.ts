import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { runCli } from '../../test/helpers/cli.ts';
import { scratchDir } from '../../test/helpers/config.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { loadConfig } from '../config/load.ts';
import { SECRET_FILES } from '../crypto/secret-files.ts';
import { migrate } from '../db/migrate.ts';
import type { Sql } from '../db/pool.ts';
import { ensureBootstrap, readInstallation } from '../identity/bootstrap.ts';
import type { Sub } from '../identity/ids.ts';
import { insertSignInMethod, listSignInMethods } from '../identity/store.ts';
import {
  confirmTotp,
  PASSWORD_PROVIDER,
  upsertPasswordCredential,
  upsertPendingTotp,
} from '../login/local/credential-store.ts';

const mode = (file: string) => statSync(file).mode & 0o777;

function setupArgs(dir: string, url: string, overrides: Record<string, string> = {}): string[] {
  const flags = {
    config: path.join(dir, 'gatehouse.toml'),
    domain: 'id.acme.test',
    'org-name': 'Acme',
    'org-id': 'acme',
    owner: 'alice@acme.test',
    'database-url': url,
    ...overrides,
  };
  return ['setup', ...Object.entries(flags).flatMap(([k, v]) => [`--${k}`, v])];
}

const snapshot = (dir: string) =>
  Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(path.join(dir, f), 'utf8')]));

describe('gatehouse setup', () => {
  test('writes the config and every secret file with restricted modes, and bootstraps the owner', async () => {
    const dir = scratchDir();
    const { sql, url } = await createTestDatabase({ migrated: false });
    const result = await runCli(setupArgs(dir, url));
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Created organization acme with initial owner alice@acme.test/);

    const secrets = path.join(dir, 'secrets');
    assert.equal(mode(secrets), 0o700);
    const files = Object.values(SECRET_FILES)
      .map((s) => s.file)
      .sort();
    assert.deepEqual(readdirSync(secrets).sort(), files);
    for (const file of files) assert.equal(mode(path.join(secrets, file)), 0o600, file);
    assert.equal(mode(path.join(dir, 'gatehouse.toml')), 0o600);

    const { config } = loadConfig({ configPath: path.join(dir, 'gatehouse.toml'), env: {} });
    assert.equal(config.server.issuer, 'https://id.acme.test');
    assert.equal(config.organization.id, 'acme');
    assert.equal(config.organization.owner_subject, 'alice@acme.test');
    assert.equal(config.tls.mode, 'external', 'a reserved .test name must not default to the public ACME authority');

    const installation = await readInstallation(sql);
    assert.equal(installation?.organizationId, 'acme');
    assert.equal(installation?.setupCompleted, true);
    const [owner] = await sql`
      select i.assurance, i.state, m.roles from identities i join memberships m on m.identity_id = i.id
      where i.id = ${installation?.ownerId ?? ''}`;
    assert.deepEqual({ ...owner }, { assurance: 'ial2', state: 'active', roles: ['owner'] });
  });

  test('a public hostname defaults TLS to ACME', async () => {
    const dir = scratchDir();
    const { url } = await createTestDatabase({ migrated: false });
    const result = await runCli(setupArgs(dir, url, { domain: 'id.acme-corp.com' }));
    assert.equal(result.code, 0, result.stderr);
    assert.equal(loadConfig({ configPath: path.join(dir, 'gatehouse.toml'), env: {} }).config.tls.mode, 'acme');
  });

  test('a rerun keeps every secret and the owner, and backs up the config', async () => {
    const dir = scratchDir();
    const { sql, url } = await createTestDatabase({ migrated: false });
    assert.equal((await runCli(setupArgs(dir, url))).code, 0);
    const secretsBefore = snapshot(path.join(dir, 'secrets'));
    const ownerBefore = await readInstallation(sql);
    // A credential the owner set after setup must survive the rerun untouched.
    await sql`insert into sign_in_methods (identity_id, kind, provider, external_subject)
              values (${ownerBefore?.ownerId ?? ''}, 'password', 'local', 'alice@acme.test')`;

    const rerun = await runCli(setupArgs(dir, url));
    assert.equal(rerun.code, 0, rerun.stderr);
    assert.match(rerun.stdout, /Secret files in .*: 0 created, 9 kept/);
    assert.match(rerun.stdout, /already has organization acme and owner alice@acme.test: kept them/);
    assert.deepEqual(snapshot(path.join(dir, 'secrets')), secretsBefore);
    assert.deepEqual(await readInstallation(sql), ownerBefore);
    const methods = await sql`select identity_id from sign_in_methods`;
    assert.deepEqual(
      methods.map((r) => r.identity_id),
      [ownerBefore?.ownerId],
    );
    assert.ok(
      readdirSync(path.join(dir, 'config-backups')).some((f) => f.startsWith('gatehouse.toml.')),
      'the previous config is kept',
    );
  });

  test('after an interrupted setup the database is authoritative for the organization and owner', async () => {
    const dir = scratchDir();
    const { sql, url } = await createTestDatabase({ migrated: false });
    // The first run got as far as the database and died before writing the config.
    await migrate(sql);
    const first = await ensureBootstrap(sql, {
      organizationId: 'acme',
      organizationName: 'Acme',
      ownerSubject: 'alice@acme.test',
    });

    const rerun = await runCli(
      setupArgs(dir, url, { 'org-id': 'other', 'org-name': 'Other', owner: 'mallory@acme.test' }),
    );
    assert.equal(rerun.code, 0, rerun.stderr);
    assert.match(rerun.stdout, /already has organization acme and owner alice@acme.test: kept them/);
    const { config } = loadConfig({ configPath: path.join(dir, 'gatehouse.toml'), env: {} });
    assert.deepEqual({ ...config.organization }, { id: 'acme', name: 'Acme', owner_subject: 'alice@acme.test' });
    const installation = await readInstallation(sql);
    assert.equal(installation?.ownerId, first.ownerId);
    assert.equal(installation?.setupCompleted, true);
    const [{ n } = { n: -1 }] = await sql<{ n: number }[]>`select count(*)::int as n from identities`;
    assert.equal(n, 1, 'no second owner was created');
  });

  const refusals: [Record<string, string>, string][] = [
    [{ 'org-id': 'Not Valid' }, '--org-id must be 1-63 characters'],
    [{ owner: 'not-an-email' }, '--owner must be an email address'],
    [{ domain: 'https://id.acme.test/' }, '--domain "https://id.acme.test/" must be a host name'],
    [{ tls: 'maybe' }, "option '--tls <MODE>' argument 'maybe' is invalid. Allowed choices are acme, files, external."],
  ];
  for (const [flags, message] of refusals) {
    test(`refuses ${JSON.stringify(flags)} and writes nothing`, async () => {
      const dir = scratchDir();
      const result = await runCli(setupArgs(dir, 'postgres://127.0.0.1:1/none', flags));
      assert.equal(result.code, 64);
      assert.match(result.stderr, new RegExp(`gatehouse setup: ${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      assert.deepEqual(readdirSync(dir), []);
    });
  }

  const tablesIn = async (sql: Sql) =>
    (await sql<{ n: number }[]>`select count(*)::int as n from pg_tables where schemaname = 'public'`)[0]?.n;

  const configRefusals: [Record<string, string>, string][] = [
    [{ listen: 'everywhere' }, '--listen: must be host:port, e.g. 127.0.0.1:8080 or [::1]:8080'],
    [
      { tls: 'files' },
      '--tls-cert: is required when tls.mode is "files"; --tls-key: is required when tls.mode is "files"',
    ],
    [{ tls: 'files', 'tls-cert': '/etc/ssl/id.pem' }, '--tls-key: is required when tls.mode is "files"'],
  ];
  for (const [flags, message] of configRefusals) {
    test(`refuses ${JSON.stringify(flags)} before creating a secret or touching the database`, async () => {
      const dir = scratchDir();
      const { sql, url } = await createTestDatabase({ migrated: false });
      const result = await runCli(setupArgs(dir, url, flags));
      assert.equal(result.code, 64, result.stderr);
      assert.equal(result.stderr, `gatehouse setup: the configuration would be invalid: ${message}\n`);
      assert.deepEqual(readdirSync(dir), []);
      assert.equal(await tablesIn(sql), 0, 'no migration ran');
    });
  }

  test('refuses a database URL with another scheme before creating a secret', async () => {
    const dir = scratchDir();
    const result = await runCli(setupArgs(dir, 'mysql://127.0.0.1/gatehouse'));
    assert.equal(result.code, 64);
    assert.equal(
      result.stderr,
      'gatehouse setup: the configuration would be invalid: --database-url: must start with postgres:// or postgresql://\n',
    );
    assert.deepEqual(readdirSync(dir), []);
  });

  test('--tls files with --tls-cert and --tls-key writes both paths', async () => {
    const dir = scratchDir();
    const { url } = await createTestDatabase({ migrated: false });
    const result = await runCli(
      setupArgs(dir, url, { tls: 'files', 'tls-cert': '/etc/ssl/id.pem', 'tls-key': '/etc/ssl/id.key' }),
    );
    assert.equal(result.code, 0, result.stderr);
    const { config } = loadConfig({ configPath: path.join(dir, 'gatehouse.toml'), env: {} });
    assert.deepEqual(
      { mode: config.tls.mode, cert: config.tls.cert_file, key: config.tls.key_file },
      { mode: 'files', cert: '/etc/ssl/id.pem', key: '/etc/ssl/id.key' },
    );
  });

  test('the first setup prints an enrollment link and gives the owner no sign-in method', async () => {
    const dir = scratchDir();
    const { sql, url } = await createTestDatabase({ migrated: false });
    const result = await runCli(setupArgs(dir, url));
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      /Owner enrollment link \(one use, expires .*\n {2}https:\/\/id\.acme\.test\/enroll#token=[A-Za-z0-9_-]{43}\n/,
    );
    const installation = await readInstallation(sql);
    assert.deepEqual(await listSignInMethods(sql, installation?.ownerId as Sub), []);
  });

  test('a rerun after the owner enrolled prints no link and leaves the password and TOTP untouched', async () => {
    const dir = scratchDir();
    const { sql, url } = await createTestDatabase({ migrated: false });
    assert.equal((await runCli(setupArgs(dir, url))).code, 0);
    const ownerId = (await readInstallation(sql))?.ownerId as Sub;
    // The owner used the link: a password method with its hash and a confirmed authenticator.
    const { method } = await insertSignInMethod(sql, {
      identityId: ownerId,
      kind: 'password',
      provider: PASSWORD_PROVIDER,
      externalSubject: 'alice@acme.test',
    });
    await upsertPasswordCredential(sql, method.id, ownerId, '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA');
    await upsertPendingTotp(sql, ownerId, 'sealed-seed');
    await confirmTotp(sql, ownerId, 'sealed-seed', 7, new Date());
    const credentials = () => sql`
      select p.phc, t.sealed_seed, t.confirmed_at, t.last_used_step,
             (select count(*)::int from enrollment_tokens e where e.identity_id = p.identity_id) as links
      from password_credentials p join totp_credentials t using (identity_id)`;
    const before = await credentials();

    const rerun = await runCli(setupArgs(dir, url));
    assert.equal(rerun.code, 0, rerun.stderr);
    assert.doesNotMatch(rerun.stdout, /enroll#token=/);
    assert.match(
      rerun.stdout,
      /The initial owner is already enrolled: no new link was issued\. `gatehouse owner enroll-link` issues one/,
    );
    assert.deepEqual(await credentials(), before);
  });

  test('without a terminal, missing answers are named instead of prompted', async () => {
    const dir = scratchDir();
    const result = await runCli(['setup', '--config', path.join(dir, 'gatehouse.toml'), '--domain', 'id.acme.test']);
    assert.equal(result.code, 64);
    assert.match(result.stderr, /Missing --org-name, --org-id, --owner \(no terminal to ask on\)/);
  });
});
