// `gatehouse saml refresh-metadata <id>`: the admin API's "refresh metadata now" from the shell, for a connection made
// through the admin API. Its copy of the identity provider lives in saml_connections, so the CLI fetches the URL,
// stores the fresh copy and every running node reloads it at commit (NOTIFY). A `[saml.<id>]` connection's copy lives
// in each server's memory, out of the shell's reach: the command says so and what to do instead.
import type { Actor, AdminDeps } from '../admin/context.ts';
import { changeAudited } from '../admin/context.ts';
import { refreshedRecord, storeFreshIdentityProvider } from '../admin/saml-metadata-refresh.ts';
import type { Config } from '../config/schema.ts';
import { fetchIdpMetadata, metadataFetchProblem } from '../login/saml/metadata-url.ts';
import { storedMetadataSource } from '../login/saml/stored-connections.ts';
import { OperationRefused } from './errors.ts';

export interface MetadataRefreshed {
  id: string;
  idp_entity_id: string;
  keys_changed: boolean;
}

export async function refreshStoredSamlMetadata(
  deps: AdminDeps,
  actor: Actor,
  config: Pick<Config, 'saml'>,
  id: string,
): Promise<MetadataRefreshed> {
  if (config.saml[id])
    throw new OperationRefused(
      `saml.${id} is in the configuration file: each server keeps its copy in memory and fetches it every idp_metadata_refresh_seconds and on a key rollover; to fetch now use the console or POST /admin/saml-connections/${id}/metadata/refresh (that node), or restart`,
    );
  const source = await storedMetadataSource(deps.sql, id);
  if (!source) throw new OperationRefused(`no SAML connection ${id} (gatehouse lists them in the console)`);
  if (source.url === '')
    throw new OperationRefused(`SAML connection ${id} was not given a metadata URL, so there is nothing to fetch`);
  let idp: Awaited<ReturnType<typeof fetchIdpMetadata>>;
  try {
    idp = await fetchIdpMetadata(source.url);
  } catch (error) {
    throw new OperationRefused(
      `${source.url}: ${metadataFetchProblem(error)}; the connection keeps its last good copy`,
    );
  }
  const keysChanged = idp.idpCertificates.join('\n') !== source.certificates.join('\n');
  await changeAudited(
    deps,
    actor,
    (tx) => storeFreshIdentityProvider(tx, id, idp, deps.clock()),
    () => refreshedRecord(id, keysChanged),
  );
  return { id, idp_entity_id: idp.idpEntityId, keys_changed: keysChanged };
}
