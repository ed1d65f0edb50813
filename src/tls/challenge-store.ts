// The only SQL for acme_challenges. Lookups ignore expired rows, so a row an interrupted order left behind answers
// nothing, and every insert drops the expired ones.
import type { Executor } from '../db/pool.ts';

export async function putChallenge(
  sql: Executor,
  token: string,
  keyAuthorization: string,
  expiresAt: Date,
  now: Date,
): Promise<void> {
  await sql`delete from acme_challenges where expires_at <= ${now}`;
  await sql`
    insert into acme_challenges (token, key_authorization, expires_at)
    values (${token}, ${keyAuthorization}, ${expiresAt})
    on conflict (token) do update set key_authorization = excluded.key_authorization, expires_at = excluded.expires_at`;
}

export async function findChallenge(sql: Executor, token: string, now: Date): Promise<string | null> {
  const [row] = await sql<{ key_authorization: string }[]>`
    select key_authorization from acme_challenges where token = ${token} and expires_at > ${now}`;
  return row?.key_authorization ?? null;
}

export async function deleteChallenge(sql: Executor, token: string): Promise<void> {
  await sql`delete from acme_challenges where token = ${token}`;
}
