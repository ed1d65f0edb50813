import { migrate } from '../db/migrate.ts';
import type { CommandInput } from './args.ts';
import { chooseDatabaseUrl, withDatabase } from './database.ts';
import { loadCommandConfig } from './development-instance.ts';

export async function migrateDatabase({
  values,
}: CommandInput<{ config?: string; 'database-url'?: string }>): Promise<number> {
  const { config } = loadCommandConfig({ configPath: values.config });
  const applied = await withDatabase(
    chooseDatabaseUrl(values['database-url'], config.database.url),
    config.data.dir,
    (sql) => migrate(sql),
  );
  process.stdout.write(applied.length === 0 ? 'No pending migrations.\n' : `Applied: ${applied.join(', ')}\n`);
  return 0;
}
