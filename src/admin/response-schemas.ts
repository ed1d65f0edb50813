// What the admin API answers (routes.ts), for the published contract. Closed objects where the handler's shape is
// fixed; the identity detail and grant lists name their members and allow more, since they gather several modules'
// views (docs/api.md lists which answers are described in part).
import type { TSchema } from 'typebox';
import { noBody } from '../http/route-schema.ts';
import { Type } from '../schema/type.ts';

const closed = <T extends Type.TProperties>(properties: T) => Type.Object(properties, { additionalProperties: false });
const open = <T extends Type.TProperties>(properties: T) => Type.Object(properties, { additionalProperties: true });
const Instant = Type.String({ format: 'date-time' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const NextCursor = Nullable(Type.String({ description: 'Pass as `cursor` for the next page; null on the last.' }));
const IdentityState = Type.Enum(['pending_verification', 'active', 'suspended', 'deleted']);
const Ial = Type.Enum(['ial1', 'ial2']);
const InvitationPending = Type.Boolean({
  description:
    'True until the person uses their invitation (enrollment) link: the account is active but has no way to sign in yet.',
});

export const Me = closed({
  sub: Type.String(),
  display_name: Type.String(),
  email: Nullable(Type.String({ description: 'The primary address; null for an account without one.' })),
  organization_id: Type.String({ description: 'The organization this console administers.' }),
  roles: Type.Array(Type.String(), { description: 'Your roles in it.' }),
});

export const Application = closed({
  id: Type.String(),
  identifier: Type.String(),
  name: Type.String(),
  environment: Type.Enum(['development', 'staging', 'production']),
  created_at: Instant,
  updated_at: Instant,
});
export const ApplicationPage = closed({ applications: Type.Array(Application), next_cursor: NextCursor });

const clientProperties = {
  client_id: Type.String(),
  application_id: Type.String(),
  name: Type.String(),
  kind: Type.Enum(['browser', 'native', 'web', 'service']),
  redirect_uris: Type.Array(Type.String()),
  post_logout_redirect_uris: Type.Array(Type.String()),
  scopes: Type.Array(Type.String()),
  audiences: Type.Array(Type.String()),
  first_party: Type.Boolean(),
  token_endpoint_auth_method: Type.Enum(['none', 'client_secret_post', 'private_key_jwt']),
  jwks: Nullable(Type.Object({ keys: Type.Array(Type.Object({}, { additionalProperties: true })) })),
  jwks_uri: Nullable(Type.String()),
  dpop_bound_access_tokens: Type.Boolean(),
  require_pushed_authorization_requests: Type.Boolean(),
  backchannel_logout_uri: Nullable(Type.String()),
  backchannel_logout_session_required: Type.Boolean(),
  token_exchange_audiences: Type.Array(Type.String(), {
    description: "RFC 8693: registered audiences the client may exchange a person's access token for; empty: none.",
  }),
  device_authorization_grant: Type.Boolean({
    description: 'RFC 8628: the client may use the device authorization grant; false by default.',
  }),
  created_at: Instant,
  updated_at: Instant,
};
export const Client = closed(clientProperties);
/** A new confidential client (or a rotated secret) carries its secret, shown this once. */
export const ClientWithSecret = closed({
  ...clientProperties,
  client_secret: Type.Optional(Type.String({ description: 'Shown once; store it now.' })),
});
/** A rotated secret: the client id and its new secret, shown this once. */
export const RotatedSecret = closed({ client_id: Type.String(), client_secret: Type.String() });
export const ClientPage = closed({ clients: Type.Array(Client), next_cursor: NextCursor });

export const Resource = closed({
  id: Type.String(),
  audience: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Type.String()),
  created_at: Instant,
  updated_at: Instant,
});
export const ResourcePage = closed({ resources: Type.Array(Resource), next_cursor: NextCursor });

export const IdentityPage = closed({
  identities: Type.Array(
    closed({
      sub: Type.String(),
      state: IdentityState,
      ial: Ial,
      display_name: Type.String(),
      email: Nullable(Type.String()),
      invited: InvitationPending,
      created_at: Instant,
    }),
  ),
  next_cursor: NextCursor,
});

export const IdentityDetail = open({
  sub: Type.String(),
  state: IdentityState,
  ial: Ial,
  display_name: Type.String(),
  invited: InvitationPending,
  created_at: Instant,
  updated_at: Instant,
  emails: Type.Array(open({ address: Type.String(), primary: Type.Boolean(), verified: Type.Boolean() })),
  sign_in_methods: Type.Array(open({ id: Type.String(), kind: Type.String() })),
  memberships: Type.Array(open({ organization_id: Type.String(), roles: Type.Array(Type.String()) })),
  sessions: Type.Array(open({ id: Type.String() })),
});

const Enrollment = closed({
  delivery: Type.Enum(['email', 'dev_mailbox', 'shown'], {
    description:
      'Where the enrollment link went: email (sent to the person), dev_mailbox (kept in the development mailbox, not sent), or shown (only in this answer).',
  }),
  expires_at: Instant,
  url: Type.Optional(Type.String({ description: 'The link, only when it is shown rather than sent.' })),
});
export const Invited = closed({
  sub: Type.String(),
  email: Type.String(),
  display_name: Type.String(),
  organization_id: Type.String(),
  roles: Type.Array(Type.String()),
  state: Type.Literal('active'),
  invited: Type.Literal(true),
  enrollment: Enrollment,
});
export const EnrollmentLink = closed({ sub: Type.String(), enrollment: Enrollment });
export const Suspended = closed({
  sub: Type.String(),
  state: Type.Literal('suspended'),
  sessions_revoked: Type.Integer(),
  grants_revoked: Type.Integer(),
});
export const SessionsRevoked = closed({ revoked: Type.Integer(), grants_revoked: Type.Integer() });
export const Reactivated = closed({ sub: Type.String(), state: Type.Literal('active') });
export const AssuranceSet = closed({ sub: Type.String(), ial: Ial });
export const IdentityGrants = closed({
  grants: Type.Array(open({ client_id: Type.String() }), { description: 'Each application holding access.' }),
});
export const GrantRevoked = closed({
  client_id: Type.String(),
  grants_revoked: Type.Integer(),
  consent_removed: Type.Boolean(),
});

export const Organizations = closed({
  organizations: Type.Array(closed({ id: Type.String(), name: Type.String(), bootstrap: Type.Boolean() })),
});
export const MemberPage = closed({
  organization: closed({ id: Type.String(), name: Type.String() }),
  members: Type.Array(
    closed({
      sub: Type.String(),
      display_name: Type.String(),
      email: Nullable(Type.String()),
      state: IdentityState,
      ial: Ial,
      roles: Type.Array(Type.String()),
      joined_at: Instant,
    }),
  ),
  next_cursor: NextCursor,
});
export const MemberRolesSet = closed({
  organization_id: Type.String(),
  sub: Type.String(),
  roles: Type.Array(Type.String()),
});

export const Deleted = noBody('Deleted.');
