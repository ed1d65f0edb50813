// SAML connections made through the admin API: create, update, delete, each audited in its transaction. The rules
// are the configuration file's (src/config/saml-rules.ts): the single sign-on URL is https (http only to this
// machine) and an email domain routes to one place only, across `[ldap.<id>]`, `[saml.<id>]` and the connections
// made here. Connections from the configuration file are read-only here.
import { X509Certificate } from 'node:crypto';
import { ssoUrlProblem } from '../config/saml-rules.ts';
import type { Config } from '../config/schema.ts';
import type { Executor } from '../db/pool.ts';
import { assertDisplayText } from '../http/display-text.ts';
import { GatehouseError, InvalidRequest, NotFound } from '../http/errors.ts';
import type { SamlConnection } from '../login/saml/connection.ts';
import { parseIdpMetadata } from '../login/saml/idp-metadata.ts';
import { fetchIdpMetadata, metadataFetchProblem } from '../login/saml/metadata-url.ts';
import { DEFAULT_DISPLAY_NAME_ATTRIBUTE, DEFAULT_EMAIL_ATTRIBUTE } from '../login/saml/person-attributes.ts';
import * as store from '../login/saml/stored-connections.ts';
import { TOKEN_STATE_CHANNEL } from '../oauth/token-state-listener.ts';
import { type Actor, type AdminDeps, changeAudited } from './context.ts';

export interface SamlConnectionDeps extends AdminDeps {
  config: Pick<Config, 'saml' | 'ldap' | 'server'>;
  /** The map the sign-in routes read: this node's copy is refreshed right after a commit, other nodes' by NOTIFY. */
  connections: Map<string, SamlConnection>;
  sealKey: Buffer;
  /** Re-reads the stored connections into `connections` (queued behind any reload already running). */
  reloadConnections: () => Promise<void>;
}

/** The identity provider: its metadata document, or the three facts it would give. */
export interface IdpInput {
  idp_metadata_xml?: string;
  idp_metadata_url?: string;
  idp_entity_id?: string;
  idp_sso_url?: string;
  idp_certificates?: string[];
}

export interface SamlConnectionInput extends IdpInput {
  id: string;
  name: string;
  email_domains: string[];
  display_name_attribute?: string;
  email_attribute?: string;
  sign_up?: boolean;
  mfa_authn_contexts?: string[];
}

export type SamlConnectionChanges = Partial<Omit<SamlConnectionInput, 'id'>>;

const refuse = (path: string, problem: string): never => {
  const field = path.replace(/^body\.?/, '');
  throw new InvalidRequest(field ? `${field}: ${problem}` : problem, { fields: [{ path, problem }] });
};

const certificate = (pem: string, index: number): string => {
  try {
    new X509Certificate(pem);
  } catch {
    refuse(`body.idp_certificates.${index}`, 'is not a PEM certificate');
  }
  return `${pem.trim()}\n`;
};

type IdentityProvider = Pick<store.StoredConnection, 'idpEntityId' | 'idpSsoUrl' | 'idpCertificates'> & {
  /** Where it came from when fetched ('' otherwise), kept to fetch it again. */
  metadataUrl: string;
};

/** The identity provider from its metadata document (checked like a metadata file). */
function fromMetadata(field: string, read: () => ReturnType<typeof parseIdpMetadata>) {
  let metadata: ReturnType<typeof parseIdpMetadata>;
  try {
    metadata = read();
  } catch (error) {
    return refuse(field, (error as Error).message);
  }
  const problem = ssoUrlProblem(metadata.ssoUrl);
  if (problem) refuse(field, `its SingleSignOnService ${problem}`);
  return { idpEntityId: metadata.entityId, idpSsoUrl: metadata.ssoUrl, idpCertificates: metadata.certificates };
}

/** Fetched now from idp_metadata_url (held to the rule of every upstream URL): refused when it cannot be read. */
async function fromMetadataUrl(url: string): Promise<IdentityProvider> {
  const problem = ssoUrlProblem(url);
  if (problem) refuse('body.idp_metadata_url', problem);
  let idp: Awaited<ReturnType<typeof fetchIdpMetadata>>;
  try {
    idp = await fetchIdpMetadata(url);
  } catch (error) {
    return refuse('body.idp_metadata_url', `could not be read: ${metadataFetchProblem(error)}`);
  }
  return { ...idp, metadataUrl: url };
}

/** The identity provider from the input, checked like a `[saml.<id>]` one; null when the input names none. */
async function identityProvider(input: IdpInput): Promise<IdentityProvider | null> {
  const direct = [input.idp_entity_id, input.idp_sso_url, input.idp_certificates];
  const documents = [input.idp_metadata_xml, input.idp_metadata_url].filter((value) => value !== undefined);
  if (documents.length === 0 && direct.every((value) => value === undefined)) return null;
  const field = input.idp_metadata_url !== undefined ? 'body.idp_metadata_url' : 'body.idp_metadata_xml';
  if (documents.length > 1) refuse(field, 'set it or idp_metadata_xml, not both');
  if (documents.length > 0 && direct.some((value) => value !== undefined))
    refuse(field, 'set it or idp_entity_id, idp_sso_url and idp_certificates, not both');
  if (input.idp_metadata_url !== undefined) return await fromMetadataUrl(input.idp_metadata_url);
  const xml = input.idp_metadata_xml;
  if (xml !== undefined) return { ...fromMetadata(field, () => parseIdpMetadata(xml)), metadataUrl: '' };
  if (!input.idp_entity_id || !input.idp_sso_url || !input.idp_certificates?.length)
    return refuse(
      'body',
      'needs idp_metadata_xml, idp_metadata_url, or all of idp_entity_id, idp_sso_url and idp_certificates (at least one)',
    );
  const problem = ssoUrlProblem(input.idp_sso_url);
  if (problem) refuse('body.idp_sso_url', problem);
  return {
    idpEntityId: input.idp_entity_id,
    idpSsoUrl: input.idp_sso_url,
    idpCertificates: input.idp_certificates.map(certificate),
    metadataUrl: '',
  };
}

/** Refuses an email domain that already routes elsewhere: an LDAP directory or another SAML connection. */
async function assertDomainsFree(deps: SamlConnectionDeps, tx: Executor, id: string, domains: string[]) {
  const owners = new Map<string, string>();
  for (const [other, directory] of Object.entries(deps.config.ldap))
    for (const domain of directory.email_domains) owners.set(domain, `ldap.${other}`);
  for (const [other, connection] of Object.entries(deps.config.saml))
    for (const domain of connection.email_domains) owners.set(domain, `saml.${other}`);
  for (const stored of await store.storedEmailDomains(tx))
    if (stored.id !== id) for (const domain of stored.domains) owners.set(domain, `saml.${stored.id}`);
  domains.forEach((domain, index) => {
    const owner = owners.get(domain);
    if (owner) refuse(`body.email_domains.${index}`, `${domain} already belongs to ${owner}`);
  });
}

// One change at a time: the email-domain check reads every connection, so two concurrent changes must not both pass.
const serialize = (tx: Executor) => tx`select pg_advisory_xact_lock(hashtext('saml_connections'))`;

/** Every node (this one included) re-reads the table when the change commits (see app.ts). */
export const notifyNodes = (tx: Executor) =>
  tx`select pg_notify(${TOKEN_STATE_CHANNEL}, ${store.SAML_CONNECTIONS_CHANGED})`;

// This node answers with the connection as committed: it reloads now rather than wait for its own notification.
const afterCommit = (deps: SamlConnectionDeps) => deps.reloadConnections();

export async function createSamlConnection(deps: SamlConnectionDeps, actor: Actor, input: SamlConnectionInput) {
  assertDisplayText(input.name, 'body.name');
  const found = await identityProvider(input);
  if (!found)
    return refuse(
      'body',
      'needs idp_metadata_xml, idp_metadata_url, or all of idp_entity_id, idp_sso_url and idp_certificates',
    );
  const { metadataUrl, ...idp } = found;
  if (deps.config.saml[input.id]) throw new GatehouseError('saml_connection_exists');
  // @peculiar/x509 (about 20 MB resident) loads when the first connection is made, not with every server.
  const { generateSpKeyPair } = await import('../login/saml/sp-key-pair.ts');
  const sp = await generateSpKeyPair(`Gatehouse SAML ${input.id}`, deps.clock());
  const connection: store.StoredConnection = {
    id: input.id,
    settings: {
      name: input.name,
      email_domains: input.email_domains,
      display_name_attribute: input.display_name_attribute ?? DEFAULT_DISPLAY_NAME_ATTRIBUTE,
      email_attribute: input.email_attribute ?? DEFAULT_EMAIL_ATTRIBUTE,
      sign_up: input.sign_up ?? true,
      mfa_authn_contexts: input.mfa_authn_contexts ?? [],
      idp_metadata_url: metadataUrl,
    },
    ...idp,
    spKey: sp.key,
    spCertificate: sp.certificate,
  };
  await changeAudited(
    deps,
    actor,
    async (tx) => {
      await serialize(tx);
      if (await store.lockStoredConnection(tx, deps.sealKey, input.id))
        throw new GatehouseError('saml_connection_exists');
      await assertDomainsFree(deps, tx, input.id, input.email_domains);
      await store.insertStoredConnection(tx, deps.sealKey, connection, deps.clock());
      await notifyNodes(tx);
    },
    () => ({
      event: 'saml_connection.created',
      subject: input.id,
      details: { idp_entity_id: connection.idpEntityId, email_domains: input.email_domains.join(',') },
    }),
  );
  await afterCommit(deps);
}

const assertMadeHere = (deps: SamlConnectionDeps, id: string) => {
  if (deps.config.saml[id]) throw new GatehouseError('saml_connection_read_only');
};

export async function updateSamlConnection(
  deps: SamlConnectionDeps,
  actor: Actor,
  id: string,
  changes: SamlConnectionChanges,
) {
  assertMadeHere(deps, id);
  assertDisplayText(changes.name, 'body.name');
  const found = await identityProvider(changes);
  const { idp_metadata_xml, idp_metadata_url, idp_entity_id, idp_sso_url, idp_certificates, ...changed } = changes;
  // A new identity provider replaces the old one whole, with its metadata URL (or none).
  const { metadataUrl, ...idp } = found ?? { metadataUrl: undefined };
  const settings = metadataUrl === undefined ? changed : { ...changed, idp_metadata_url: metadataUrl };
  const fields = Object.keys(changes).sort();
  await changeAudited(
    deps,
    actor,
    async (tx) => {
      await serialize(tx);
      const current = await store.lockStoredConnection(tx, deps.sealKey, id);
      if (!current) throw new NotFound('No such SAML connection');
      if (settings.email_domains) await assertDomainsFree(deps, tx, id, settings.email_domains);
      if (fields.length === 0) return;
      await store.updateStoredConnection(
        tx,
        { ...current, ...idp, settings: { ...current.settings, ...settings } },
        deps.clock(),
      );
      await notifyNodes(tx);
    },
    () =>
      fields.length > 0
        ? { event: 'saml_connection.updated', subject: id, details: { fields: fields.join(',') } }
        : null,
  );
  await afterCommit(deps);
}

export async function deleteSamlConnection(deps: SamlConnectionDeps, actor: Actor, id: string) {
  assertMadeHere(deps, id);
  const deleted = await changeAudited(
    deps,
    actor,
    async (tx) => {
      const deleted = await store.deleteStoredConnection(tx, id);
      if (deleted) await notifyNodes(tx);
      return deleted;
    },
    (done) => (done ? { event: 'saml_connection.deleted', subject: id } : null),
  );
  if (!deleted) throw new NotFound('No such SAML connection');
  await afterCommit(deps);
}
