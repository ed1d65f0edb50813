// GET /admin/audit/verify: the chain verification `gatehouse audit verify` runs, as JSON. It reads and HMACs every
// record, so its cost grows with the log; concurrent requests on a node share one walk instead of starting more.
import type { Sql } from '../db/pool.ts';
import { type ChainBreak, verifyAuditChains } from './verify.ts';

export interface BrokenRecord {
  chain: string;
  seq: number;
  /** Row id of the broken record (as in GET /admin/audit), or null when the chain's tail was deleted. */
  record_id: string | null;
  reason: string;
}

export interface ChainStatus {
  ok: boolean;
  chains: number;
  records: number;
  checked_at: string;
  /** The first break found (chains in name order), or null when every chain verified. */
  first_broken: BrokenRecord | null;
  /** The first break of each broken chain. */
  breaks: BrokenRecord[];
  /** Records of committed changes waiting to join a chain, unprotected by any HMAC until they do. */
  pending_records: number;
  oldest_pending_at: string | null;
}

const toWire = (b: ChainBreak): BrokenRecord => ({ chain: b.chain, seq: b.seq, record_id: b.id, reason: b.problem });

export function createChainVerifier(sql: Sql, key: Buffer, clock: () => Date): () => Promise<ChainStatus> {
  let running: Promise<ChainStatus> | null = null;
  const walk = async (): Promise<ChainStatus> => {
    const checkedAt = clock().toISOString();
    const report = await verifyAuditChains(sql, key);
    const breaks = report.breaks.map(toWire);
    return {
      ok: breaks.length === 0,
      chains: report.chains,
      records: report.records,
      checked_at: checkedAt,
      first_broken: breaks[0] ?? null,
      breaks,
      pending_records: report.pending.count,
      oldest_pending_at: report.pending.oldestAt?.toISOString() ?? null,
    };
  };
  return () => {
    running ??= walk().finally(() => {
      running = null;
    });
    return running;
  };
}
