// What every admin operation needs: its dependencies and who is acting, for the audit record.
import type { Audit } from '../audit/audit.ts';
import type { Sql } from '../db/pool.ts';

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

export function auditChange(deps: AdminDeps, actor: Actor, event: string, subject: string, details = {}) {
  return deps.audit.record({
    event,
    actor: actor.sub,
    subject,
    clientIp: actor.clientIp,
    requestId: actor.requestId,
    details,
  });
}
