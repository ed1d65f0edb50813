// Client registration: validation against the owning application and the registered resources, the secret shown
// once (creation and rotation responses only), every change audited without the secret.

import { type ClientSpec, clientProblems, isConfidential, namedAudiences } from '../clients/client-rules.ts';
import { type ClientId, newClientId } from '../clients/ids.ts';
import * as store from '../clients/store.ts';
import type { Executor } from '../db/pool.ts';
import { assertDisplayText } from '../http/display-text.ts';
import { InvalidRequest, NotFound } from '../http/errors.ts';
import { invalidFields } from '../http/validation-messages.ts';
import { clientSecretHmac, newClientSecret } from '../oauth/client-secret.ts';
import { changedFields } from './changed-fields.ts';
import { type Actor, type AdminDeps, changeAudited } from './context.ts';
import { byCreation, type PageQuery, pageOf, pageRequest } from './paging.ts';

export interface ClientInput {
  application_id: string;
  name: string;
  kind: store.ClientKind;
  redirect_uris?: string[];
  post_logout_redirect_uris?: string[];
  scopes: string[];
  audiences?: string[];
  first_party?: boolean;
  dpop_bound_access_tokens?: boolean;
  require_pushed_authorization_requests?: boolean;
  backchannel_logout_uri?: string | null;
  backchannel_logout_session_required?: boolean;
  token_endpoint_auth_method?: store.TokenEndpointAuthMethod;
  jwks?: store.Client['jwks'];
  jwks_uri?: string | null;
  token_exchange_audiences?: string[];
  device_authorization_grant?: boolean;
}

export type ClientUpdate = Partial<Omit<ClientInput, 'application_id' | 'kind' | 'token_endpoint_auth_method'>>;

export const presentClient = (c: store.Client) => ({
  client_id: c.id,
  application_id: c.applicationId,
  name: c.name,
  kind: c.kind,
  redirect_uris: c.redirectUris,
  post_logout_redirect_uris: c.postLogoutRedirectUris,
  scopes: c.scopes,
  audiences: c.audiences,
  first_party: c.firstParty,
  token_endpoint_auth_method: c.tokenEndpointAuthMethod,
  jwks: c.jwks,
  jwks_uri: c.jwksUri,
  dpop_bound_access_tokens: c.dpopBoundAccessTokens,
  require_pushed_authorization_requests: c.requirePushedAuthorizationRequests,
  backchannel_logout_uri: c.backchannelLogoutUri,
  backchannel_logout_session_required: c.backchannelLogoutSessionRequired,
  token_exchange_audiences: c.tokenExchangeAudiences,
  device_authorization_grant: c.deviceAuthorizationGrant,
  created_at: c.createdAt.toISOString(),
  updated_at: c.updatedAt.toISOString(),
});

const unique = (values: string[]) => [...new Set(values)];

type ClientLists = Pick<
  ClientSpec,
  'redirectUris' | 'postLogoutRedirectUris' | 'scopes' | 'audiences' | 'tokenExchangeAudiences'
>;

/** RFC 7591 §2: a confidential client's default is client_secret_post, a public client's none. */
const defaultMethod = (kind: store.ClientKind): store.TokenEndpointAuthMethod =>
  isConfidential(kind) ? 'client_secret_post' : 'none';

/** Each list once per entry, in the order first sent: what is stored once the lists as sent passed validation. */
const deduplicated = (lists: ClientSpec): ClientLists => ({
  redirectUris: unique(lists.redirectUris),
  postLogoutRedirectUris: unique(lists.postLogoutRedirectUris),
  scopes: unique(lists.scopes),
  audiences: unique(lists.audiences),
  tokenExchangeAudiences: unique(lists.tokenExchangeAudiences),
});

/**
 * Validates the lists as sent, before de-duplication, so each problem's path names the entry at the index the caller
 * sent it. Runs inside the transaction that writes, holding the application and the client's resources (see
 * store.lockApplication and store.lockResourcesByAudience), so no concurrent change to them slips past the checks.
 */
async function assertValid(tx: Executor, applicationId: string, spec: ClientSpec) {
  const application = await store.lockApplication(tx, applicationId, 'share');
  if (!application) throw invalidFields([{ path: 'body.application_id', problem: 'is not a registered application' }]);
  const resources = await store.lockResourcesByAudience(tx, namedAudiences(spec));
  const problems = clientProblems(spec, application.environment, resources);
  if (problems.length > 0) throw invalidFields(problems);
}

/**
 * `options.id`: an import (gatehouse import) keeps the client id the relying application is configured with; the API
 * never sends one.
 */
export async function createClient(deps: AdminDeps, actor: Actor, input: ClientInput, options: { id?: ClientId } = {}) {
  assertDisplayText(input.name, 'body.name');
  const method = input.token_endpoint_auth_method ?? defaultMethod(input.kind);
  const secret = method === 'client_secret_post' && isConfidential(input.kind) ? newClientSecret() : null;
  const sent: ClientSpec = {
    kind: input.kind,
    redirectUris: input.redirect_uris ?? [],
    postLogoutRedirectUris: input.post_logout_redirect_uris ?? [],
    scopes: input.scopes,
    audiences: input.audiences ?? [],
    tokenEndpointAuthMethod: method,
    jwks: input.jwks ?? null,
    jwksUri: input.jwks_uri ?? null,
    backchannelLogoutUri: input.backchannel_logout_uri ?? null,
    tokenExchangeAudiences: input.token_exchange_audiences ?? [],
    deviceAuthorizationGrant: input.device_authorization_grant ?? false,
  };
  const client = {
    id: options.id ?? newClientId(),
    applicationId: input.application_id,
    name: input.name,
    kind: input.kind,
    secretHmac: secret ? clientSecretHmac(deps.clientSecretKey, secret) : null,
    ...deduplicated(sent),
    firstParty: input.first_party ?? false,
    tokenEndpointAuthMethod: method,
    jwks: sent.jwks,
    jwksUri: sent.jwksUri,
    dpopBoundAccessTokens: input.dpop_bound_access_tokens ?? false,
    requirePushedAuthorizationRequests: input.require_pushed_authorization_requests ?? false,
    backchannelLogoutUri: sent.backchannelLogoutUri,
    backchannelLogoutSessionRequired: input.backchannel_logout_session_required ?? false,
    deviceAuthorizationGrant: sent.deviceAuthorizationGrant,
    createdAt: deps.clock(),
  };
  const created = await changeAudited(
    deps,
    actor,
    async (tx) => {
      await assertValid(tx, client.applicationId, sent);
      return store.insertClient(tx, client);
    },
    (c) => ({ event: 'client.created', subject: c.id, details: { kind: c.kind, application: c.applicationId } }),
  );
  // The secret appears here and in a rotation response only (SPEC.md "Client secret display: returned once only").
  return secret ? { ...presentClient(created), client_secret: secret } : presentClient(created);
}

async function requireClient(deps: AdminDeps, id: string) {
  const client = await store.findClient(deps.sql, id);
  if (!client) throw new NotFound('No such client');
  return client;
}

export async function getClient(deps: AdminDeps, id: string) {
  return presentClient(await requireClient(deps, id));
}

/** One page, newest first (see paging.ts). */
export async function listClients(deps: AdminDeps, query: PageQuery) {
  const { limit, after } = pageRequest(query);
  const page = pageOf(await store.listClients(deps.sql, limit + 1, after), limit, byCreation);
  return { clients: page.items.map(presentClient), next_cursor: page.nextCursor };
}

const CLIENT_FIELDS = {
  name: 'name',
  redirectUris: 'redirect_uris',
  postLogoutRedirectUris: 'post_logout_redirect_uris',
  scopes: 'scopes',
  audiences: 'audiences',
  firstParty: 'first_party',
  dpopBoundAccessTokens: 'dpop_bound_access_tokens',
  requirePushedAuthorizationRequests: 'require_pushed_authorization_requests',
  backchannelLogoutUri: 'backchannel_logout_uri',
  backchannelLogoutSessionRequired: 'backchannel_logout_session_required',
  jwks: 'jwks',
  jwksUri: 'jwks_uri',
  tokenExchangeAudiences: 'token_exchange_audiences',
  deviceAuthorizationGrant: 'device_authorization_grant',
} as const;

export async function updateClient(deps: AdminDeps, actor: Actor, id: string, changes: ClientUpdate) {
  assertDisplayText(changes.name, 'body.name');
  const outcome = await changeAudited(
    deps,
    actor,
    async (tx) => {
      // Read under the row lock: a concurrent update waits, then applies its fields on top of this one's.
      const current = await store.lockClient(tx, id);
      if (!current) return null;
      // Lists not sent keep their stored entries (and those entries' indexes in any problem found).
      const sent: ClientSpec = {
        kind: current.kind,
        redirectUris: changes.redirect_uris ?? current.redirectUris,
        postLogoutRedirectUris: changes.post_logout_redirect_uris ?? current.postLogoutRedirectUris,
        scopes: changes.scopes ?? current.scopes,
        audiences: changes.audiences ?? current.audiences,
        tokenEndpointAuthMethod: current.tokenEndpointAuthMethod,
        // Sending one of jwks and jwks_uri replaces the other (a client moving its keys to a URL, or back).
        jwks: changes.jwks !== undefined ? changes.jwks : changes.jwks_uri ? null : current.jwks,
        jwksUri: changes.jwks_uri !== undefined ? changes.jwks_uri : changes.jwks ? null : current.jwksUri,
        backchannelLogoutUri:
          changes.backchannel_logout_uri !== undefined ? changes.backchannel_logout_uri : current.backchannelLogoutUri,
        tokenExchangeAudiences: changes.token_exchange_audiences ?? current.tokenExchangeAudiences,
        deviceAuthorizationGrant: changes.device_authorization_grant ?? current.deviceAuthorizationGrant,
      };
      // Validated even when nothing changes: a request with a bad value is refused, not answered as a no-op.
      await assertValid(tx, current.applicationId, sent);
      const next: store.Client = {
        ...current,
        name: changes.name ?? current.name,
        ...deduplicated(sent),
        jwks: sent.jwks,
        jwksUri: sent.jwksUri,
        backchannelLogoutUri: sent.backchannelLogoutUri,
        deviceAuthorizationGrant: sent.deviceAuthorizationGrant,
        backchannelLogoutSessionRequired:
          changes.backchannel_logout_session_required ?? current.backchannelLogoutSessionRequired,
        firstParty: changes.first_party ?? current.firstParty,
        dpopBoundAccessTokens: changes.dpop_bound_access_tokens ?? current.dpopBoundAccessTokens,
        requirePushedAuthorizationRequests:
          changes.require_pushed_authorization_requests ?? current.requirePushedAuthorizationRequests,
      };
      const changed = changedFields(current, next, CLIENT_FIELDS);
      if (changed.length === 0) return { client: current, changed };
      const updated = await store.updateClient(tx, id, next, deps.clock());
      return updated && { client: updated, changed };
    },
    (o) =>
      o && o.changed.length > 0
        ? { event: 'client.updated', subject: id, details: { fields: o.changed.join(',') } }
        : null,
  );
  if (!outcome) throw new NotFound('No such client');
  return presentClient(outcome.client);
}

export async function rotateClientSecret(deps: AdminDeps, actor: Actor, id: string) {
  const client = await requireClient(deps, id);
  if (!isConfidential(client.kind))
    throw new InvalidRequest(`A ${client.kind} client is public and has no secret to rotate`);
  if (client.tokenEndpointAuthMethod === 'private_key_jwt')
    throw new InvalidRequest('A private_key_jwt client has no secret to rotate: update its jwks or jwks_uri instead');
  const secret = newClientSecret();
  const rotated = await changeAudited(
    deps,
    actor,
    (tx) => store.updateClientSecret(tx, id, clientSecretHmac(deps.clientSecretKey, secret), deps.clock()),
    (done) => (done ? { event: 'client.secret_rotated', subject: id } : null),
  );
  if (!rotated) throw new NotFound('No such client');
  return { client_id: id, client_secret: secret };
}

export async function deleteClient(deps: AdminDeps, actor: Actor, id: string) {
  // Its grants, codes and refresh tokens go with it (foreign keys cascade); outstanding JWTs expire within minutes.
  const deleted = await changeAudited(
    deps,
    actor,
    (tx) => store.deleteClient(tx, id),
    (done) => (done ? { event: 'client.deleted', subject: id } : null),
  );
  if (!deleted) throw new NotFound('No such client');
}
