// The administration API's operations from the shell (users, export, import): the same feature functions and the
// same audit records as the admin routes, with the operator at the host as the actor. Records carry actor
// `operator:<login name>` and request id `cli_<random>`, so the audit log tells a shell change from a console one.
import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import type { Actor, AdminDeps } from '../admin/context.ts';
import { createAudit } from '../audit/audit.ts';
import type { Config } from '../config/schema.ts';
import type { Secrets } from '../crypto/secret-files.ts';
import type { Sql } from '../db/pool.ts';
import { createOutbox } from '../delivery/outbox.ts';
import { linkDelivery } from '../delivery/status.ts';

export function operatorDeps(
  sql: Sql,
  config: Config,
  secrets: Secrets,
  clock: () => Date = () => new Date(),
): AdminDeps {
  return {
    sql,
    audit: createAudit(sql, secrets.audit, clock),
    clock,
    clientSecretKey: secrets.clientSecret,
    organizationId: config.organization.id,
    issuer: config.server.issuer,
    accessTokenTtlSeconds: config.tokens.access_token_ttl_seconds,
    log: {
      warn: (detail: unknown, message?: string) =>
        process.stderr.write(`warning: ${message ?? ''} ${JSON.stringify(detail)}\n`),
    },
    invitations: {
      delivery: linkDelivery(config),
      outbox: createOutbox({ config, deliveryKey: secrets.delivery, clock }),
      defaultLocale: config.branding.default_locale,
    },
  };
}

function loginName(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid-${process.getuid?.() ?? 'unknown'}`;
  }
}

export function operatorActor(): Actor {
  return {
    sub: `operator:${loginName()}`,
    clientIp: 'local',
    requestId: `cli_${randomBytes(9).toString('base64url')}`,
  };
}
