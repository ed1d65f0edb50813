import { migrate } from '../db/migrate.ts';
import { type Command, parseFlags } from './args.ts';
import { chooseDatabaseUrl, withDatabase } from './database.ts';
import { loadCommandConfig } from './development-instance.ts';

export const migrateCommand: Command = {
  summary: 'Apply pending database migrations and exit (serve also does this before listening).',
  async run(args) {
    const { values } = parseFlags(args, { config: { type: 'string' }, 'database-url': { type: 'string' } });
    const { config } = loadCommandConfig({ configPath: values.config });
    const applied = await withDatabase(
      chooseDatabaseUrl(values['database-url'], config.database.url),
      config.data.dir,
      (sql) => migrate(sql),
    );
    process.stdout.write(applied.length === 0 ? 'No pending migrations.\n' : `Applied: ${applied.join(', ')}\n`);
    return 0;
  },
};
