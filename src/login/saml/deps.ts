import type { Audit } from '../../audit/audit.ts';
import type { Clock } from '../../clock.ts';
import type { Sql } from '../../db/pool.ts';
import type { SamlConnection } from './connection.ts';

/** What SAML sign-in needs, passed in from app.ts. */
export interface SamlDeps {
  sql: Sql;
  audit: Audit;
  clock: Clock;
  issuer: string;
  connections: Map<string, SamlConnection>;
  /** Where the reason a response was refused goes (the log); the browser gets the catalogue's code only. */
  logRefusal(connection: string, error: unknown): void;
  /** After a response did not verify: whether a fresh fetch of the metadata URL changed the keys (key-rollover.ts). */
  keysRolledOver(connection: SamlConnection): Promise<boolean>;
}
