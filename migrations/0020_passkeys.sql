-- Passkeys (WebAuthn, issue 20). A passkey is a sign-in method (kind 'passkey', external_subject = the credential
-- id), so the identity rules (method conflict, last method) apply to it unchanged; this table holds what the
-- WebAuthn ceremony needs besides. The user-chosen name is the method's label.
create table passkey_credentials (
  method_id bigint primary key references sign_in_methods (id) on delete cascade,
  identity_id text not null references identities (id) on delete cascade,
  -- base64url, exactly as the authenticator produced it (also sign_in_methods.external_subject).
  credential_id text not null unique,
  -- COSE_Key bytes (WebAuthn Level 3 §6.5.1.1).
  public_key bytea not null,
  -- The signature counter (§6.1.1); 0 for authenticators that do not keep one.
  sign_count bigint not null default 0,
  transports text[] not null default '{}',
  backup_eligible boolean not null,
  backup_state boolean not null,
  aaguid text not null,
  created_at timestamptz not null
);
create index passkey_credentials_identity on passkey_credentials (identity_id);

-- The WebAuthn user handle (user.id, §5.4.3): random, opaque, one per identity, created with its first passkey and
-- kept when passkeys are removed, so an authenticator's discoverable credentials always name the same account.
create table passkey_user_handles (
  identity_id text primary key references identities (id) on delete cascade,
  user_handle text not null unique,
  created_at timestamptz not null
);

-- Outstanding ceremony challenges. A sign-in challenge is bound to the login cookie (binding_hash = its SHA-256)
-- and, when a subject was given, to that identity; a registration challenge to the session and its identity.
-- Consumed once, whether the answer then verifies or not.
create table passkey_challenges (
  id text primary key,
  purpose text not null check (purpose in ('registration', 'authentication')),
  challenge text not null,
  binding_hash text not null,
  identity_id text references identities (id) on delete cascade,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  consumed_at timestamptz
);
create index passkey_challenges_expires on passkey_challenges (expires_at);
