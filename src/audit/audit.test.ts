import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { testSecrets } from '../../test/helpers/app.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { createAudit } from './audit.ts';
import { canonicalRecord, chainHash } from './chain.ts';
import { verifyAuditChains } from './verify.ts';

describe('audit.record and verifyAuditChains', async () => {
  const { sql } = await createTestDatabase();
  const key = testSecrets().audit;

  it('keeps one valid chain per writer under concurrent records, with the head at the last record', async () => {
    const nodeA = createAudit(sql, key);
    const nodeB = createAudit(sql, key);
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? nodeA : nodeB).record({
          event: 'signin.failed',
          subject: `usr_${i}`,
          clientIp: '192.0.2.1',
          requestId: `r${i}`,
          details: { attempt: i },
        }),
      ),
    );
    const report = await verifyAuditChains(sql, key);
    assert.deepEqual(report, { chains: 2, records: 40, breaks: [], pending: { count: 0, oldestAt: null } });
    const heads = await sql<{ seq: string }[]>`select seq::text from audit_chain_heads order by chain`;
    assert.deepEqual(
      heads.map((h) => h.seq),
      ['20', '20'],
    );
  });

  it('refuses to verify under another key', async () => {
    const report = await verifyAuditChains(sql, Buffer.alloc(32, 7));
    assert.equal(report.breaks.length, 2);
    assert.match(report.breaks[0]?.problem ?? '', /HMAC mismatch/);
  });

  it('continues the chain when an earlier append committed although the writer saw an error', async () => {
    const node = createAudit(sql, key);
    await node.record({ event: 'signin.succeeded', subject: 'usr_lost' });
    const [first] = await sql<{ chain: string; hash: string }[]>`
      select chain, hash from audit_events where subject = 'usr_lost'`;
    assert.ok(first);
    // The next append reached the database and committed, but its reply never arrived: memory still says seq 1.
    const lost = {
      chain: first.chain,
      seq: 2,
      occurredAt: new Date().toISOString(),
      event: 'signin.failed',
      actor: null,
      subject: 'usr_lost',
      clientIp: null,
      requestId: null,
      details: {},
    };
    const hash = chainHash(key, first.hash, canonicalRecord(lost));
    await sql`insert into audit_events (chain, seq, occurred_at, event, subject, details, prev_hash, hash)
              values (${lost.chain}, 2, ${lost.occurredAt}, ${lost.event}, ${lost.subject}, ${sql.json({})},
                      ${first.hash}, ${hash})`;
    await sql`update audit_chain_heads set seq = 2, hash = ${hash} where chain = ${lost.chain}`;

    await node.record({ event: 'session.revoked', subject: 'usr_lost' });
    await node.record({ event: 'signin.succeeded', subject: 'usr_lost' });
    const rows = await sql<{ seq: string; event: string }[]>`
      select seq::text, event from audit_events where chain = ${first.chain} order by seq`;
    assert.deepEqual(
      rows.map((r) => [r.seq, r.event]),
      [
        ['1', 'signin.succeeded'],
        ['2', 'signin.failed'],
        ['3', 'session.revoked'],
        ['4', 'signin.succeeded'],
      ],
    );
    const report = await verifyAuditChains(sql, key);
    assert.deepEqual(report.breaks, []);
  });
});
