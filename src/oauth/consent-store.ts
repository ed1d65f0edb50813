// The only SQL for remembered consent: the scopes an identity has granted a third-party client.
import type { Executor } from '../db/pool.ts';

export async function findConsentedScopes(sql: Executor, identityId: string, clientId: string): Promise<string[]> {
  const [row] =
    await sql`select scopes from oauth_consents where identity_id = ${identityId} and client_id = ${clientId}`;
  return (row?.scopes as string[] | undefined) ?? [];
}

/** Adds `scopes` to what the identity has granted the client. */
export async function upsertConsent(sql: Executor, identityId: string, clientId: string, scopes: string[], now: Date) {
  await sql`
    insert into oauth_consents (identity_id, client_id, scopes, updated_at)
    values (${identityId}, ${clientId}, ${scopes}, ${now})
    on conflict (identity_id, client_id) do update
      set scopes = array(select distinct unnest(oauth_consents.scopes || excluded.scopes)), updated_at = ${now}`;
}
