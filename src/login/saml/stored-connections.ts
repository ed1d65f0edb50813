// SAML connections made through the admin API, kept in PostgreSQL (migration 0033) beside the read-only ones of
// `[saml.<id>]`. Every node holds all of them in the one connection map the sign-in routes read; a change commits
// with a NOTIFY (sent by src/admin/saml-connections.ts on the token state channel, payload SAML_CONNECTIONS_CHANGED)
// and every node then re-reads the table into that map in place (reloadStoredConnections): no restart is needed.
import type { Config } from '../../config/schema.ts';
import { open, seal } from '../../crypto/seal.ts';
import type { Executor, Sql } from '../../db/pool.ts';
import { type SamlConnection, type SamlConnectionConfig, samlPaths } from './connection.ts';

/** The NOTIFY payload a committed change to saml_connections sends (see app.ts). */
export const SAML_CONNECTIONS_CHANGED = 'saml-connections';

/** The keys of `[saml.<id>]` an API-made connection has; its identity provider is stored beside them. */
export interface StoredSettings {
  name: string;
  email_domains: string[];
  display_name_attribute: string;
  email_attribute: string;
  sign_up: boolean;
  mfa_authn_contexts: string[];
  /** Where the identity provider's metadata is fetched from; absent or empty: it was given as a document or fields. */
  idp_metadata_url?: string;
}

export interface StoredConnection {
  id: string;
  settings: StoredSettings;
  idpEntityId: string;
  idpSsoUrl: string;
  idpCertificates: string[];
  spKey: string;
  spCertificate: string;
}

const purpose = (id: string) => `saml connection ${id} service provider key`;

interface Row {
  id: string;
  settings: StoredSettings;
  idp_entity_id: string;
  idp_sso_url: string;
  idp_certificates: string[];
  sp_key_sealed: string;
  sp_certificate: string;
}

const fromRow = (sealKey: Buffer, row: Row): StoredConnection => ({
  id: row.id,
  settings: row.settings,
  idpEntityId: row.idp_entity_id,
  idpSsoUrl: row.idp_sso_url,
  idpCertificates: row.idp_certificates,
  spKey: open(sealKey, row.sp_key_sealed, purpose(row.id)).toString('utf8'),
  spCertificate: row.sp_certificate,
});

export async function listStoredConnections(db: Executor, sealKey: Buffer): Promise<StoredConnection[]> {
  const rows = await db<Row[]>`
    select id, settings, idp_entity_id, idp_sso_url, idp_certificates, sp_key_sealed, sp_certificate
    from saml_connections order by id`;
  return rows.map((row) => fromRow(sealKey, row));
}

/** Each stored connection's email domains, for the one-place-per-domain rule (no key is unsealed for it). */
export async function storedEmailDomains(db: Executor): Promise<{ id: string; domains: string[] }[]> {
  return [
    ...(await db<{ id: string; domains: string[] }[]>`
      select id, array(select jsonb_array_elements_text(settings->'email_domains')) as domains
      from saml_connections order by id`),
  ];
}

/** The row locked for an update or delete in `tx`; null when there is none. */
export async function lockStoredConnection(
  tx: Executor,
  sealKey: Buffer,
  id: string,
): Promise<StoredConnection | null> {
  const [row] = await tx<Row[]>`
    select id, settings, idp_entity_id, idp_sso_url, idp_certificates, sp_key_sealed, sp_certificate
    from saml_connections where id = ${id} for update`;
  return row ? fromRow(sealKey, row) : null;
}

export async function insertStoredConnection(tx: Executor, sealKey: Buffer, c: StoredConnection, now: Date) {
  await tx`
    insert into saml_connections
      (id, settings, idp_entity_id, idp_sso_url, idp_certificates, sp_key_sealed, sp_certificate, created_at,
       updated_at)
    values (${c.id}, ${tx.json(c.settings as never)}, ${c.idpEntityId}, ${c.idpSsoUrl}, ${c.idpCertificates},
      ${seal(sealKey, c.spKey, purpose(c.id))}, ${c.spCertificate}, ${now}, ${now})`;
}

/** Replaces what an update may change; the service provider key pair stays (the identity provider trusts it). */
export async function updateStoredConnection(tx: Executor, c: StoredConnection, now: Date) {
  await tx`
    update saml_connections set settings = ${tx.json(c.settings as never)}, idp_entity_id = ${c.idpEntityId},
      idp_sso_url = ${c.idpSsoUrl}, idp_certificates = ${c.idpCertificates}, updated_at = ${now}
    where id = ${c.id}`;
}

/** A fresh copy of the identity provider from its metadata URL (the row is the last good copy every node loads). */
export async function updateStoredIdentityProvider(
  tx: Executor,
  id: string,
  idp: Pick<StoredConnection, 'idpEntityId' | 'idpSsoUrl' | 'idpCertificates'>,
  now: Date,
) {
  await tx`
    update saml_connections set idp_entity_id = ${idp.idpEntityId}, idp_sso_url = ${idp.idpSsoUrl},
      idp_certificates = ${idp.idpCertificates}, updated_at = ${now}
    where id = ${id}`;
}

/** A stored connection's metadata URL and current signing certificates; null when there is no such row. */
export async function storedMetadataSource(
  db: Executor,
  id: string,
): Promise<{ url: string; certificates: string[] } | null> {
  const [row] = await db<{ url: string | null; certificates: string[] }[]>`
    select settings->>'idp_metadata_url' as url, idp_certificates as certificates from saml_connections
    where id = ${id}`;
  return row ? { url: row.url ?? '', certificates: row.certificates } : null;
}

export async function deleteStoredConnection(tx: Executor, id: string): Promise<boolean> {
  const deleted = await tx`delete from saml_connections where id = ${id}`;
  return deleted.count > 0;
}

/** A stored connection as the sign-in routes use one, with the `[saml.<id>]`-shaped config they read. */
export function runtimeConnection(issuer: string, stored: StoredConnection): SamlConnection {
  const base = issuer.replace(/\/$/, '');
  const paths = samlPaths(stored.id);
  const config: SamlConnectionConfig = {
    ...stored.settings,
    idp_metadata_file: '',
    idp_metadata_url: stored.settings.idp_metadata_url ?? '',
    idp_metadata_refresh_seconds: 3600,
    idp_entity_id: stored.idpEntityId,
    idp_sso_url: stored.idpSsoUrl,
    idp_certificate_files: [],
  };
  return {
    id: stored.id,
    source: 'api',
    config,
    entityId: `${base}${paths.metadata}`,
    acsUrl: `${base}${paths.acs}`,
    spKey: stored.spKey,
    spCertificate: stored.spCertificate,
    idpEntityId: stored.idpEntityId,
    idpSsoUrl: stored.idpSsoUrl,
    idpCertificates: stored.idpCertificates,
  };
}

/**
 * Brings `connections` in line with the table: API-made entries added, replaced or removed in place (the map is
 * shared with the sign-in routes); entries from `[saml.<id>]` are never touched.
 */
export async function reloadStoredConnections(
  sql: Sql,
  sealKey: Buffer,
  config: Pick<Config, 'server'>,
  connections: Map<string, SamlConnection>,
): Promise<void> {
  const stored = await listStoredConnections(sql, sealKey);
  const present = new Set(stored.map((c) => c.id));
  for (const [id, connection] of connections)
    if (connection.source === 'api' && !present.has(id)) connections.delete(id);
  for (const c of stored) {
    // An id also in the configuration file: the file wins (creation refuses this; the file may gain it later).
    if (connections.get(c.id)?.source === 'config') continue;
    connections.set(c.id, runtimeConnection(config.server.issuer, c));
  }
}
