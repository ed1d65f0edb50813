import { type Migration, migrationsApplied } from '../db/migrate.ts';
import type { Sql } from '../db/pool.ts';

const READINESS_TIMEOUT_MS = 2000;

/** null when ready, else a client-safe reason. Bounded in time so a hung database cannot hang the probe. */
export async function checkReadiness(sql: Sql, migrations: Migration[]): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('The database did not answer in time'), READINESS_TIMEOUT_MS);
  });
  const check = migrationsApplied(sql, migrations).then(
    (applied) => (applied ? null : 'Database migrations are not applied'),
    () => 'The database is unreachable',
  );
  try {
    return await Promise.race([check, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
