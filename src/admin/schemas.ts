// Admin API request schemas: closed objects (unknown fields are 400), bounded strings and arrays.

import { SCOPE_TOKEN } from '../clients/scopes.ts';
import { Type } from '../schema/type.ts';

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Environment = Type.Enum(['development', 'staging', 'production']);
const Identifier = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$', maxLength: 63 });
const Uri = Type.String({ minLength: 1, maxLength: 2000 });
const Uris = Type.Array(Uri, { maxItems: 20 });
const Scope = Type.String({ pattern: SCOPE_TOKEN.source, maxLength: 128 });
const Scopes = Type.Array(Scope, { maxItems: 100 });
const Kind = Type.Enum(['browser', 'native', 'web', 'service']);
/** RFC 7517 JWK Set of a private_key_jwt client: public keys, checked by src/clients/client-keys-rules.ts. */
const Jwks = Type.Object(
  { keys: Type.Array(Type.Object({}, { additionalProperties: true, maxProperties: 20 }), { maxItems: 10 }) },
  { additionalProperties: false },
);
const BackchannelLogout = {
  backchannel_logout_uri: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 254 }), Type.Null()])),
  backchannel_logout_session_required: Type.Optional(Type.Boolean()),
};
/** RFC 8693: registered audiences a confidential client may exchange a person's token for; empty by default. */
const TokenExchange = {
  token_exchange_audiences: Type.Optional(Type.Array(Uri, { maxItems: 20 })),
};
/** RFC 8628: whether the client may use the device authorization grant; false by default, never for service clients. */
const DeviceAuthorization = {
  device_authorization_grant: Type.Optional(Type.Boolean()),
};
const KeyRegistration = {
  jwks: Type.Optional(Type.Union([Jwks, Type.Null()])),
  jwks_uri: Type.Optional(Type.Union([Uri, Type.Null()])),
};

export const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) }, { additionalProperties: false });
export const EmptyBody = Type.Union([Type.Object({}, { additionalProperties: false }), Type.Null()]);

export const ApplicationCreate = Type.Object(
  { identifier: Identifier, name: Name, environment: Environment },
  { additionalProperties: false },
);
export const ApplicationUpdate = Type.Object(
  { identifier: Type.Optional(Identifier), name: Type.Optional(Name), environment: Type.Optional(Environment) },
  { additionalProperties: false },
);

export const ClientCreate = Type.Object(
  {
    application_id: Type.String({ minLength: 1, maxLength: 64 }),
    name: Name,
    kind: Kind,
    redirect_uris: Type.Optional(Uris),
    post_logout_redirect_uris: Type.Optional(Uris),
    scopes: Scopes,
    audiences: Type.Optional(Type.Array(Uri, { maxItems: 20 })),
    first_party: Type.Optional(Type.Boolean()),
    dpop_bound_access_tokens: Type.Optional(Type.Boolean()),
    require_pushed_authorization_requests: Type.Optional(Type.Boolean()),
    ...BackchannelLogout,
    ...TokenExchange,
    ...DeviceAuthorization,
    token_endpoint_auth_method: Type.Optional(Type.Enum(['none', 'client_secret_post', 'private_key_jwt'])),
    ...KeyRegistration,
  },
  { additionalProperties: false },
);
export const ClientUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    redirect_uris: Type.Optional(Uris),
    post_logout_redirect_uris: Type.Optional(Uris),
    scopes: Type.Optional(Scopes),
    audiences: Type.Optional(Type.Array(Uri, { maxItems: 20 })),
    first_party: Type.Optional(Type.Boolean()),
    dpop_bound_access_tokens: Type.Optional(Type.Boolean()),
    require_pushed_authorization_requests: Type.Optional(Type.Boolean()),
    ...BackchannelLogout,
    ...TokenExchange,
    ...DeviceAuthorization,
    ...KeyRegistration,
  },
  { additionalProperties: false },
);

export const ResourceCreate = Type.Object(
  { audience: Uri, name: Name, scopes: Type.Array(Scope, { minItems: 1, maxItems: 100 }) },
  { additionalProperties: false },
);
export const ResourceUpdate = Type.Object(
  { name: Type.Optional(Name), scopes: Type.Optional(Type.Array(Scope, { minItems: 1, maxItems: 100 })) },
  { additionalProperties: false },
);

export const SubParams = Type.Object(
  { sub: Type.String({ pattern: '^usr_[A-Za-z0-9_-]{1,64}$' }) },
  { additionalProperties: false },
);
export const GrantParams = Type.Object(
  {
    sub: Type.String({ pattern: '^usr_[A-Za-z0-9_-]{1,64}$' }),
    client_id: Type.String({ pattern: '^cli_[A-Za-z0-9_-]{1,64}$' }),
  },
  { additionalProperties: false },
);
export const OrganizationParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 128 }) },
  { additionalProperties: false },
);
export const MemberParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 128 }), sub: Type.String({ pattern: '^usr_[A-Za-z0-9_-]{1,64}$' }) },
  { additionalProperties: false },
);

// Query strings arrive as text and are never coerced (app.ts), so the limit is matched as digits: 1-100.
const Page = {
  limit: Type.Optional(Type.String({ pattern: '^(100|[1-9][0-9]?)$' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
};
export const IdentitySearch = Type.Object(
  { q: Type.Optional(Type.String({ maxLength: 320 })), ...Page },
  { additionalProperties: false },
);
/** Members, applications, clients and resources: a page, nothing else. */
export const ListPage = Type.Object(Page, { additionalProperties: false });

export const AssuranceChange = Type.Object({ ial: Type.Enum(['ial1', 'ial2']) }, { additionalProperties: false });

// owner, admin, member, or an operator-defined name that route policies can match exactly.
const Role = Type.String({ pattern: '^[a-z0-9][a-z0-9_.:-]{0,63}$' });
const Roles = Type.Array(Role, { minItems: 1, maxItems: 20, uniqueItems: true });
export const MemberRoles = Type.Object({ roles: Roles }, { additionalProperties: false });

/** POST /admin/identities: an invitation into the bootstrap organization. */
export const Invitation = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254 }),
    display_name: Type.Optional(Type.String({ maxLength: 200 })),
    roles: Roles,
  },
  { additionalProperties: false },
);
