// One configured SAML connection (`[saml.<id>]`) with what it needs at run time: the identity provider's signing
// certificates (the only keys that may verify its answers), this service provider's key pair (saml-<id>.key and
// saml-<id>.crt in secrets.dir), and the stable URLs the identity provider is configured with.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ssoUrlProblem } from '../../config/saml-rules.ts';
import type { Config } from '../../config/schema.ts';
import { readConfiguredSecret } from '../../crypto/secret-files.ts';
import { type IdpMetadata, parseIdpMetadata } from './idp-metadata.ts';

export type SamlConnectionConfig = Config['saml'][string];

export interface SamlConnection {
  id: string;
  /** `[saml.<id>]` of the configuration file (read-only in the admin API), or made through the admin API. */
  source: 'config' | 'api';
  config: SamlConnectionConfig;
  /** This service provider's entity id: its metadata URL, stable for as long as the issuer and the id stay. */
  entityId: string;
  /** The assertion consumer service (HTTP-POST binding): every response's Destination and Recipient. */
  acsUrl: string;
  /** PEM private key: signs AuthnRequests, decrypts EncryptedAssertions. */
  spKey: string;
  /** PEM certificate of spKey, published in the metadata for signing and encryption. */
  spCertificate: string;
  /**
   * From `[saml.<id>]`, read from its idp_metadata_file at startup, or taken from idp_metadata_url (then replaced in
   * place by each successful refresh; empty until the first one).
   */
  idpEntityId: string;
  idpSsoUrl: string;
  idpCertificates: string[];
}

export const samlKeyFile = (id: string) => `saml-${id}.key`;
export const samlCertificateFile = (id: string) => `saml-${id}.crt`;
export const samlPaths = (id: string) => ({
  metadata: `/auth/saml/${id}/metadata`,
  start: `/auth/saml/${id}/start`,
  acs: `/auth/saml/${id}/acs`,
});

const readCertificate = (file: string, what: string): string => {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`${what}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    new X509Certificate(pem);
  } catch {
    throw new Error(`${what}: ${file} is not a PEM certificate`);
  }
  return `${pem.trim()}\n`;
};

/** A connection's identity provider as a fetched metadata document gives it (same checks as a metadata file). */
export function identityProviderFrom(metadata: IdpMetadata) {
  const problem = ssoUrlProblem(metadata.ssoUrl);
  if (problem) throw new Error(`its SingleSignOnService ${problem}`);
  return { idpEntityId: metadata.entityId, idpSsoUrl: metadata.ssoUrl, idpCertificates: metadata.certificates };
}

/** Whether the identity provider is known yet: false only for idp_metadata_url before its first successful fetch. */
export const identityProviderKnown = (connection: SamlConnection) => connection.idpSsoUrl !== '';

function identityProvider(id: string, connection: SamlConnectionConfig) {
  // Filled in by src/login/saml/metadata-url.ts, which may fail and retry without stopping the start.
  if (connection.idp_metadata_url !== '') return { idpEntityId: '', idpSsoUrl: '', idpCertificates: [] };
  if (connection.idp_metadata_file === '')
    return {
      idpEntityId: connection.idp_entity_id,
      idpSsoUrl: connection.idp_sso_url,
      idpCertificates: connection.idp_certificate_files.map((file) =>
        readCertificate(file, `SAML connection ${id} idp_certificate_files`),
      ),
    };
  const where = `SAML connection ${id} idp_metadata_file ${connection.idp_metadata_file}`;
  let metadata: IdpMetadata;
  try {
    metadata = parseIdpMetadata(readFileSync(connection.idp_metadata_file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(`${where}: ${code ? `cannot be read (${code})` : (error as Error).message}`);
  }
  try {
    return identityProviderFrom(metadata);
  } catch (error) {
    throw new Error(`${where}: ${(error as Error).message}`);
  }
}

export function loadSamlConnection(config: Config, id: string): SamlConnection {
  const connection = config.saml[id];
  if (!connection) throw new Error(`no [saml.${id}]`);
  const base = config.server.issuer.replace(/\/$/, '');
  const paths = samlPaths(id);
  return {
    id,
    source: 'config',
    config: connection,
    entityId: `${base}${paths.metadata}`,
    acsUrl: `${base}${paths.acs}`,
    // Trimmed: node-saml takes a PEM only when at most one newline follows its last line.
    spKey: `${readConfiguredSecret(
      path.join(config.secrets.dir, samlKeyFile(id)),
      `SAML connection ${id} needs its service provider private key in ${samlKeyFile(id)} in secrets.dir`,
    ).trim()}\n`,
    spCertificate: readCertificate(
      path.join(config.secrets.dir, samlCertificateFile(id)),
      `SAML connection ${id} service provider certificate`,
    ),
    ...identityProvider(id, connection),
  };
}

/** Every connection, loaded once at startup: a missing or unreadable key or certificate stops the start. */
export function loadSamlConnections(config: Config): Map<string, SamlConnection> {
  return new Map(Object.keys(config.saml).map((id) => [id, loadSamlConnection(config, id)]));
}

/** The connection serving a sign-in subject's email domain, if any. */
export function connectionForSubject(connections: Map<string, SamlConnection>, subject: string): SamlConnection | null {
  const at = subject.lastIndexOf('@');
  if (at < 0) return null;
  const domain = subject.slice(at + 1).toLowerCase();
  for (const connection of connections.values())
    if (connection.config.email_domains.includes(domain)) return connection;
  return null;
}
