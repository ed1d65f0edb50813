import { type Migration, migrationsApplied } from '../db/migrate.ts';
import type { Sql } from '../db/pool.ts';

const READINESS_TIMEOUT_MS = 2000;

/**
 * Whether the server the pool reaches takes no writes: a standby (during a failover, a multi-host URL or a
 * load balancer can lead there) or a database set read-only. Reads still work there, so without this the node
 * would call itself ready while every sign-in and token request failed.
 */
async function readOnly(sql: Sql): Promise<boolean> {
  const [row] = await sql<{ read_only: string }[]>`select current_setting('transaction_read_only') as read_only`;
  return row?.read_only === 'on';
}

/** null when ready, else a client-safe reason. Bounded in time so a hung database cannot hang the probe. */
export async function checkReadiness(sql: Sql, migrations: Migration[]): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('The database did not answer in time'), READINESS_TIMEOUT_MS);
  });
  const check = (async () => {
    if (await readOnly(sql)) return 'The database is read-only (a standby)';
    return (await migrationsApplied(sql, migrations)) ? null : 'Database migrations are not applied';
  })().catch(() => 'The database is unreachable');
  try {
    return await Promise.race([check, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
