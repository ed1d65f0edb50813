import type { Audit } from '../../audit/audit.ts';
import type { Clock } from '../../clock.ts';
import type { RelyingParty } from '../../config/passkeys.ts';
import type { Config } from '../../config/schema.ts';
import type { Sql } from '../../db/pool.ts';
import type { Sub } from '../../identity/ids.ts';
import type { AttemptContext } from '../local/deps.ts';

/** What the passkey module needs, passed in from app.ts. */
export interface PasskeyDeps {
  sql: Sql;
  audit: Audit;
  clock: Clock;
  config: Config;
  relyingParty: RelyingParty;
  /** Null when passkeys cannot be offered (disabled, or no usable RP ID): every route then answers passkeys_disabled. */
  unavailable: string | null;
  /** Keys the decoy credential ids shown for unknown subjects, so they stay the same on every request and node. */
  decoyKey: Buffer;
  /**
   * Re-authentication with the current password (src/account/reauth.ts, passed in: account imports login, so
   * login cannot import account). Throws reauthentication_failed (and throttles) on a wrong password.
   */
  confirmPassword: (context: AttemptContext, identityId: Sub, password: string) => Promise<void>;
}
