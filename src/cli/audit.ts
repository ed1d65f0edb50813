import { verifyAuditChains } from '../audit/verify.ts';
import { loadSecrets } from '../crypto/secret-files.ts';
import { type Command, parseFlags, UsageError } from './args.ts';
import { chooseDatabaseUrl, withDatabase } from './database.ts';
import { loadCommandConfig } from './development-instance.ts';

export const auditCommand: Command = {
  summary: 'audit verify: check every audit chain and name the first broken record.',
  async run(args) {
    const { values, positionals } = parseFlags(args, {
      config: { type: 'string' },
      'database-url': { type: 'string' },
    });
    if (positionals[0] !== 'verify') throw new UsageError('Usage: gatehouse audit verify [--config FILE]');
    const { config } = loadCommandConfig({ configPath: values.config }, { needsInstance: true });
    const { audit: key } = loadSecrets(config.secrets.dir);
    const report = await withDatabase(
      chooseDatabaseUrl(values['database-url'], config.database.url),
      config.data.dir,
      (sql) => verifyAuditChains(sql, key),
    );
    for (const b of report.breaks)
      process.stdout.write(
        `BROKEN chain ${b.chain} at record ${b.seq}${b.id ? ` (row id ${b.id})` : ''}: ${b.problem}\n`,
      );
    process.stdout.write(
      `${report.breaks.length === 0 ? 'OK' : 'FAILED'}: ${report.records} records in ${report.chains} chains verified\n`,
    );
    const { count, oldestAt } = report.pending;
    if (count > 0)
      process.stdout.write(
        `${count} records of committed changes await chaining (oldest from ${oldestAt?.toISOString()}): a running ` +
          'server chains them at its next administrative change or hourly housekeeping, any server at its start\n',
      );
    return report.breaks.length === 0 ? 0 : 1;
  },
};
