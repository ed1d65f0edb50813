import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JSON_HEADERS } from '../../test/helpers/accounts.ts';
import { startTestApp } from '../../test/helpers/app.ts';
import { runCli, writeCliConfig } from '../../test/helpers/cli.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { ensureBootstrap } from '../identity/bootstrap.ts';

describe('gatehouse owner enroll-link', async () => {
  const db = await createTestDatabase();
  const configFile = writeCliConfig();
  const enrollLink = () => runCli(['owner', 'enroll-link', '--config', configFile, '--database-url', db.url]);
  const LINK = /^ {2}(http:\/\/localhost:8080\/enroll#token=([A-Za-z0-9_-]{43}))$/m;

  it('refuses with status 1 before setup created an owner', async () => {
    const result = await enrollLink();
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr,
      'gatehouse owner: this database has no installation yet; run `gatehouse setup` first\n',
    );
  });

  it('prints a fresh one-time link, and a new link kills the older one', async () => {
    await ensureBootstrap(db.sql, {
      organizationId: 'acme',
      organizationName: 'Acme',
      ownerSubject: 'owner@acme.test',
    });
    const first = await enrollLink();
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^Owner enrollment link \(one use, expires \d{4}-\d\d-\d\dT/);
    const firstToken = LINK.exec(first.stdout)?.[2];
    const second = await enrollLink();
    const secondToken = LINK.exec(second.stdout)?.[2];
    assert.ok(firstToken && secondToken && firstToken !== secondToken);

    const t = await startTestApp({ sql: db.sql });
    const enroll = (token: string) =>
      t.app.inject({
        method: 'POST',
        url: '/auth/enroll',
        headers: JSON_HEADERS,
        payload: { token, password: 'meadow copper lantern 12' },
      });
    assert.equal((await enroll(firstToken)).json().error, 'invalid_enrollment_token');
    assert.equal((await enroll(secondToken)).statusCode, 200);

    // Enrolled now: a link would reset the owner's password and TOTP, so it takes --reset.
    const refused = await enrollLink();
    assert.equal(refused.code, 1);
    assert.equal(refused.stdout, '');
    assert.equal(
      refused.stderr,
      'gatehouse owner: the initial owner owner@acme.test has already enrolled, and using a link would reset their password and TOTP: no link was issued. Pass --reset to issue one anyway\n',
    );
    const [{ links } = { links: -1 }] = await db.sql<{ links: number }[]>`
      select count(*)::int as links from enrollment_tokens where used_at is null`;
    assert.equal(links, 0, 'no usable link exists');
    const reset = await runCli(['owner', 'enroll-link', '--reset', '--config', configFile, '--database-url', db.url]);
    assert.equal(reset.code, 0, reset.stderr);
    const resetToken = LINK.exec(reset.stdout)?.[2] ?? '';
    assert.equal((await enroll(resetToken)).statusCode, 200, 'the reset link works');
  });

  it('answers a usage error with status 64', async () => {
    const result = await runCli(['owner', 'enroll', '--config', configFile]);
    assert.equal(result.code, 64);
    assert.match(
      result.stderr,
      /^gatehouse owner: unknown command 'enroll'\n.*`gatehouse owner --help` lists its commands/,
    );
  });
});
