// The one read token exchange makes of the grant tables (RFC 8693, token-exchange.ts): what the person's grant still
// holds. A grant revoked, or whose identity is no longer active, lets nothing be exchanged.
import type { Executor } from '../db/pool.ts';

export interface ExchangeableGrant {
  identityId: string;
  /** The grant's scope as it stands now (an administrator may have narrowed it since the subject token). */
  scope: string;
}

export async function findExchangeableGrant(sql: Executor, grantId: string): Promise<ExchangeableGrant | null> {
  const [row] = await sql<{ identity_id: string; scope: string }[]>`
    select g.identity_id, g.scope from oauth_grants g join identities i on i.id = g.identity_id
    where g.id = ${grantId} and g.revoked_at is null and i.state = 'active'`;
  return row ? { identityId: row.identity_id, scope: row.scope } : null;
}
