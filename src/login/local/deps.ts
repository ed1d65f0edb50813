import type { FastifyRequest } from 'fastify';
import type { Audit } from '../../audit/audit.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config/schema.ts';
import type { Secrets } from '../../crypto/secret-files.ts';
import type { Sql } from '../../db/pool.ts';
import type { Directory } from '../ldap/directory.ts';
import type { SamlConnection } from '../saml/connection.ts';

/** What local sign-in needs, passed in from app.ts. */
export interface LocalLoginDeps {
  sql: Sql;
  audit: Audit;
  clock: Clock;
  /** `signing` keys the device cookies' MACs (known-device.ts). */
  secrets: Pick<Secrets, 'totp' | 'passwordPepper' | 'recoveryPepper' | 'signing'>;
  passwords: Config['passwords'];
  /** Its name and id are context words of the password policy. */
  organization: Config['organization'];
  login: Config['login'];
  issuer: string;
  /** The `[ldap.<id>]` directories, loaded at startup; subjects in their email domains sign in against them. */
  directories: Directory[];
  /** Where the cause of a directory failure goes (the log); the client sees directory_unavailable only. */
  logDirectoryFailure: (directoryId: string, error: Error) => void;
  /** The `[saml.<id>]` connections; a subject in one's email domains is sent there instead of a password step. */
  samlConnections?: Map<string, SamlConnection>;
}

/** The request facts rules need for audit records and throttling; rules never see the request itself. */
export interface AttemptContext {
  clientIp: string;
  requestId: string;
}

export const attemptContext = (request: FastifyRequest): AttemptContext => ({
  clientIp: request.clientIp,
  requestId: request.id,
});
