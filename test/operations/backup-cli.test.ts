// `gatehouse backup` and `gatehouse restore` as the operator runs them: plain progress lines when not on a terminal,
// an archive `sha256sum -c` accepts, and one-line refusals with a non-zero exit.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../../src/config/load.ts';
import { redactDatabaseUrl } from '../../src/db/pool.ts';
import { freePort, runCli, writeCliConfig } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { makeIdentity } from '../helpers/oauth-fixtures.ts';

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function installation() {
  const db = await createTestDatabase();
  const port = await freePort();
  const configFile = writeCliConfig();
  const listen = `127.0.0.1:${port}`;
  writeFileSync(configFile, readFileSync(configFile, 'utf8').replace('[server]\n', `[server]\nlisten = "${listen}"\n`));
  const cli = (...args: string[]) => runCli([...args, '--config', configFile, '--database-url', db.url]);
  return { db, port, configFile, cli };
}

describe('gatehouse backup / restore commands', () => {
  test('backup writes a 0600 archive and a checksum sha256sum accepts; restore puts the rows back', async () => {
    const { db, configFile, cli } = await installation();
    const sub = await makeIdentity(db.sql, { email: 'kept@example.test' });
    const dir = scratchDir('gatehouse-backup-cli-');
    const archive = path.join(dir, 'nightly.tar.gz');
    // A copy an earlier release's `config providers` left beside the secrets is not one of them.
    const secrets = path.join(path.dirname(configFile), 'secrets');
    writeFileSync(path.join(secrets, 'provider-google.secret.bak-2026-05-01T12-00-00-000Z'), 'old\n', { mode: 0o600 });
    const backup = await cli('backup', archive);
    assert.equal(backup.code, 0, backup.stderr);
    const [, tables, rows] =
      /^Backed up (\d+) tables \((\d+) rows\), the configuration and the secret files to /.exec(backup.stdout) ?? [];
    assert.ok(Number(tables) > 20 && Number(rows) > 0, backup.stdout);
    assert.match(backup.stdout, /\nSHA-256 [0-9a-f]{64} \(stored in .*nightly\.tar\.gz\.sha256\)\n/);
    const progress = backup.stderr.split('\n').filter(Boolean);
    assert.equal(progress.length, Number(tables));
    assert.match(progress.at(-1) ?? '', new RegExp(`^backup: ${tables}/${tables} \\w+ \\(\\d+ rows\\)$`));
    assert.equal((statSync(archive).mode & 0o777).toString(8), '600');
    assert.equal(
      execFileSync('sha256sum', ['-c', 'nightly.tar.gz.sha256'], { cwd: dir, encoding: 'utf8' }),
      'nightly.tar.gz: OK\n',
    );
    const listed = execFileSync('tar', ['-tzf', archive], { encoding: 'utf8' }).split('\n');
    assert.ok(listed.includes('secrets/signing.key'), listed.join(' '));
    assert.ok(!listed.some((entry) => entry.includes('.bak-')), listed.join(' '));

    const again = await cli('backup', archive);
    assert.equal(again.code, 1);
    assert.equal(again.stderr, `gatehouse backup: ${archive} already exists; choose a new path for the backup\n`);

    await db.sql`delete from identities where id = ${sub}`;
    const restore = await cli('restore', archive);
    assert.equal(restore.code, 0, restore.stderr);
    assert.match(restore.stdout, /^Checksum verified \(SHA-256 [0-9a-f]{64}\)\nRestored \d+ tables/);
    assert.match(
      restore.stdout,
      new RegExp(`Restored the configuration to ${configFile} \\(the previous one is ${configFile}\\.before-restore-`),
    );
    // The backup's configuration named no database (the embedded server); the rows went into --database-url.
    assert.match(
      restore.stdout,
      new RegExp(
        `\ndatabase\\.url: set to ${literal(redactDatabaseUrl(db.url))}, the database restored into \\(the backup's configuration named the embedded server\\)\n`,
      ),
    );
    assert.equal(loadConfig({ configPath: configFile, env: {} }).config.database.url, db.url);
    const [back] = await db.sql`select count(*)::int as n from identities where id = ${sub}`;
    assert.equal(back?.n, 1);
  });

  test('restore --database-url into another database points the restored configuration at it, and says so', async () => {
    const { db, configFile } = await installation();
    appendFileSync(configFile, `[database]\nurl = "${db.url}" # the production database\n`);
    await makeIdentity(db.sql, { email: 'moved@example.test' });
    const archive = path.join(scratchDir('gatehouse-backup-cli-'), 'move.tar.gz');
    assert.equal((await runCli(['backup', archive, '--config', configFile])).code, 0);
    const other = await createTestDatabase();
    const restore = (url: string) => runCli(['restore', archive, '--config', configFile, '--database-url', url]);

    const moved = await restore(other.url);
    assert.equal(moved.code, 0, moved.stderr);
    assert.match(
      moved.stdout,
      new RegExp(
        `\ndatabase\\.url: set to ${literal(redactDatabaseUrl(other.url))}, the database restored into \\(the backup's configuration named ${literal(redactDatabaseUrl(db.url))}\\)\n`,
      ),
    );
    assert.equal(loadConfig({ configPath: configFile, env: {} }).config.database.url, other.url);
    assert.match(readFileSync(configFile, 'utf8'), /# the production database\n/, 'the comment stays');
    const [row] = await other.sql`select count(*)::int as n from emails where address = 'moved@example.test'`;
    assert.equal(row?.n, 1, 'the rows are in the database the configuration now names');

    const again = await restore(other.url);
    assert.equal(again.code, 0, again.stderr);
    assert.match(
      again.stdout,
      new RegExp(
        `\ndatabase\\.url: set to ${literal(redactDatabaseUrl(other.url))}, the database restored into \\(the backup's`,
      ),
      'the archive still names the first database',
    );
    const same = await runCli(['restore', archive, '--config', configFile, '--database-url', db.url]);
    assert.equal(same.code, 0, same.stderr);
    assert.match(
      same.stdout,
      new RegExp(`\ndatabase\\.url: kept ${literal(redactDatabaseUrl(db.url))}, the database restored into\n`),
    );
  });

  test('restore refuses while the service listener answers, and without the checksum file', async () => {
    const { db, port, cli } = await installation();
    await makeIdentity(db.sql);
    const archive = path.join(scratchDir('gatehouse-backup-cli-'), 'b.tar.gz');
    assert.equal((await cli('backup', archive)).code, 0);

    const service = createServer((_request, response) => response.end('{"status":"ok"}'));
    await new Promise<void>((resolve) => service.listen(port, '127.0.0.1', resolve));
    after(() => service.close());
    const running = await cli('restore', archive);
    assert.equal(running.code, 1);
    assert.equal(
      running.stderr,
      `gatehouse restore: the service is running (http://127.0.0.1:${port}/health/live answers (HTTP 200)): stop it first (systemctl stop gatehouse, or end the development instance); nothing was restored\n`,
    );
    await new Promise((resolve) => service.close(resolve));

    rmSync(`${archive}.sha256`);
    const unchecked = await cli('restore', archive);
    assert.equal(unchecked.code, 1);
    assert.equal(
      unchecked.stderr,
      `gatehouse restore: ${archive}.sha256 is missing: the checksum written with the backup is needed to check it\n`,
    );
    const usage = await cli('restore');
    assert.equal(usage.code, 64);
    assert.equal(
      usage.stderr,
      "gatehouse restore: missing required argument 'path'\n(`gatehouse restore --help` lists its options)\n",
    );
  });
});
