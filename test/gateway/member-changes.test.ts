// A person's roles, IAL and state as the gateway sees them: cached per node, and changed for the next request on
// every node once the change's notification arrives. The console's admin API makes each change on node A; the
// requests go through the gateway of node B, which shares only the database with A.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { createPool } from '../../src/db/pool.ts';
import { memberKey } from '../../src/db/token-state-keys.ts';
import { TOKEN_STATE_CHANNEL } from '../../src/oauth/token-state-listener.ts';
import { adminCaller } from '../helpers/admin-api.ts';
import { TestClock } from '../helpers/app.ts';
import { makeAdmin, makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { userTokens } from '../helpers/oauth-flow.ts';
import { send } from '../helpers/over-socket.ts';
import { nextTokenStateEvent } from '../helpers/token-state.ts';
import { startUpstream } from '../helpers/upstream.ts';
import { databaseWithOrganization, gatewayConfig, policy, startGateway } from './fixtures.ts';

const envelopeOf = (body: string) => JSON.parse(body) as Record<string, unknown>;

describe('gateway: membership and identity changes made in the console', async () => {
  const upstream = await startUpstream();
  const db = await databaseWithOrganization();
  const config = gatewayConfig(upstream.port, [
    policy({ path_prefix: '/app/p/admin', required_roles: ['admin'] }),
    policy({ path_prefix: '/app/p/verified', minimum_assurance: 'ial2' }),
  ]);
  const clock = new TestClock();
  const nodeA = await startGateway(config, db.sql, clock);
  const poolB = createPool(db.url, { max: 5, connectTimeoutSeconds: 10 });
  after(() => poolB.end({ timeout: 5 }));
  const nodeB = await startGateway(config, poolB, clock);
  const admin = adminCaller(nodeA, (await makeAdmin(nodeA)).cookie);
  const { client, secret } = await makeClient(db.sql, nodeA.secrets.clientSecret);

  /** An ial2 member with the admin role, and an access token of theirs. */
  async function adminMember() {
    const sub = await makeIdentity(db.sql, { assurance: 'ial2' });
    await db.sql`insert into memberships (organization_id, identity_id, roles) values ('acme', ${sub}, ${['admin']})`;
    const { cookie } = await makeSession(nodeA, sub);
    const tokens = await userTokens(nodeA, { client, secret: secret as string, cookie });
    const call = (node: typeof nodeA, path: string) =>
      send(node, { method: 'GET', url: path, headers: { authorization: `Bearer ${tokens.access_token}` } });
    return { sub, call };
  }

  /** Resolves when node B's cache has dropped the person's facts; subscribe before the change. */
  const factsDropped = (sub: string) =>
    nextTokenStateEvent(nodeB.services.tokenStates, (e) => e.type === 'invalidated' && e.key === `member:${sub}`);

  test('a role taken away on node A is refused by node B on the next request', async () => {
    const person = await adminMember();
    assert.equal((await person.call(nodeB, '/app/p/admin/x')).statusCode, 200);
    assert.equal((await person.call(nodeB, '/app/p/admin/x')).statusCode, 200);
    const dropped = factsDropped(person.sub);
    const changed = await admin('PUT', `/admin/organizations/acme/members/${person.sub}`, { roles: ['viewer'] });
    assert.equal(changed.status, 200, JSON.stringify(changed.json));
    await dropped;
    const r = await person.call(nodeB, '/app/p/admin/x');
    assert.equal(r.statusCode, 403);
    assert.equal(envelopeOf(r.body).error, 'insufficient_role');
    assert.equal(upstream.received.at(-1)?.headers['x-gatehouse-roles'], 'admin');

    // Given back, it works again on the next request, and the upstream is told the new roles.
    const regained = factsDropped(person.sub);
    await admin('PUT', `/admin/organizations/acme/members/${person.sub}`, { roles: ['admin', 'viewer'] });
    await regained;
    assert.equal((await person.call(nodeB, '/app/p/admin/x')).statusCode, 200);
    assert.equal(upstream.received.at(-1)?.headers['x-gatehouse-roles'], 'admin,viewer');
  });

  test('removing the member from the organization is refused on the next request', async () => {
    const person = await adminMember();
    assert.equal((await person.call(nodeB, '/app/p/admin/x')).statusCode, 200);
    const dropped = factsDropped(person.sub);
    const removed = await admin('DELETE', `/admin/organizations/acme/members/${person.sub}`, {});
    assert.equal(removed.status, 204);
    await dropped;
    const r = await person.call(nodeB, '/app/p/admin/x');
    assert.equal(r.statusCode, 403);
    assert.equal(envelopeOf(r.body).error, 'insufficient_role');
  });

  test('an IAL lowered on node A fails an ial2 policy on node B on the next request', async () => {
    const person = await adminMember();
    assert.equal((await person.call(nodeB, '/app/p/verified/x')).statusCode, 200);
    const dropped = factsDropped(person.sub);
    const lowered = await admin('POST', `/admin/identities/${person.sub}/assurance`, { ial: 'ial1' });
    assert.equal(lowered.status, 200, JSON.stringify(lowered.json));
    await dropped;
    const r = await person.call(nodeB, '/app/p/verified/x');
    assert.equal(r.statusCode, 403);
    assert.equal(envelopeOf(r.body).error, 'insufficient_assurance');
  });

  test('a suspended person is refused on node B on the next request', async () => {
    const person = await adminMember();
    assert.equal((await person.call(nodeB, '/app/p/admin/x')).statusCode, 200);
    const dropped = factsDropped(person.sub);
    const suspended = await admin('POST', `/admin/identities/${person.sub}/suspend`, {});
    assert.equal(suspended.status, 200, JSON.stringify(suspended.json));
    await dropped;
    const r = await person.call(nodeB, '/app/p/admin/x');
    assert.equal(r.statusCode, 401);
    assert.equal(envelopeOf(r.body).error, 'invalid_token');
  });

  test('node A refuses on the next request before its own notification comes back', async () => {
    const person = await adminMember();
    const cache = nodeA.services.tokenStates;
    // A notification arriving during a read keeps that read from being stored: ask again until it is.
    for (let attempt = 0; cache.get(memberKey(person.sub)) === undefined; attempt++) {
      assert.ok(attempt < 10, "the person's facts were never cached");
      assert.equal((await person.call(nodeA, '/app/p/admin/x')).statusCode, 200);
    }
    const invalidate = cache.invalidate;
    cache.invalidate = () => {};
    try {
      const changed = await admin('PUT', `/admin/organizations/acme/members/${person.sub}`, { roles: ['viewer'] });
      assert.equal(changed.status, 200, JSON.stringify(changed.json));
      assert.equal((await person.call(nodeA, '/app/p/admin/x')).statusCode, 403);
      const lowered = await admin('POST', `/admin/identities/${person.sub}/assurance`, { ial: 'ial1' });
      assert.equal(lowered.status, 200, JSON.stringify(lowered.json));
      assert.equal((await person.call(nodeA, '/app/p/verified/x')).statusCode, 403);
    } finally {
      cache.invalidate = invalidate;
    }
  });

  test('node B answers from its cache: a change is seen when its notification arrives, not before', async () => {
    const person = await adminMember();
    assert.equal((await person.call(nodeB, '/app/p/admin/x')).statusCode, 200);
    // The same change as the console's, with this transaction's triggers off (superuser only): no notification.
    await db.sql.begin(async (tx) => {
      await tx`set local session_replication_role = replica`;
      await tx`update memberships set roles = '{}' where identity_id = ${person.sub}`;
    });
    assert.equal((await person.call(nodeB, '/app/p/admin/x')).statusCode, 200);
    const dropped = factsDropped(person.sub);
    await db.sql`select pg_notify(${TOKEN_STATE_CHANNEL}, ${`member:${person.sub}`})`;
    await dropped;
    assert.equal((await person.call(nodeB, '/app/p/admin/x')).statusCode, 403);
  });
});
