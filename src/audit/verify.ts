// Walks every audit chain and reports the first broken record of each: a changed row fails its HMAC, a deleted
// row leaves a sequence gap or a prev_hash that no longer matches, a deleted tail disagrees with the chain head.

import { constantTimeEqual } from '../crypto/primitives.ts';
import type { Sql } from '../db/pool.ts';
import { canonicalRecord, chainHash, GENESIS_HASH } from './chain.ts';
import { listChainHeads, pendingSummary, type StoredChainRow, walkAuditChains } from './store.ts';

export interface ChainBreak {
  chain: string;
  /** Row id of the first broken record, or null when the break is a missing tail. */
  id: string | null;
  seq: number;
  problem: string;
}

export interface AuditReport {
  chains: number;
  records: number;
  breaks: ChainBreak[];
  /** Records of committed changes not in a chain yet (audit_pending): until chained they carry no HMAC. */
  pending: { count: number; oldestAt: Date | null };
}

interface ChainState {
  seq: number;
  hash: string;
  broken: boolean;
}

export async function verifyAuditChains(sql: Sql, key: Buffer): Promise<AuditReport> {
  const states = new Map<string, ChainState>();
  const breaks: ChainBreak[] = [];
  let records = 0;
  for await (const rows of walkAuditChains(sql)) {
    for (const row of rows) {
      records += 1;
      const state = states.get(row.chain) ?? { seq: 0, hash: GENESIS_HASH, broken: false };
      states.set(row.chain, state);
      const seq = Number(row.seq);
      if (!state.broken) {
        const problem = checkRow(row, seq, state, key);
        if (problem) {
          breaks.push({ chain: row.chain, id: row.id, seq, problem });
          state.broken = true;
        }
      }
      state.seq = seq;
      state.hash = row.hash;
    }
  }
  for (const head of await listChainHeads(sql)) {
    const state = states.get(head.chain);
    if (state?.broken) continue;
    if (!state || state.seq !== head.seq || state.hash !== head.hash)
      breaks.push({
        chain: head.chain,
        id: null,
        seq: Number(head.seq),
        problem: `the chain head says record ${head.seq} is last, but the records end at ${state?.seq ?? 0}: records were deleted`,
      });
  }
  return { chains: states.size, records, breaks, pending: await pendingSummary(sql) };
}

function checkRow(row: StoredChainRow, seq: number, state: ChainState, key: Buffer): string | null {
  if (seq !== state.seq + 1) return `expected record ${state.seq + 1} next, found ${seq}: records were deleted`;
  if (row.prev_hash !== state.hash) return 'prev_hash does not match the previous record: the chain was altered';
  const expected = chainHash(
    key,
    row.prev_hash,
    canonicalRecord({
      chain: row.chain,
      seq,
      occurredAt: row.occurred_at.toISOString(),
      event: row.event,
      actor: row.actor,
      subject: row.subject,
      clientIp: row.client_ip,
      requestId: row.request_id,
      details: row.details,
    }),
  );
  return constantTimeEqual(expected, row.hash) ? null : 'the record was modified after it was written (HMAC mismatch)';
}
