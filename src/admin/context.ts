// What every admin operation needs: its dependencies and who is acting, for the audit record.
import type { Audit } from '../audit/audit.ts';
import type { Sql, Transaction } from '../db/pool.ts';

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

/**
 * Runs `change` in one transaction with its audit record, so a change never commits without one: `describe` names
 * the record from the change's outcome, or returns null for an outcome that changed nothing (a refusal). After the
 * commit the record joins this node's chain. If that fails, the change still stands and its answer (a new client
 * secret, say) still reaches the caller: the record waits in audit_pending for the next chaining, at this node's next
 * change, any node's start, or hourly housekeeping, which logs a failure.
 */
export async function changeAudited<T>(
  deps: AdminDeps,
  actor: Actor,
  change: (tx: Transaction) => Promise<T>,
  describe: (outcome: T) => AuditedChange | null,
): Promise<T> {
  const outcome = (await deps.sql.begin(async (tx) => {
    const result = await change(tx);
    const record = describe(result);
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
  await deps.audit.chainPending().catch(() => {});
  return outcome;
}
