// `gatehouse owner enroll-link`: prints a fresh one-time link (24 h) with which the initial owner sets a password and
// enrolls TOTP. Issuing a link kills every older one; using it resets the owner's local credentials (the operator's
// way back in), so only someone with the config and database access can do this.

import { readInstallation } from '../identity/bootstrap.ts';
import { issueEnrollmentLink } from '../login/local/enrollment-link.ts';
import type { CommandInput } from './args.ts';
import { chooseDatabaseUrl, withDatabase } from './database.ts';
import { loadCommandConfig } from './development-instance.ts';

/** `gatehouse owner enroll-link`. */
export async function enrollLink({
  values,
}: CommandInput<{ config?: string; 'database-url'?: string }>): Promise<number> {
  const { config } = loadCommandConfig({ configPath: values.config }, { needsInstance: true });
  const link = await withDatabase(
    chooseDatabaseUrl(values['database-url'], config.database.url),
    config.data.dir,
    async (sql) => {
      const installation = await readInstallation(sql);
      return installation ? await issueEnrollmentLink(sql, installation.ownerId, config.server.issuer) : null;
    },
  );
  if (!link) {
    process.stderr.write('gatehouse owner: this database has no installation yet; run `gatehouse setup` first\n');
    return 1;
  }
  process.stdout.write(`${enrollmentNotice(link)}\n`);
  return 0;
}

/** What setup and the development start print instead of a link once the owner has a password. */
export const OWNER_ENROLLED_NOTICE =
  "The initial owner is already enrolled: no new link was issued. `gatehouse owner enroll-link` issues one (using it resets the owner's password and TOTP).";

/** The lines setup, the development start and this command print. */
export function enrollmentNotice(link: { url: string; expiresAt: Date }): string {
  return [
    `Owner enrollment link (one use, expires ${link.expiresAt.toISOString()}; older links no longer work):`,
    `  ${link.url}`,
  ].join('\n');
}
