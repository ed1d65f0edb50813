// What every admin operation needs: its dependencies and who is acting, for the audit record.

import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Audit } from '../audit/audit.ts';
import type { Sql, Transaction } from '../db/pool.ts';
import type { Outbox } from '../delivery/outbox.ts';
import type { LinkDelivery } from '../delivery/status.ts';
import type { Locale } from '../i18n/locales.ts';

export interface AdminDeps {
  sql: Sql;
  audit: Audit;
  clock: () => Date;
  /** Key of the client-secret HMAC. */
  clientSecretKey: Buffer;
  /** The bootstrap organization: its owners administer the service, so it must keep one. */
  organizationId: string;
  /** The OAuth issuer: the audience of user access tokens, so no resource may take it. */
  issuer: string;
  /** How long an access token lives: a grant without refresh token gives access that long (granted-access.ts). */
  accessTokenTtlSeconds: number;
  log: Pick<FastifyBaseLogger, 'warn'>;
  /**
   * Invitations and reset links: where they go (mailed, the development mailbox, or shown once), the outbox, and the
   * language of a message to someone who has chosen none (the administrator's browser says nothing about the
   * recipient's: the organization's default).
   */
  invitations: { delivery: LinkDelivery; outbox: Outbox; defaultLocale: Locale };
}

export interface Actor {
  sub: string;
  clientIp: string;
  requestId: string;
}

export interface AuditedChange {
  event: string;
  subject: string;
  details?: Record<string, string | number | boolean | null>;
}

/** How long an answer waits for its record to join the chain before it goes out anyway (the chaining goes on). */
export const CHAIN_WAIT_MS = 2000;

/**
 * Runs `change` in one transaction with its audit record, so a change never commits without one: `describe` names
 * the record from the change's outcome, or returns null for an outcome that changed nothing (a refusal). After the
 * commit the record joins this node's chain, so GET /admin/audit shows it at once. A failed or stalled chaining does
 * not hold the answer (a new client secret, say) back: the record waits in audit_pending for the next chaining, at
 * any node's next change or start, or in hourly housekeeping.
 */
export async function changeAudited<T>(
  deps: AdminDeps,
  actor: Actor,
  change: (tx: Transaction) => Promise<T>,
  describe: (outcome: T) => AuditedChange | null,
): Promise<T> {
  let recorded = false;
  const outcome = (await deps.sql.begin(async (tx) => {
    const result = await change(tx);
    const record = describe(result);
    recorded = record !== null;
    if (record)
      await deps.audit.recordIn(tx, {
        event: record.event,
        actor: actor.sub,
        subject: record.subject,
        clientIp: actor.clientIp,
        requestId: actor.requestId,
        details: record.details ?? {},
      });
    return result;
  })) as T;
  if (!recorded) return outcome;
  const chaining = deps.audit.chainPending().catch((error: Error) => {
    deps.log.warn({ error: error.message }, 'audit record committed but not chained yet; a later chaining will');
  });
  const timeout = new AbortController();
  await Promise.race([
    chaining,
    delay(CHAIN_WAIT_MS, undefined, { signal: timeout.signal, ref: false }).catch(() => {}),
  ]);
  timeout.abort();
  return outcome;
}
