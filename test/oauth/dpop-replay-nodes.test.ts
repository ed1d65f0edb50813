// Single use of DPoP proofs (RFC 9449 §11.1) across nodes: two apps with their own pools on one database, as two
// nodes behind a load balancer. Each node checks proofs in batches and remembers what it saw; neither may accept a
// proof the other already accepted, even when both get it at the same moment.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { createPool } from '../../src/db/pool.ts';
import { startTestApp, type TestApp, TestClock } from '../helpers/app.ts';
import { makeConfig } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { dpopKeys, followRealTime, proof } from '../helpers/dpop.ts';
import { makeServiceClient } from '../helpers/oauth-fixtures.ts';
import { assertEnvelope, postForm } from '../helpers/oauth-flow.ts';

describe('DPoP proofs are single use across nodes on one database', async () => {
  const db = await createTestDatabase();
  const clock = new TestClock();
  const config = makeConfig();
  const poolB = createPool(db.url, { max: 5, connectTimeoutSeconds: 10 });
  after(() => poolB.end({ timeout: 5 }));
  const nodeA = await startTestApp({ sql: db.sql, clock, config });
  const nodeB = await startTestApp({ sql: poolB, clock, config });
  followRealTime(clock);
  const service = await makeServiceClient(db.sql, nodeA.secrets.clientSecret, ['read']);
  const keys = await dpopKeys();
  const htu = `${config.server.issuer}/oauth/token`;

  const tokenRequest = (node: TestApp, dpop: string) =>
    postForm(
      node,
      '/oauth/token',
      {
        grant_type: 'client_credentials',
        client_id: service.client.id,
        client_secret: service.secret,
        scope: 'read',
        resource: service.resource.audience,
      },
      { dpop },
    );
  const refusedAsReplay = (r: Awaited<ReturnType<typeof tokenRequest>>) =>
    assertEnvelope(r, 400, 'invalid_dpop_proof', 'The DPoP proof was already used (jti)');

  test('a proof used on node A is refused on node B, and one used on B is refused on A', async () => {
    const first = await proof(keys, { htm: 'POST', htu });
    const onA = await tokenRequest(nodeA, first);
    assert.equal(onA.status, 200, JSON.stringify(onA.json));
    assert.equal(onA.json.token_type, 'DPoP');
    refusedAsReplay(await tokenRequest(nodeB, first));
    refusedAsReplay(await tokenRequest(nodeA, first));

    const second = await proof(keys, { htm: 'POST', htu });
    assert.equal((await tokenRequest(nodeB, second)).status, 200);
    refusedAsReplay(await tokenRequest(nodeA, second));
  });

  test('proofs sent to both nodes at the same moment are each accepted exactly once', async () => {
    const proofs = await Promise.all(Array.from({ length: 24 }, () => proof(keys, { htm: 'POST', htu })));
    // Every proof goes to both nodes at once, so both nodes' statements carry all of them concurrently.
    const answers = await Promise.all(
      proofs.map(async (dpop) => await Promise.all([tokenRequest(nodeA, dpop), tokenRequest(nodeB, dpop)])),
    );
    for (const pair of answers) {
      const accepted = pair.filter((r) => r.status === 200);
      assert.equal(accepted.length, 1, JSON.stringify(pair.map((r) => r.json)));
      refusedAsReplay(pair.find((r) => r.status !== 200) as (typeof pair)[number]);
    }
    // Only proofs use the store in this test: every row is one of theirs.
    const [stored] = await db.sql`select count(*)::int as n from oauth_used_jtis`;
    assert.ok((stored?.n as number) >= proofs.length);
  });

  test('a proof sent twice to one node at the same moment is accepted once', async () => {
    const dpop = await proof(keys, { htm: 'POST', htu });
    const pair = await Promise.all([tokenRequest(nodeA, dpop), tokenRequest(nodeA, dpop)]);
    assert.deepEqual(pair.map((r) => r.status).sort(), [200, 400]);
    refusedAsReplay(pair.find((r) => r.status === 400) as (typeof pair)[number]);
  });
});
