import type { Audit } from '../audit/audit.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config/schema.ts';
import type { Secrets } from '../crypto/secret-files.ts';
import type { Sql } from '../db/pool.ts';
import type { Outbox } from '../delivery/outbox.ts';
import type { LocaleOf } from '../i18n/translate.ts';

/** What account self-service needs, passed in from app.ts. */
export interface AccountDeps {
  sql: Sql;
  audit: Audit;
  clock: Clock;
  config: Config;
  secrets: Pick<Secrets, 'passwordPepper' | 'totp' | 'recoveryPepper'>;
  outbox: Outbox;
  /** The language a request is answered in; the messages it causes use it unless the recipient chose another. */
  localeOf: LocaleOf;
}

/** Request facts for audit records; rules never see the request. */
export interface RequestFacts {
  clientIp: string;
  requestId: string;
}
