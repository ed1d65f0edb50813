import type { Audit } from '../../audit/audit.ts';
import type { Clock } from '../../clock.ts';
import type { Sql } from '../../db/pool.ts';
import type { ProviderRegistry } from './registry.ts';

/** What federated sign-in needs, passed in from app.ts. */
export interface FederatedDeps {
  sql: Sql;
  audit: Audit;
  clock: Clock;
  issuer: string;
  providers: ProviderRegistry;
  /**
   * Account self-service works (enabled, and delivery ready: SPEC.md "What the service does" 4): an unknown external
   * account may then create an identity, and a signed-in person may link one.
   */
  selfService: boolean;
  /** Where an unexpected upstream failure is logged; the browser gets one generic refusal. */
  logFailure(provider: string, error: unknown): void;
}

export interface RequestFacts {
  clientIp: string;
  requestId: string;
}
