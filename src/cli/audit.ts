import { verifyAuditChains } from '../audit/verify.ts';
import { loadSecrets } from '../crypto/secret-files.ts';
import type { CommandInput } from './args.ts';
import { chooseDatabaseUrl, withDatabase } from './database.ts';
import { loadCommandConfig } from './development-instance.ts';

/** `gatehouse audit verify`: exits 1 when a chain is broken. */
export async function verifyAudit({
  values,
}: CommandInput<{ config?: string; 'database-url'?: string; json?: boolean }>): Promise<number> {
  const { config } = loadCommandConfig({ configPath: values.config }, { needsInstance: true });
  const { audit: key } = loadSecrets(config.secrets.dir);
  const report = await withDatabase(
    chooseDatabaseUrl(values['database-url'], config.database.url),
    config.data.dir,
    (sql) => verifyAuditChains(sql, key),
  );
  if (values.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return report.breaks.length === 0 ? 0 : 1;
  }
  for (const b of report.breaks)
    process.stdout.write(
      `BROKEN chain ${b.chain} at record ${b.seq}${b.id ? ` (row id ${b.id})` : ''}: ${b.problem}\n`,
    );
  process.stdout.write(
    `${report.breaks.length === 0 ? 'OK' : 'FAILED'}: ${counted(report.records, 'record')} in ${counted(report.chains, 'chain')} verified\n`,
  );
  const { count, oldestAt } = report.pending;
  if (count > 0)
    process.stdout.write(
      `${counted(count, 'record')} of committed changes ${count === 1 ? 'awaits' : 'await'} chaining (oldest from ${oldestAt?.toISOString()}): a running ` +
        'server chains them at its next administrative change or hourly housekeeping, any server at its start\n',
    );
  return report.breaks.length === 0 ? 0 : 1;
}

const englishPlurals = new Intl.PluralRules('en');

/** "1 record", "2 records": the terminal's counts read as sentences, not "record(s)". */
const counted = (count: number, noun: string): string =>
  `${count} ${englishPlurals.select(count) === 'one' ? noun : `${noun}s`}`;
