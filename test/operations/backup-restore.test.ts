// `gatehouse backup` / `gatehouse restore` against real PostgreSQL: a database filled through the real app (an
// owner's session, a client, an authorization-code grant with its refresh-token family, signing keys, audit records),
// backed up, wiped, restored, and then used again by a fresh app with the same secrets.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { generateSecretFiles } from '../../src/crypto/secret-files.ts';
import { type Migration, readMigrations } from '../../src/db/migrate.ts';
import { createPool, type Sql } from '../../src/db/pool.ts';
import { createBackup } from '../../src/operations/backup.ts';
import { DERIVED_TABLES } from '../../src/operations/database-copy.ts';
import { OperationRefused } from '../../src/operations/errors.ts';
import { restoreBackup } from '../../src/operations/restore.ts';
import { listenerAnswers } from '../../src/operations/service-probe.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { scratchDir } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { makeAdmin, makeClient } from '../helpers/oauth-fixtures.ts';
import { postForm, refreshTokens, userTokens } from '../helpers/oauth-flow.ts';

/** Every table's row count and a digest of its rows: equal before the backup and after the restore. */
async function contents(sql: Sql): Promise<Record<string, string>> {
  const tables = await sql<{ name: string }[]>`
    select tablename as name from pg_tables where schemaname = current_schema() order by tablename`;
  const result: Record<string, string> = {};
  for (const { name } of tables) {
    const [row] = await sql<{ n: string; digest: string | null }[]>`
      select count(*)::text as n, md5(string_agg(t::text, '|' order by t::text)) as digest from ${sql(name)} t`;
    result[name] = `${row?.n} ${row?.digest}`;
  }
  return result;
}

async function filledInstallation() {
  const db = await createTestDatabase();
  const t = await startTestApp({ sql: db.sql });
  const admin = await makeAdmin(t);
  const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret);
  const tokens = await userTokens(t, { client, secret, cookie: admin.cookie });
  const refreshed = await refreshTokens(t, client, secret, tokens.refresh_token);
  assert.equal(refreshed.status, 200);
  const created = await t.app.inject({
    method: 'POST',
    url: '/admin/applications',
    headers: { cookie: admin.cookie, 'content-type': 'application/json', origin: t.config.server.issuer },
    payload: { identifier: 'billing', name: 'Billing', environment: 'production' },
  });
  assert.equal(created.statusCode, 201, created.body);
  const secretsDir = path.join(scratchDir('gatehouse-backup-secrets-'), 'secrets');
  generateSecretFiles(secretsDir);
  const configFile = path.join(path.dirname(secretsDir), 'gatehouse.toml');
  appendFileSync(configFile, '[server]\nissuer = "http://localhost:8080"\n');
  return {
    db,
    t,
    client,
    secret,
    refreshToken: refreshed.json.refresh_token as string,
    accessToken: refreshed.json.access_token as string,
    secretsDir,
    configFile,
  };
}

const notRunning = async () => null;

async function backupOf(sql: Sql, secretsDir: string, configFile: string | null, migrations = readMigrations()) {
  const archive = path.join(scratchDir('gatehouse-backups-'), 'gatehouse.backup.tar.gz');
  const steps: string[] = [];
  const result = await createBackup({
    sql,
    archive,
    configFile,
    secretsDir,
    migrations,
    progress: (s) => steps.push(`${s.done}/${s.total}`),
  });
  return { archive, result, steps };
}

describe('gatehouse backup and restore', () => {
  test('a backup restored into a wiped database gives back every table, and its sessions and tokens work again', async () => {
    const f = await filledInstallation();
    const before = await contents(f.db.sql);
    for (const table of ['identities', 'sessions', 'oauth_clients', 'oauth_grants', 'oauth_refresh_tokens'])
      assert.doesNotMatch(before[table] ?? '', /^0 /, `${table} has rows to back up`);
    const { archive, result, steps } = await backupOf(f.db.sql, f.secretsDir, f.configFile);

    assert.equal((statSync(archive).mode & 0o777).toString(8), '600');
    const digest = createHash('sha256').update(readFileSync(archive)).digest('hex');
    assert.equal(result.checksum, digest);
    assert.equal(readFileSync(`${archive}.sha256`, 'utf8'), `${digest}  gatehouse.backup.tar.gz\n`);
    // Tables a trigger fills from others are left out, and the restore's load of identities fills them again.
    assert.ok(DERIVED_TABLES.has('identity_name_words'));
    assert.doesNotMatch(before.identity_name_words ?? '', /^0 /, 'the words of display names are there');
    assert.equal(result.tables, Object.keys(before).length - DERIVED_TABLES.size);
    assert.equal(steps.at(-1), `${result.tables}/${result.tables}`);

    await f.t.app.close();
    await f.db.sql`drop schema public cascade`;
    await f.db.sql`create schema public`;
    assert.deepEqual(await contents(f.db.sql), {}, 'the database is empty');

    const secretsAfter = path.join(scratchDir('gatehouse-restored-'), 'secrets');
    const restored = await restoreBackup({
      sql: f.db.sql,
      archive,
      force: false,
      configFile: f.configFile,
      databaseUrl: f.db.url,
      secretsDir: secretsAfter,
      migrations: readMigrations(),
      running: notRunning,
    });
    assert.equal(restored.schema.kind, 'same');
    assert.equal(restored.rows, result.rows);
    assert.deepEqual(await contents(f.db.sql), before);
    assert.equal(
      readFileSync(path.join(secretsAfter, 'audit-chain.key'), 'utf8'),
      readFileSync(path.join(f.secretsDir, 'audit-chain.key'), 'utf8'),
    );
    assert.equal((statSync(path.join(secretsAfter, 'audit-chain.key')).mode & 0o777).toString(8), '600');
    assert.ok(restored.config?.previous && existsSync(restored.config.previous), 'the replaced config is kept');

    // A fresh pool and app (the old connections cached plans of the dropped tables), with the same secrets.
    const sql = createPool(f.db.url, { max: 3, connectTimeoutSeconds: 10 });
    const t: TestApp = await startTestApp({ sql });
    const introspected = await postForm(t, '/oauth/introspect', {
      client_id: f.client.id,
      client_secret: f.secret as string,
      token: f.accessToken,
    });
    assert.equal(introspected.json.active, true);
    const again = await refreshTokens(t, f.client, f.secret, f.refreshToken);
    assert.equal(again.status, 200, JSON.stringify(again.json));
    await t.app.close();
    await sql.end();
  });

  test('restore refuses an archive that does not match its checksum, and leaves the database alone', async () => {
    const f = await filledInstallation();
    const { archive } = await backupOf(f.db.sql, f.secretsDir, null);
    appendFileSync(archive, 'x');
    const before = await contents(f.db.sql);
    await assert.rejects(
      restoreBackup({
        sql: f.db.sql,
        archive,
        force: true,
        configFile: null,
        databaseUrl: '',
        secretsDir: f.secretsDir,
        migrations: readMigrations(),
        running: notRunning,
      }),
      (error: Error) =>
        error instanceof OperationRefused && /does not match its checksum.*nothing was restored/.test(error.message),
    );
    assert.deepEqual(await contents(f.db.sql), before);
    await f.t.app.close();
  });

  test('restore refuses while something answers on the service listener', async () => {
    const f = await filledInstallation();
    const { archive } = await backupOf(f.db.sql, f.secretsDir, null);
    const listening = await startTestApp({ sql: f.db.sql, listen: true });
    const listen = new URL(listening.url).host;
    await assert.rejects(
      restoreBackup({
        sql: f.db.sql,
        archive,
        force: true,
        configFile: null,
        databaseUrl: '',
        secretsDir: f.secretsDir,
        migrations: readMigrations(),
        running: () => listenerAnswers(listen),
      }),
      /the service is running \(http:\/\/127\.0\.0\.1:\d+\/health\/live answers \(HTTP 200\)\): stop it first/,
    );
    await listening.app.close();
    assert.equal(await listenerAnswers(listen), null, 'a closed listener counts as not running');
    await f.t.app.close();
  });

  test('a backup of an older schema is refused without --force, and with it restored and migrated forward', async () => {
    const f = await filledInstallation();
    await f.t.app.close();
    const { archive } = await backupOf(f.db.sql, f.secretsDir, null);
    const later: Migration = {
      version: 9999,
      name: 'later_release',
      file: '9999_later_release.sql',
      sql: 'create table later_release_marker (id integer primary key);',
      checksum: createHash('sha256').update('later').digest('hex'),
    };
    const newer = [...readMigrations(), later];
    const options = {
      sql: f.db.sql,
      archive,
      configFile: null,
      databaseUrl: '',
      secretsDir: f.secretsDir,
      migrations: newer,
      running: notRunning,
    };
    await assert.rejects(
      restoreBackup({ ...options, force: false }),
      /the backup's schema is older than this release's \(it lacks 9999_later_release\).*nothing was restored/,
    );
    const restored = await restoreBackup({ ...options, force: true });
    assert.deepEqual(restored.migratedForward, ['9999_later_release.sql']);
    const [marker] = await f.db.sql`select to_regclass('later_release_marker') as t`;
    assert.equal(marker?.t, 'later_release_marker');
  });

  test('a backup with a migration this release does not know is refused without --force', async () => {
    const f = await filledInstallation();
    await f.t.app.close();
    const { archive } = await backupOf(f.db.sql, f.secretsDir, null);
    const older = readMigrations().slice(0, -1);
    const last = readMigrations().at(-1) as Migration;
    await assert.rejects(
      restoreBackup({
        sql: f.db.sql,
        archive,
        force: false,
        configFile: null,
        databaseUrl: '',
        secretsDir: f.secretsDir,
        migrations: older,
        running: notRunning,
      }),
      new RegExp(`the backup's schema is not this release's \\(${last.file.replace('.sql', '')} unknown here\\)`),
    );
  });

  test('a database user that does not own the schema gets a clear refusal, and the database stays as it was', async () => {
    const f = await filledInstallation();
    await f.t.app.close();
    const { archive } = await backupOf(f.db.sql, f.secretsDir, null);
    const role = `gh_restore_${randomBytes(4).toString('hex')}`;
    await f.db.sql.unsafe(`create role ${role} login`);
    after(async () => {
      await f.db.sql.unsafe(`drop role if exists ${role}`).catch(() => {});
    });
    const url = new URL(f.db.url);
    url.username = role;
    const asRole = createPool(url.toString(), { max: 1, connectTimeoutSeconds: 10 });
    const before = await contents(f.db.sql);
    await assert.rejects(
      restoreBackup({
        sql: asRole,
        archive,
        force: false,
        configFile: null,
        databaseUrl: '',
        secretsDir: path.join(scratchDir('gatehouse-restored-'), 'secrets'),
        migrations: readMigrations(),
        running: notRunning,
      }),
      /^OperationRefused: the database user may not replace the schema \(must be owner of schema public\): restore as the database's owner; nothing was restored$/,
    );
    await asRole.end();
    assert.deepEqual(await contents(f.db.sql), before);
  });
});
