// Fetching a SAML connection's metadata URL now, rather than at the next scheduled refresh: asked for by an owner
// (POST /admin/saml-connections/:id/metadata/refresh, the console, `gatehouse saml refresh-metadata`) or by a response
// that did not verify (src/login/saml/key-rollover.ts). A connection of the configuration file keeps its copy in
// memory, so a fetch reaches this node only (the others fetch on their own schedule or rollover); one made through
// the admin API keeps its copy in saml_connections, so the fresh copy is stored and every node reloads it.
import type { Executor, Sql } from '../db/pool.ts';
import { GatehouseError, NotFound } from '../http/errors.ts';
import type { SamlConnection } from '../login/saml/connection.ts';
import { type MetadataLog, refreshIdpMetadata } from '../login/saml/metadata-url.ts';
import { updateStoredIdentityProvider } from '../login/saml/stored-connections.ts';
import { type Actor, changeAudited } from './context.ts';
import { notifyNodes, type SamlConnectionDeps } from './saml-connections.ts';

export interface MetadataFetchDeps {
  sql: Sql;
  clock: () => Date;
  metadataLog: MetadataLog;
  reloadConnections: () => Promise<void>;
}

/** Fetches now; null on success (the connection holds the new copy), else why not (the last good copy stays). */
export async function fetchSamlMetadataNow(deps: MetadataFetchDeps, connection: SamlConnection) {
  const why = await refreshIdpMetadata(connection, deps.metadataLog);
  if (why !== null || connection.source !== 'api') return why;
  await deps.sql.begin((tx) => storeFreshIdentityProvider(tx, connection.id, connection, deps.clock()));
  await deps.reloadConnections();
  return null;
}

/** Stores a fetched copy of an API-made connection's identity provider; every node reloads it at commit. */
export async function storeFreshIdentityProvider(
  tx: Executor,
  id: string,
  idp: Pick<SamlConnection, 'idpEntityId' | 'idpSsoUrl' | 'idpCertificates'>,
  now: Date,
) {
  const { idpEntityId, idpSsoUrl, idpCertificates } = idp;
  await updateStoredIdentityProvider(tx, id, { idpEntityId, idpSsoUrl, idpCertificates }, now);
  await notifyNodes(tx);
}

/** The audit record of a refresh asked for by an owner or operator. */
export const refreshedRecord = (id: string, keysChanged: boolean) => ({
  event: 'saml_connection.metadata_refreshed',
  subject: id,
  details: { keys_changed: String(keysChanged) },
});

/** The owner's "refresh metadata now": audited with whether the signing keys changed. */
export async function refreshSamlMetadata(
  deps: SamlConnectionDeps & MetadataFetchDeps,
  actor: Actor,
  id: string,
): Promise<void> {
  const connection = deps.connections.get(id);
  if (!connection) throw new NotFound('No such SAML connection');
  if (connection.config.idp_metadata_url === '') throw new GatehouseError('saml_metadata_url_missing');
  const before = connection.idpCertificates.join('\n');
  const why = await fetchSamlMetadataNow(deps, connection);
  if (why !== null)
    throw new GatehouseError(
      'saml_metadata_unreachable',
      `The identity provider's metadata could not be fetched or read (${why}); the connection keeps its last good copy.`,
    );
  const keysChanged = connection.idpCertificates.join('\n') !== before;
  await changeAudited(
    deps,
    actor,
    async () => undefined,
    () => refreshedRecord(id, keysChanged),
  );
}
