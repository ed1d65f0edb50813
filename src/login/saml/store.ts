// The only SQL for saml_requests and saml_assertion_ids (migrations/0031_saml_sign_in.sql).
import type { Executor } from '../../db/pool.ts';
import type { Sub } from '../../identity/ids.ts';

export interface SamlRequest {
  id: string;
  connection: string;
  /** Who asked to link this connection to their identity; null for a sign-in. */
  identityId: Sub | null;
  returnTo: string;
  createdAt: Date;
}

export async function insertSamlRequest(
  sql: Executor,
  input: SamlRequest & { cookieHash: string; expiresAt: Date },
): Promise<void> {
  await sql`insert into saml_requests (id, connection, cookie_hash, identity_id, return_to, created_at, expires_at)
            values (${input.id}, ${input.connection}, ${input.cookieHash}, ${input.identityId}, ${input.returnTo},
                    ${input.createdAt}, ${input.expiresAt})`;
}

/**
 * Takes the request a response answers, once: only with the cookie of the browser that sent it and at the connection
 * it went to. A wrong cookie leaves the row, so someone who learned the ID cannot spend the owner's request.
 */
export async function consumeSamlRequest(
  sql: Executor,
  match: { id: string; connection: string; cookieHash: string },
  now: Date,
): Promise<SamlRequest | null> {
  const [row] = await sql<
    { id: string; connection: string; identity_id: string | null; return_to: string; created_at: Date }[]
  >`
    delete from saml_requests
    where id = ${match.id} and connection = ${match.connection} and cookie_hash = ${match.cookieHash}
      and expires_at > ${now}
    returning id, connection, identity_id, return_to, created_at`;
  if (!row) return null;
  return {
    id: row.id,
    connection: row.connection,
    identityId: row.identity_id as Sub | null,
    returnTo: row.return_to,
    createdAt: row.created_at,
  };
}

/** Records an assertion ID as used; false when it already was (a replay), decided atomically by the primary key. */
export async function recordAssertionId(
  sql: Executor,
  connection: string,
  assertionId: string,
  expiresAt: Date,
): Promise<boolean> {
  const rows = await sql`insert into saml_assertion_ids (connection, assertion_id, expires_at)
                         values (${connection}, ${assertionId}, ${expiresAt})
                         on conflict do nothing returning 1`;
  return rows.length === 1;
}

export async function purgeExpiredSamlState(sql: Executor, now: Date): Promise<number> {
  const requests = await sql`delete from saml_requests where expires_at <= ${now} returning 1`;
  const assertions = await sql`delete from saml_assertion_ids where expires_at <= ${now} returning 1`;
  return requests.length + assertions.length;
}
