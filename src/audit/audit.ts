// The audit API every module calls: audit.record(event). Records form an HMAC chain per process (DESIGN.md
// "Audit chain"): this node appends to its own chain, so writers never contend on a global lock, and
// `gatehouse audit verify` walks every chain. Never pass a secret in `details`: records are for operators.
// An administrative change instead writes its record in the change's transaction (recordIn), into audit_pending,
// and chainPending() moves it into the chain after the commit: a change never commits without its record.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Executor, Sql } from '../db/pool.ts';
import { type ChainRecord, canonicalRecord, chainHash, GENESIS_HASH } from './chain.ts';
import {
  appendAuditRecord,
  findChainHead,
  insertPendingRecord,
  type PendingRecord,
  takePendingRecords,
} from './store.ts';

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
  /** Writes the record in the caller's transaction (audit_pending); chainPending() chains it after the commit. */
  recordIn(tx: Executor, event: AuditEvent): Promise<void>;
  /** Moves every pending record, this node's or another's, into this node's chain; resolves to how many. */
  chainPending(): Promise<number>;
}

/** Pending records chained per transaction. */
const PENDING_BATCH = 100;

const isUniqueViolation = (error: unknown) => (error as { code?: string } | null)?.code === '23505';

const newChainName = () => `${hostname()}:${process.pid}:${randomBytes(6).toString('base64url')}`;

export function createAudit(sql: Sql, key: Buffer, clock: () => Date = () => new Date()): Audit {
  let chain = newChainName();
  let seq = 0;
  let prevHash = GENESIS_HASH;
  // Appends are serialized within the process so each record's prev_hash is its predecessor's hash.
  let tail: Promise<void> = Promise.resolve();

  const pendingRecord = (event: AuditEvent, occurredAt: string): PendingRecord => ({
    occurredAt,
    event: event.event,
    actor: event.actor ?? null,
    subject: event.subject ?? null,
    clientIp: event.clientIp ?? null,
    requestId: event.requestId ?? null,
    details: event.details ?? {},
  });

  async function insert(event: AuditEvent, occurredAt: string): Promise<void> {
    const record: ChainRecord = { chain, seq: seq + 1, ...pendingRecord(event, occurredAt) };
    const hash = chainHash(key, prevHash, canonicalRecord(record));
    await appendAuditRecord(sql, record, prevHash, hash);
    seq = record.seq;
    prevHash = hash;
  }

  /**
   * One transaction: take a batch of pending records and append them to the chain. Memory moves to the new head only
   * after the commit, so a rollback leaves both the chain and its pending records as they were.
   */
  async function chainBatch(): Promise<number> {
    let nextSeq = seq;
    let nextHash = prevHash;
    const chained = await sql.begin(async (tx) => {
      const pending = await takePendingRecords(tx, PENDING_BATCH);
      for (const item of pending) {
        const record: ChainRecord = { chain, seq: nextSeq + 1, ...item };
        const hash = chainHash(key, nextHash, canonicalRecord(record));
        await appendAuditRecord(tx, record, nextHash, hash);
        nextSeq = record.seq;
        nextHash = hash;
      }
      return pending.length;
    });
    seq = nextSeq;
    prevHash = nextHash;
    return chained;
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

  /** Runs `write` once more from the database's head when memory was behind it (see resynchronize). */
  async function withResync<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      await resynchronize();
      return await write();
    }
  }

  /** Appends are serialized within the process: each waits for the one before it, failed or not. */
  function serialized<T>(write: () => Promise<T>): Promise<T> {
    const result = tail.then(write);
    tail = result.then(
      () => {},
      () => {},
    );
    return result;
  }

  return {
    record(event) {
      const occurredAt = clock().toISOString();
      return serialized(() => withResync(() => insert(event, occurredAt)));
    },
    recordIn: (tx, event) => insertPendingRecord(tx, pendingRecord(event, clock().toISOString())),
    // Each batch queues on its own, so sign-in records interleave with a long backlog instead of waiting it out.
    async chainPending() {
      let total = 0;
      for (;;) {
        const chained = await serialized(() => withResync(chainBatch));
        total += chained;
        if (chained < PENDING_BATCH) return total;
      }
    },
  };
}
