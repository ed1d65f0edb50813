// POST /admin/saml-connections, PATCH and DELETE /admin/saml-connections/:id: SAML connections made through the
// admin API (saml-connections.ts). GET /admin/saml-connections, which lists these and the configuration file's, is
// in src/login/saml/admin-routes.ts. Every route passes the owner guard first.
import type { FastifyInstance } from 'fastify';
import { ADMIN_ERRORS, errorResponses } from '../http/error-responses.ts';
import { SESSION } from '../http/route-schema.ts';
import { connectionView } from '../login/saml/admin-view.ts';
import { ADMIN_METADATA_BODY_LIMIT_BYTES, routeBodyLimit } from '../login/saml/body-limits.ts';
import { Type } from '../schema/type.ts';
import { type AdminGuard, guardAdminRoutes } from './guard.ts';
import { Deleted } from './response-schemas.ts';
import * as saml from './saml-connections.ts';
import { type MetadataFetchDeps, refreshSamlMetadata } from './saml-metadata-refresh.ts';
import { EmptyBody } from './schemas.ts';

export interface SamlConnectionRoutesDeps extends saml.SamlConnectionDeps, MetadataFetchDeps {
  requireAdmin: AdminGuard;
}

const idp = {
  idp_metadata_xml: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200_000,
      description: "The identity provider's SAML metadata document; or give the three idp_ fields below instead.",
    }),
  ),
  idp_metadata_url: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        'Where the identity provider publishes its metadata (https, http only for loopback; redirects not followed): fetched now, again on a key rollover and on POST .../metadata/refresh. Or give idp_metadata_xml or the three idp_ fields below.',
    }),
  ),
  idp_entity_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 1024, description: "The identity provider's entity id." }),
  ),
  idp_sso_url: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'Its single sign-on URL (HTTP-Redirect); https, http only for loopback.',
    }),
  ),
  idp_certificates: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 20_000 }), {
      minItems: 1,
      maxItems: 4,
      description: 'PEM certificate(s) it signs with; only these verify its answers.',
    }),
  ),
};
const settings = {
  name: Type.String({ minLength: 1, maxLength: 200, description: 'Name shown to people.' }),
  email_domains: Type.Array(Type.String({ pattern: '^[a-z0-9.-]+\\.[a-z]{2,}$' }), {
    minItems: 1,
    maxItems: 100,
    description: 'Sign-in subjects in these domains go to this identity provider; a domain belongs to one place.',
  }),
  display_name_attribute: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1024,
      description:
        'Attribute giving a new identity its display name; the default "displayName" also tries its OID, cn, givenName + sn (docs/identity.md).',
    }),
  ),
  email_attribute: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1024,
      description:
        'Attribute giving a new identity its (unverified) email; the default "email" also tries mail and its OID (docs/identity.md).',
    }),
  ),
  sign_up: Type.Optional(Type.Boolean({ description: 'A person without an identity here gets one at first sign-in.' })),
  mfa_authn_contexts: Type.Optional(
    Type.Array(Type.String({ minLength: 1 }), { description: 'AuthnContextClassRef values that count as MFA (aal2).' }),
  ),
};
const SamlConnectionCreate = Type.Object(
  { id: Type.String({ pattern: '^[a-z][a-z0-9-]{0,31}$' }), ...settings, ...idp },
  { additionalProperties: false },
);
const SamlConnectionUpdate = Type.Object(
  { ...Type.Partial(Type.Object(settings)).properties, ...idp },
  { additionalProperties: false, minProperties: 1 },
);
const Connection = Type.Object({ id: Type.String() }, { additionalProperties: true });
const IdParams = Type.Object({ id: Type.String({ pattern: '^[a-z][a-z0-9-]{0,31}$' }) });

type Id = { Params: { id: string } };

export async function samlConnectionRoutes(app: FastifyInstance, deps: SamlConnectionRoutesDeps): Promise<void> {
  const actor = guardAdminRoutes(app, deps.requireAdmin);
  const view = (id: string) => {
    const connection = deps.connections.get(id);
    if (!connection) throw new Error(`SAML connection ${id} missing after its change`);
    return connectionView(connection);
  };
  const doc = (summary: string) => ({ summary, tags: ['admin'], security: SESSION });
  // idp_metadata_xml may be 200,000 characters: more than the global 64 KiB default (body-limits.ts).
  const bodyLimit = routeBodyLimit(ADMIN_METADATA_BODY_LIMIT_BYTES, app.initialConfig.bodyLimit ?? 0);

  app.post(
    '/admin/saml-connections',
    {
      bodyLimit,
      schema: {
        body: SamlConnectionCreate,
        ...doc('Adds a SAML connection (its service provider key pair is generated)'),
        response: { 201: Connection, ...errorResponses(...ADMIN_ERRORS, 'saml_connection_exists') },
      },
    },
    async (request, reply) => {
      const input = request.body as saml.SamlConnectionInput;
      await saml.createSamlConnection(deps, actor(request), input);
      return reply.code(201).send(view(input.id));
    },
  );
  app.patch<Id>(
    '/admin/saml-connections/:id',
    {
      bodyLimit,
      schema: {
        params: IdParams,
        body: SamlConnectionUpdate,
        ...doc('Changes a SAML connection made through the API'),
        response: { 200: Connection, ...errorResponses(...ADMIN_ERRORS, 'not_found', 'saml_connection_read_only') },
      },
    },
    async (request) => {
      await saml.updateSamlConnection(deps, actor(request), request.params.id, request.body as never);
      return view(request.params.id);
    },
  );
  app.post<Id>(
    '/admin/saml-connections/:id/metadata/refresh',
    {
      schema: {
        params: IdParams,
        body: EmptyBody,
        ...doc("Fetches a SAML connection's metadata URL now (a configuration file connection: on this node)"),
        response: {
          200: Connection,
          ...errorResponses(...ADMIN_ERRORS, 'not_found', 'saml_metadata_url_missing', 'saml_metadata_unreachable'),
        },
      },
    },
    async (request) => {
      await refreshSamlMetadata(deps, actor(request), request.params.id);
      return view(request.params.id);
    },
  );
  app.delete<Id>(
    '/admin/saml-connections/:id',
    {
      schema: {
        params: IdParams,
        body: EmptyBody,
        ...doc('Deletes a SAML connection made through the API'),
        response: { 204: Deleted, ...errorResponses(...ADMIN_ERRORS, 'not_found', 'saml_connection_read_only') },
      },
    },
    async (request, reply) => {
      await saml.deleteSamlConnection(deps, actor(request), request.params.id);
      return reply.code(204).send();
    },
  );
}
