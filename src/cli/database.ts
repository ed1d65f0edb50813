// Opens the configured database for a one-shot command (setup, migrate, audit verify), starting the embedded
// server when no URL is configured (or using the one a running development instance started), and closes it all
// afterwards.
import { databaseUrlProblem } from '../config/validate.ts';
import { startEmbeddedPostgres } from '../db/embedded.ts';
import { createPool, type Sql } from '../db/pool.ts';
import { UsageError } from './args.ts';

/** `--database-url` when given (checked by the same rule as the config's database.url), else the configured URL. */
export function chooseDatabaseUrl(flag: string | undefined, configured: string): string {
  if (flag === undefined) return configured;
  const problem = databaseUrlProblem(flag);
  if (problem) throw new UsageError(`--database-url ${problem}`);
  return flag;
}

export async function withDatabase<T>(url: string, dataDir: string, work: (sql: Sql) => Promise<T>): Promise<T> {
  // A running development instance's server is shared, not started twice (which would fail on its lock file).
  const embedded =
    url === ''
      ? await startEmbeddedPostgres(dataDir, (line) => process.stderr.write(`${line}\n`), { attach: true })
      : null;
  const sql = createPool(embedded?.url ?? url, { max: 2, connectTimeoutSeconds: 10 });
  try {
    return await work(sql);
  } finally {
    await sql.end({ timeout: 5 });
    await embedded?.stop();
  }
}
