// `npm start` on a machine with no configuration and no database URL: a development instance on an embedded
// PostgreSQL that answers /health/ready, holds the bootstrap organization and owner, then stops cleanly on SIGTERM.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { createPool } from '../src/db/pool.ts';
import { readInstallation } from '../src/identity/bootstrap.ts';
import { freePort, MAIN } from './helpers/cli.ts';
import { scratchDir } from './helpers/config.ts';

describe('development instance (no config, no DATABASE_URL)', () => {
  test('serves /health/ready from the embedded database, bootstraps the organization and owner, and stops on SIGTERM', async () => {
    const cwd = scratchDir();
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, GATEHOUSE_LISTEN: `127.0.0.1:${port}` };
    delete env.DATABASE_URL;
    delete env.GATEHOUSE_CONFIG;
    delete env.GATEHOUSE_LOG;
    const child = spawn(process.execPath, [MAIN, 'serve'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    const listening = new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
        if (stderr.includes('Gatehouse is listening')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`exited early with ${code}: ${stderr}`)));
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      await listening;
      // The development issuer follows GATEHOUSE_LISTEN, so the addresses printed are the ones that answer.
      assert.match(
        stderr,
        new RegExp(`\n {2}issuer: {2}http://localhost:${port}\n {2}console: http://localhost:${port}/admin/console\n`),
      );
      assert.equal((await fetch(`http://localhost:${port}/admin/console`)).status, 200);
      const discovery = await fetch(`http://localhost:${port}/.well-known/openid-configuration`);
      assert.equal(((await discovery.json()) as { issuer: string }).issuer, `http://localhost:${port}`);
      assert.match(stderr, /WARNING: the embedded PostgreSQL is for evaluation only/);
      assert.match(
        stderr,
        new RegExp(`Owner enrollment link \\(one use, .*\n {2}http://localhost:${port}/enroll#token=`),
      );
      const response = await fetch(`http://127.0.0.1:${port}/health/ready`);
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { status: 'ok' });
      assert.ok(existsSync(path.join(cwd, '.gatehouse/secrets/oidc-signing-key.pem')));

      // The embedded database the service logged (password redacted) holds the development organization and owner.
      // The JSON log is in .gatehouse/log; the terminal has the banner only.
      assert.equal(stdout, '');
      const logged = readFileSync(path.join(cwd, '.gatehouse/log'), 'utf8');
      const listeningLine = logged.split('\n').find((line) => line.includes('"msg":"listening"')) ?? '';
      const database = new URL(JSON.parse(listeningLine).database);
      database.password = encodeURIComponent(
        readFileSync(path.join(cwd, '.gatehouse/postgres-password'), 'utf8').trim(),
      );
      const sql = createPool(database.toString(), { max: 1, connectTimeoutSeconds: 10 });
      try {
        const installation = await readInstallation(sql);
        assert.deepEqual(
          {
            organizationId: installation?.organizationId,
            organizationName: installation?.organizationName,
            ownerSubject: installation?.ownerSubject,
          },
          { organizationId: 'dev', organizationName: 'Development', ownerSubject: 'owner@localhost' },
        );
        const [owner] = await sql`
          select i.assurance, i.state, m.roles from identities i
          join memberships m on m.identity_id = i.id and m.organization_id = 'dev'
          where i.id = ${installation?.ownerId ?? ''}`;
        assert.deepEqual({ ...owner }, { assurance: 'ial2', state: 'active', roles: ['owner'] });
      } finally {
        await sql.end({ timeout: 5 });
      }
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0);
    // The embedded server stopped with the service: no cluster location (preferred or root fallback) keeps a lock file.
    const dataDir = path.join(cwd, '.gatehouse');
    const fallback = `/var/tmp/gatehouse-embedded-${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}`;
    const clusters = [path.join(dataDir, 'postgres'), fallback].filter((dir) =>
      existsSync(path.join(dir, 'PG_VERSION')),
    );
    assert.equal(clusters.length, 1, 'exactly one cluster was created');
    assert.equal(existsSync(path.join(clusters[0] as string, 'postmaster.pid')), false);
    rmSync(fallback, { recursive: true, force: true });
  });
});
