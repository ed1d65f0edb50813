// `gatehouse users ...` run as the operator runs it (a child process with a config file) against real PostgreSQL:
// the same outcomes and audit records as the admin API's identity routes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TestClock } from '../helpers/app.ts';
import { runCli, writeCliConfig } from '../helpers/cli.ts';
import { makeConfig } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';

async function setup() {
  const db = await createTestDatabase();
  // The bootstrap organization writeCliConfig names (setup creates it on a real installation).
  await db.sql`insert into organizations (id, name) values ('acme', 'Acme')`;
  const configFile = writeCliConfig();
  const users = (...args: string[]) => runCli(['users', ...args, '--config', configFile, '--database-url', db.url]);
  const t = { sql: db.sql, clock: new TestClock(), config: makeConfig() };
  return { db, users, t };
}

async function auditOf(sql: import('../../src/db/pool.ts').Sql, event: string) {
  // Records of a change land in audit_pending in its transaction and move into the chain right after.
  return sql<{ actor: string; subject: string; details: Record<string, unknown> }[]>`
    select actor, subject, details from audit_events where event = ${event}
    union all
    select actor, subject, details from audit_pending where event = ${event}`;
}

describe('gatehouse users', () => {
  test('suspend by email address ends the sessions and is audited with the operator as actor', async () => {
    const { db, users, t } = await setup();
    const sub = await makeIdentity(db.sql, { email: 'grace@example.test', displayName: 'Grace Hopper' });
    await makeSession(t, sub);
    const r = await users('suspend', 'grace@example.test');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `Suspended ${sub}: 1 sessions and 0 OAuth grants ended\n`);
    const [identity] = await db.sql`select state from identities where id = ${sub}`;
    assert.equal(identity?.state, 'suspended');
    const [live] =
      await db.sql`select count(*)::int as n from sessions where identity_id = ${sub} and revoked_at is null`;
    assert.equal(live?.n, 0);
    const [record] = await auditOf(db.sql, 'identity.suspended');
    assert.match(record?.actor ?? '', /^operator:/);
    assert.equal(record?.subject, sub);
    assert.deepEqual(record?.details, { sessions_revoked: 1, grants_revoked: 0 });

    const again = await users('suspend', sub);
    assert.equal(again.code, 65);
    assert.equal(
      again.stderr,
      'gatehouse users: invalid_identity_state: The identity is suspended; it cannot be suspended\n',
    );
  });

  test('sign-out ends every session of an active identity and keeps it active', async () => {
    const { db, users, t } = await setup();
    const sub = await makeIdentity(db.sql);
    await makeSession(t, sub);
    await makeSession(t, sub);
    const r = await users('sign-out', sub);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `Signed out ${sub}: 2 sessions and 0 OAuth grants ended\n`);
    const [record] = await auditOf(db.sql, 'session.revoked_all');
    assert.equal(record?.subject, sub);
  });

  test('list prints one line per identity, newest first, and --json the admin API shape', async () => {
    const { db, users } = await setup();
    const older = await makeIdentity(db.sql, { email: 'older@example.test', displayName: 'Older' });
    const newer = await makeIdentity(db.sql, { email: 'newer@example.test', displayName: 'Newer' });
    await db.sql`update identities set created_at = now() - interval '1 hour' where id = ${older}`;
    // Older has a way to sign in (it accepted its invitation); Newer has none yet, so it is listed as invited.
    await db.sql`insert into sign_in_methods (identity_id, kind, provider, external_subject)
                 values (${older}, 'password', 'local', 'older@example.test')`;
    const r = await users('list');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout,
      `${newer}\tinvited\tial1\tnewer@example.test\tNewer\n${older}\tactive\tial1\tolder@example.test\tOlder\n`,
    );
    const json = await users('list', '--json', '--search', 'old');
    assert.deepEqual(
      (JSON.parse(json.stdout) as { sub: string; email: string }[]).map((u) => [u.sub, u.email]),
      [[older, 'older@example.test']],
    );
  });

  test('invite creates the identity and shows the one-use link when no delivery is configured', async () => {
    const { db, users } = await setup();
    const r = await users('invite', 'alan@example.test', '--name', 'Alan Turing', '--role', 'admin', '--json');
    assert.equal(r.code, 0, r.stderr);
    const invited = JSON.parse(r.stdout);
    assert.equal(invited.email, 'alan@example.test');
    assert.deepEqual(invited.roles, ['admin']);
    assert.equal(invited.enrollment.delivery, 'shown');
    assert.match(invited.enrollment.url, /^http:\/\/localhost:8080\//);
    const listed = await users('list', '--search', 'alan@example.test');
    assert.match(listed.stdout, new RegExp(`^${invited.sub}\tinvited\tial1\talan@example.test\tAlan Turing\n$`));
    const [member] = await db.sql`select roles from memberships where identity_id = ${invited.sub}`;
    assert.deepEqual(member?.roles, ['admin']);
    const [record] = await auditOf(db.sql, 'identity.invited');
    assert.equal(record?.subject, invited.sub);

    const taken = await users('invite', 'alan@example.test');
    assert.equal(taken.code, 65);
    assert.equal(taken.stderr, 'gatehouse users: email_taken: An account with this email address already exists.\n');
  });

  test('invite says where the link went: shown once here without delivery', async () => {
    const { users } = await setup();
    const r = await users('invite', 'ada@example.test');
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /\nEnrollment link \(shown only now, as message delivery is not configured; pass it on privately; it works once and expires [^)]+\):\n {2}http:\/\/localhost:8080\/enroll\?return_to=%2Fsettings#token=[\w-]{43}\n$/,
    );
    assert.doesNotMatch(r.stdout, /emailed/);
  });

  test('invite with the development mailbox says the link is in the mailbox, not that it was emailed', async () => {
    const db = await createTestDatabase();
    await db.sql`insert into organizations (id, name) values ('acme', 'Acme')`;
    const configFile = writeCliConfig({ extra: ['[delivery]', 'kind = "dev_mailbox"'] });
    const r = await runCli(['users', 'invite', 'ada@example.test', '--config', configFile, '--database-url', db.url]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /\nThe enrollment link is in the development mailbox \(nothing was sent\): find it on the console's Mailbox page or in the server's terminal; it works once and expires \S+\.\n$/,
    );
    assert.doesNotMatch(r.stdout, /emailed|https?:\/\//, 'neither "emailed" nor the link itself');
    const [queued] = await db.sql`select template, recipient from outbox_messages`;
    assert.deepEqual({ ...queued }, { template: 'invitation', recipient: 'ada@example.test' });
  });

  test("bad input is refused with the admin API schema's words; bad usage names the help to read", async () => {
    const { users } = await setup();
    const badRole = await users('invite', 'ok@example.test', '--role', 'Not A Role');
    assert.equal(badRole.code, 65);
    assert.equal(
      badRole.stderr,
      'gatehouse users: invalid_request: Roles, entry 1: must match pattern "^[a-z0-9][a-z0-9_.:-]{0,63}$".\n',
    );
    const unknown = await users('suspend', 'nobody@example.test');
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr, 'gatehouse users: no identity has the email address nobody@example.test\n');
    const usage = await users('promote', 'x');
    assert.equal(usage.code, 64);
    assert.equal(
      usage.stderr,
      "gatehouse users: unknown command 'promote'\n(`gatehouse users --help` lists its commands)\n",
    );
    const noEmail = await users('invite');
    assert.equal(noEmail.code, 64);
    assert.equal(
      noEmail.stderr,
      "gatehouse users invite: missing required argument 'email'\n(`gatehouse users invite --help` lists its options)\n",
    );
    const badLimit = await users('list', '--limit', '0');
    assert.equal(badLimit.code, 64);
    assert.equal(badLimit.stderr, 'gatehouse users: --limit must be a whole number above 0\n');
  });
});
