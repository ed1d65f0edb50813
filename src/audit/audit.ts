// The audit API every module calls: audit.record(event). Records form an HMAC chain per process (DESIGN.md
// "Audit chain"): this node appends to its own chain, so writers never contend on a global lock, and
// `gatehouse audit verify` walks every chain. Never pass a secret in `details`: records are for operators.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Sql } from '../db/pool.ts';
import { canonicalRecord, chainHash, GENESIS_HASH } from './chain.ts';
import { appendAuditRecord, findChainHead } from './store.ts';

export interface AuditEvent {
  /** Dotted event name, e.g. `signin.succeeded`, `session.revoked`, `client.created`. */
  event: string;
  /** Who did it: an identity sub, a client id, `system`, or null when unknown. */
  actor?: string | null;
  /** What it was done to. */
  subject?: string | null;
  clientIp?: string | null;
  requestId?: string | null;
  details?: Record<string, string | number | boolean | null>;
}

export interface Audit {
  record(event: AuditEvent): Promise<void>;
}

const isUniqueViolation = (error: unknown) => (error as { code?: string } | null)?.code === '23505';

const newChainName = () => `${hostname()}:${process.pid}:${randomBytes(6).toString('base64url')}`;

export function createAudit(sql: Sql, key: Buffer, clock: () => Date = () => new Date()): Audit {
  let chain = newChainName();
  let seq = 0;
  let prevHash = GENESIS_HASH;
  // Appends are serialized within the process so each record's prev_hash is its predecessor's hash.
  let tail: Promise<void> = Promise.resolve();

  async function insert(event: AuditEvent, occurredAt: string): Promise<void> {
    const record = {
      chain,
      seq: seq + 1,
      occurredAt,
      event: event.event,
      actor: event.actor ?? null,
      subject: event.subject ?? null,
      clientIp: event.clientIp ?? null,
      requestId: event.requestId ?? null,
      details: event.details ?? {},
    };
    const hash = chainHash(key, prevHash, canonicalRecord(record));
    await appendAuditRecord(sql, record, prevHash, hash);
    seq = record.seq;
    prevHash = hash;
  }

  /**
   * After a unique violation on (chain, seq) the database is ahead of memory: an earlier append committed although
   * this process saw an error (a connection lost after COMMIT). The head row moved with it, so continue from there;
   * without a head, start a fresh chain rather than guess.
   */
  async function resynchronize(): Promise<void> {
    const head = await findChainHead(sql, chain);
    if (head) {
      seq = head.seq;
      prevHash = head.hash;
    } else {
      chain = newChainName();
      seq = 0;
      prevHash = GENESIS_HASH;
    }
  }

  async function append(event: AuditEvent): Promise<void> {
    const occurredAt = clock().toISOString();
    try {
      await insert(event, occurredAt);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      await resynchronize();
      await insert(event, occurredAt);
    }
  }

  return {
    record(event) {
      const result = tail.then(() => append(event));
      tail = result.catch(() => {});
      return result;
    },
  };
}
