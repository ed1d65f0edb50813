import type { Audit } from '../audit/audit.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config/schema.ts';
import type { Secrets } from '../crypto/secret-files.ts';
import type { Sql } from '../db/pool.ts';
import type { Outbox } from '../delivery/outbox.ts';

/** What account self-service needs, passed in from app.ts. */
export interface AccountDeps {
  sql: Sql;
  audit: Audit;
  clock: Clock;
  config: Config;
  secrets: Pick<Secrets, 'passwordPepper' | 'totp' | 'recoveryPepper'>;
  outbox: Outbox;
}

/** Request facts for audit records; rules never see the request. */
export interface RequestFacts {
  clientIp: string;
  requestId: string;
}
