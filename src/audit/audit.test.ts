import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { testSecrets } from '../../test/helpers/app.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { createAudit } from './audit.ts';
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
    assert.deepEqual(report, { chains: 2, records: 40, breaks: [] });
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
});
