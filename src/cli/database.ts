// Opens the configured database for a one-shot command (setup, migrate, audit verify), starting the embedded
// server when no URL is configured, and closes it all afterwards.
import { startEmbeddedPostgres } from '../db/embedded.ts';
import { createPool, type Sql } from '../db/pool.ts';

export async function withDatabase<T>(url: string, dataDir: string, work: (sql: Sql) => Promise<T>): Promise<T> {
  const embedded =
    url === '' ? await startEmbeddedPostgres(dataDir, (line) => process.stderr.write(`${line}\n`)) : null;
  const sql = createPool(embedded?.url ?? url, { max: 2, connectTimeoutSeconds: 10 });
  try {
    return await work(sql);
  } finally {
    await sql.end({ timeout: 5 });
    await embedded?.stop();
  }
}
