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
  /** Whether an unknown external account may create an identity (self_service.enabled). */
  signUp: boolean;
  /** Where an unexpected upstream failure is logged; the browser gets one generic refusal. */
  logFailure(provider: string, error: unknown): void;
}

export interface RequestFacts {
  clientIp: string;
  requestId: string;
}
