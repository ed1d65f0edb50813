import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { makeConfig, smtpPasswordFile } from '../../test/helpers/config.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { readMigrations } from '../db/migrate.ts';
import type { DnsResolver } from '../delivery/dns-report.ts';
import { collectStatus, type StatusDeps, statusChecks } from './report.ts';

const noDns: DnsResolver = {
  resolveMx: () => Promise.reject(new Error('no DNS in tests')),
  resolveTxt: () => Promise.reject(new Error('no DNS in tests')),
  resolve4: () => Promise.reject(new Error('no DNS in tests')),
  reverse: () => Promise.reject(new Error('no DNS in tests')),
};

describe('collectStatus', async () => {
  const { sql } = await createTestDatabase();
  // A relay that accepts connections and never greets: the SMTP check would wait for its own 30 s timeout.
  const sockets = new Set<Socket>();
  const silent = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  after(() => {
    for (const socket of sockets) socket.destroy();
    silent.close();
  });
  const port = (silent.address() as { port: number }).port;
  const now = new Date('2026-05-01T10:00:00Z');
  const deps = (overrides: Partial<StatusDeps> = {}): StatusDeps => ({
    config: makeConfig(),
    withDatabase: (work) => work(sql),
    keyring: null,
    migrations: readMigrations(),
    resolver: noDns,
    checkTimeoutMs: 50,
    clock: () => now,
    ...overrides,
  });

  it('reports a relay that does not answer within the timeout as a failure, without waiting for it', async () => {
    const config = makeConfig({
      delivery: {
        kind: 'smtp',
        from: 'no-reply@acme.dev',
        smtp: { host: '127.0.0.1', port, username: 'mailer', password_file: smtpPasswordFile('relay-password-7Qx') },
      },
    });
    const report = await collectStatus(deps({ config }));
    assert.equal(report.delivery.state, 'ready');
    assert.deepEqual(report.delivery.checks.slice(1), [
      { status: 'ok', name: 'delivery', detail: `SMTP relay 127.0.0.1:${port} (starttls)` },
      { status: 'fail', name: 'smtp', detail: 'no answer within 50 ms' },
    ]);
    assert.equal(report.status, 'fail');
  });

  it('reports an unreachable database, and signing keys as unknown because of it', async () => {
    const report = await collectStatus(
      deps({ withDatabase: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1')) }),
    );
    assert.deepEqual(report.database, {
      status: 'fail',
      checks: [
        { status: 'fail', name: 'database', detail: 'embedded is unreachable: connect ECONNREFUSED 127.0.0.1:1' },
      ],
      reachable: false,
      location: 'embedded',
      server_version: null,
      migrations: null,
    });
    assert.deepEqual(report.signing_keys.checks, [
      { status: 'fail', name: 'keys', detail: 'unknown: the database is unreachable' },
    ]);
    assert.deepEqual(
      statusChecks(report).map((c) => c.name),
      ['database', 'keys', 'tls', 'providers', 'passkeys', 'delivery'],
    );
  });

  it('names pending migrations and reports keys as unknown when the secrets cannot be read', async () => {
    const extra = { version: 9999, name: 'future', file: '9999_future.sql', sql: '', checksum: '' };
    const report = await collectStatus(deps({ migrations: [...readMigrations(), extra] }));
    assert.deepEqual(report.database.migrations?.pending, ['9999_future.sql']);
    assert.equal(report.database.status, 'warn');
    assert.deepEqual(report.signing_keys.checks, [
      { status: 'fail', name: 'keys', detail: 'unknown: the secrets directory cannot be read' },
    ]);
  });
});
