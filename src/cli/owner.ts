// `gatehouse owner enroll-link`: prints a fresh one-time link (24 h) with which the initial owner sets a password and
// enrolls TOTP. Issuing a link kills every older one; using it resets the owner's local credentials (the operator's
// way back in), so only someone with the config and database access can do this, and for an owner who already
// enrolled only with --reset: a link issued by mistake would be a way past their password and TOTP.

import { readInstallation } from '../identity/bootstrap.ts';
import { issueEnrollmentLink, issueFirstEnrollmentLink } from '../login/local/enrollment-link.ts';
import { OperationRefused } from '../operations/errors.ts';
import type { CommandInput } from './args.ts';
import { chooseDatabaseUrl, withDatabase } from './database.ts';
import { loadCommandConfig } from './development-instance.ts';
import { enrollmentNotice } from './enrollment-notice.ts';

/** `gatehouse owner enroll-link [--reset]`. */
export async function enrollLink({
  values,
}: CommandInput<{ config?: string; 'database-url'?: string; reset?: boolean }>): Promise<number> {
  const { config } = loadCommandConfig({ configPath: values.config }, { needsInstance: true });
  const link = await withDatabase(
    chooseDatabaseUrl(values['database-url'], config.database.url),
    config.data.dir,
    async (sql) => {
      const installation = await readInstallation(sql);
      if (!installation)
        throw new OperationRefused('this database has no installation yet; run `gatehouse setup` first');
      if (values.reset) return await issueEnrollmentLink(sql, installation.ownerId, config.server.issuer);
      // Without --reset only an owner who never enrolled gets one: for an enrolled owner the link is a reset.
      const first = await issueFirstEnrollmentLink(sql, installation.ownerId, config.server.issuer);
      if (first) return first;
      throw new OperationRefused(
        `the initial owner ${installation.ownerSubject} has already enrolled, and using a link would reset their password and TOTP: no link was issued. Pass --reset to issue one anyway`,
      );
    },
  );
  process.stdout.write(`${enrollmentNotice(link)}\n`);
  return 0;
}
