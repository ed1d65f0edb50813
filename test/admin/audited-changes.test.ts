// "Every change is audited" (issue 4) holds when the audit chain cannot be written: an administrative change commits
// together with its record (audit_pending), never without it, and the record joins a chain once chaining works again.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createAudit } from '../../src/audit/audit.ts';
import { verifyAuditChains } from '../../src/audit/verify.ts';
import { clientSecretMatches } from '../../src/oauth/client-secret.ts';
import { adminCaller, assertAdminError } from '../helpers/admin-api.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeAdmin } from '../helpers/oauth-fixtures.ts';

describe('administrative changes and their audit records', async () => {
  const t = await startTestApp();
  const admin = await makeAdmin(t);
  const call = adminCaller(t, admin.cookie);
  const app = await call('POST', '/admin/applications', {
    identifier: 'shop',
    name: 'Shop',
    environment: 'production',
  });

  const pending = async () =>
    (
      await t.sql<{ event: string; subject: string; details: Record<string, unknown> }[]>`
        select event, subject, details from audit_pending order by id`
    ).map((row) => ({ ...row }));

  /** Chained records about `subject`, in the order they were chained. */
  const chainedAbout = async (subject: string) =>
    (
      await t.sql<{ event: string; actor: string }[]>`
        select event, actor from audit_events where subject = ${subject} order by id`
    ).map((row) => [row.event, row.actor]);

  const countChained = async () => (await t.sql<{ n: number }[]>`select count(*)::int as n from audit_events`)[0]?.n;

  /** Runs `during` while every insert into `table` fails, as a full disk or a revoked privilege would make it. */
  async function withInsertsFailing(table: 'audit_events' | 'audit_pending', during: () => Promise<void>) {
    await t.sql.unsafe(`
      create function refuse_insert() returns trigger language plpgsql as $$
      begin raise exception 'insert refused for this test'; end $$`);
    await t.sql.unsafe(`create trigger refuse_insert before insert on ${table} execute function refuse_insert()`);
    try {
      await during();
    } finally {
      await t.sql.unsafe('drop function refuse_insert() cascade');
    }
  }

  test('a secret rotation whose record cannot be chained answers with the secret, and the record waits', async () => {
    const created = await call('POST', '/admin/clients', {
      application_id: app.json.id,
      name: 'Backend',
      kind: 'web',
      redirect_uris: ['https://shop.example.test/callback'],
      scopes: ['openid'],
    });
    const clientId = String(created.json.client_id);
    let rotated = created;
    await withInsertsFailing('audit_events', async () => {
      rotated = await call('POST', `/admin/clients/${clientId}/secret`, {});
    });

    assert.equal(rotated.status, 200, JSON.stringify(rotated.json));
    const secret = String(rotated.json.client_secret);
    const [row] = await t.sql<{ secret_hmac: string }[]>`select secret_hmac from oauth_clients where id = ${clientId}`;
    assert.ok(
      clientSecretMatches(t.secrets.clientSecret, secret, row?.secret_hmac as string),
      'the new secret is live',
    );
    assert.deepEqual(await chainedAbout(clientId), [['client.created', admin.sub]], 'not chained yet');
    assert.deepEqual(await pending(), [{ event: 'client.secret_rotated', subject: clientId, details: {} }]);
    assert.ok(!JSON.stringify(await pending()).includes(secret));
    const verified = await call('GET', '/admin/audit/verify');
    assert.equal(verified.json.ok, true);
    assert.equal(verified.json.pending_records, 1, 'verification says a record is not protected yet');
    assert.equal(typeof verified.json.oldest_pending_at, 'string');

    // The next chaining (here another node's) appends it, and every chain still verifies.
    assert.equal(await createAudit(t.sql, t.secrets.audit).chainPending(), 1);
    assert.deepEqual(await pending(), []);
    assert.deepEqual(await chainedAbout(clientId), [
      ['client.created', admin.sub],
      ['client.secret_rotated', admin.sub],
    ]);
    assert.deepEqual((await verifyAuditChains(t.sql, t.secrets.audit)).breaks, []);
  });

  test('a change whose record cannot be written does not happen', async () => {
    const unused = await call('POST', '/admin/applications', {
      identifier: 'old',
      name: 'Old',
      environment: 'staging',
    });
    const answers: number[] = [];
    await withInsertsFailing('audit_pending', async () => {
      const resource = { audience: 'https://orders.example.test/', name: 'Orders', scopes: ['read'] };
      answers.push((await call('POST', '/admin/resources', resource)).status);
      answers.push((await call('DELETE', `/admin/applications/${unused.json.id}`, {})).status);
    });

    assert.deepEqual(answers, [500, 500]);
    const orders = await t.sql`select 1 from oauth_resources where audience = 'https://orders.example.test/'`;
    assert.equal(orders.length, 0);
    assert.equal((await call('GET', `/admin/applications/${unused.json.id}`)).status, 200, 'still there');
    assert.deepEqual(await chainedAbout(String(unused.json.id)), [['application.created', admin.sub]]);
  });

  test('an answer does not wait for a stalled chaining, and the record is chained once the stall ends', {
    timeout: 30_000,
  }, async () => {
    const created = await call('POST', '/admin/resources', {
      audience: 'https://stock.example.test/',
      name: 'Stock',
      scopes: ['read'],
    });
    const resourceId = String(created.json.id);
    // A second connection holds the chain's table locked, as a stuck disk or a long lock would: chaining waits.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked = () => {};
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holder = t.sql.begin(async (tx) => {
      await tx`lock table audit_events in exclusive mode`;
      locked();
      await held;
    });
    await lockTaken;
    const renamed = await call('PATCH', `/admin/resources/${resourceId}`, { name: 'Stock levels' });
    assert.equal(renamed.status, 200, 'answered while the chain was still locked');
    assert.equal(renamed.json.name, 'Stock levels');
    release();
    await holder;

    // The chaining that was waiting goes on; the next change's chaining waits for it (one queue per node).
    await call('PATCH', `/admin/resources/${resourceId}`, { name: 'Stock' });
    assert.deepEqual(await chainedAbout(resourceId), [
      ['resource.created', admin.sub],
      ['resource.updated', admin.sub],
      ['resource.updated', admin.sub],
    ]);
    assert.deepEqual(await pending(), []);
  });

  test('a refused change leaves no record, pending or chained', async () => {
    const before = await countChained();
    const inUse = await call('DELETE', `/admin/applications/${app.json.id}`, {});
    assertAdminError(inUse, 409, 'application_in_use', 'The application still has clients; delete them first.');
    assert.equal((await call('POST', '/admin/clients/cli_missing/secret', {})).status, 404);
    assert.equal((await call('DELETE', '/admin/resources/res_missing', {})).status, 404);
    const same = await call('PUT', `/admin/organizations/acme/members/${admin.sub}`, { roles: ['owner'] });
    assert.equal(same.status, 200, JSON.stringify(same.json));
    const lastOwner = await call('DELETE', `/admin/organizations/acme/members/${admin.sub}`, {});
    assert.equal(lastOwner.status, 409);
    assert.deepEqual(await pending(), []);
    assert.equal(await countChained(), before);
  });

  test('two nodes chaining at once chain each pending record exactly once', async () => {
    const writer = createAudit(t.sql, t.secrets.audit);
    await t.sql.begin(async (tx) => {
      for (let i = 0; i < 250; i++) await writer.recordIn(tx, { event: 'test.change', subject: `sub_${i}` });
    });
    const [a, b] = [createAudit(t.sql, t.secrets.audit), createAudit(t.sql, t.secrets.audit)];
    const counts = await Promise.all([a.chainPending(), b.chainPending(), a.chainPending()]);
    assert.equal(
      counts.reduce((x, y) => x + y, 0),
      250,
    );
    const rows = await t.sql<{ chain: string; subject: string }[]>`
      select chain, subject from audit_events where event = 'test.change' order by chain, seq`;
    assert.equal(rows.length, 250);
    assert.equal(new Set(rows.map((r) => r.subject)).size, 250, 'each record once');
    // Within a chain, records keep the order their changes wrote them in.
    const order = (subject: string) => Number(subject.slice('sub_'.length));
    for (let i = 1; i < rows.length; i++) {
      const [earlier, later] = [rows[i - 1], rows[i]] as [(typeof rows)[0], (typeof rows)[0]];
      if (earlier.chain === later.chain) assert.ok(order(earlier.subject) < order(later.subject));
    }
    assert.deepEqual(await pending(), []);
    assert.deepEqual((await verifyAuditChains(t.sql, t.secrets.audit)).breaks, []);
  });
});
