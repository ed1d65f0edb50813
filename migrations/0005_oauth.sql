-- OAuth 2.0 / OpenID Connect: what the admin API registers (applications, clients, resources) and what the
-- protocol engine issues (codes, grants, refresh tokens, consents, revoked access tokens, signing keys).
-- Every token is stored only as SHA-256 of a 256-bit random value; client secrets only as HMAC.

create table oauth_applications (
  id text primary key check (id like 'app\_%'),
  identifier text not null unique,
  name text not null,
  environment text not null check (environment in ('development', 'staging', 'production')),
  created_at timestamptz not null,
  updated_at timestamptz not null
);

create table oauth_resources (
  id text primary key check (id like 'res\_%'),
  audience text not null unique,
  name text not null,
  scopes text[] not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);

-- The `cli_` prefix keeps client ids disjoint from identity subs (`usr_`), RFC 9700 §4.15.
create table oauth_clients (
  id text primary key check (id like 'cli\_%'),
  application_id text not null references oauth_applications (id) on delete restrict,
  name text not null,
  kind text not null check (kind in ('browser', 'native', 'web', 'service')),
  -- HMAC-SHA256(client-secret key, secret), base64url; null for public clients.
  secret_hmac text,
  redirect_uris text[] not null default '{}',
  post_logout_redirect_uris text[] not null default '{}',
  scopes text[] not null default '{}',
  -- Audiences a service client is provisioned for (oauth_resources.audience values).
  audiences text[] not null default '{}',
  first_party boolean not null default false,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  check ((kind in ('web', 'service')) = (secret_hmac is not null))
);
create index oauth_clients_application on oauth_clients (application_id);

-- One grant per successful code exchange: the family every refresh token and access token of it belongs to.
-- Revoking the grant (code reuse, refresh replay, RFC 7009 revocation) kills them all.
create table oauth_grants (
  id text primary key check (id like 'grt\_%'),
  client_id text not null references oauth_clients (id) on delete cascade,
  identity_id text not null references identities (id) on delete cascade,
  session_id text not null,
  scope text not null,
  auth_time timestamptz not null,
  acr text not null,
  amr text[] not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  revoked_at timestamptz
);
create index oauth_grants_identity on oauth_grants (identity_id);

-- grant_id is chosen when the code is issued, so a reused code names the grant to revoke.
create table oauth_authorization_codes (
  code_hash text primary key,
  grant_id text not null unique,
  client_id text not null references oauth_clients (id) on delete cascade,
  identity_id text not null references identities (id) on delete cascade,
  session_id text not null,
  redirect_uri text not null,
  scope text not null,
  code_challenge text not null,
  nonce text,
  auth_time timestamptz not null,
  acr text not null,
  amr text[] not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  used_at timestamptz
);
create index oauth_authorization_codes_expires on oauth_authorization_codes (expires_at);

-- A rotated token keeps its successor sealed for the grace window, so an honest parallel retry gets the same one.
create table oauth_refresh_tokens (
  token_hash text primary key,
  grant_id text not null references oauth_grants (id) on delete cascade,
  client_id text not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  rotated_at timestamptz,
  successor_sealed text
);
create index oauth_refresh_tokens_grant on oauth_refresh_tokens (grant_id);

-- Access tokens are JWTs; one revoked by RFC 7009 is listed here until it would have expired anyway.
create table oauth_revoked_access_tokens (
  jti text primary key,
  expires_at timestamptz not null
);

-- Remembered consent of an identity to a third-party client, per scope.
create table oauth_consents (
  identity_id text not null references identities (id) on delete cascade,
  client_id text not null references oauth_clients (id) on delete cascade,
  scopes text[] not null,
  updated_at timestamptz not null,
  primary key (identity_id, client_id)
);

-- Signing keys added by `gatehouse keys rotate`, sealed with the signing secret. The initial key lives in the
-- secrets directory; it gets a row (without private key) only when it is retired.
create table oauth_signing_keys (
  kid text primary key,
  public_jwk jsonb not null,
  private_key_sealed text,
  created_at timestamptz not null,
  retired_at timestamptz
);
