-- Local credentials, login transactions, sign-in throttling and owner enrollment links (issue 3).

-- The password of a `password` sign-in method (kind 'password', provider 'local', external_subject = the normalized
-- email the person signs in with). PHC string: argon2id with its parameters, so a changed config rehashes on login.
create table password_credentials (
  method_id bigint primary key references sign_in_methods (id) on delete cascade,
  identity_id text not null unique references identities (id) on delete cascade,
  phc text not null,
  updated_at timestamptz not null default now()
);

-- RFC 6238 seed, AES-256-GCM sealed under the TOTP key (purpose bound to the identity). confirmed_at null = an
-- enrollment that has not proved a code yet. last_used_step makes each code single use (RFC 6238 §5.2).
create table totp_credentials (
  identity_id text primary key references identities (id) on delete cascade,
  sealed_seed text not null,
  confirmed_at timestamptz,
  last_used_step bigint not null default 0,
  created_at timestamptz not null default now()
);

-- Recovery codes: HMAC-SHA-256 under the recovery-code pepper (the codes are random, so no slow hash is needed).
create table recovery_codes (
  identity_id text not null references identities (id) on delete cascade,
  code_hash text not null,
  used_at timestamptz,
  created_at timestamptz not null default now(),
  primary key (identity_id, code_hash)
);

-- A login started by POST /auth/login. Bound to the browser by a cookie whose SHA-256 is stored here. identity_id
-- is null for a subject that is unknown (a decoy row, so both cases do the same work and answer the same).
create table login_transactions (
  id text primary key,
  challenge_id text not null,
  cookie_hash text not null,
  subject text not null,
  identity_id text references identities (id) on delete cascade,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  consumed_at timestamptz
);
create index login_transactions_expires on login_transactions (expires_at);

-- Failed sign-in attempts per account (scope 'account', key = normalized subject) and per client IP (scope 'ip').
-- Shared by every node, so a lockout holds across nodes and restarts.
create table login_throttle (
  scope text not null check (scope in ('account', 'ip')),
  key text not null,
  failures integer not null default 0,
  locked_until timestamptz,
  updated_at timestamptz not null,
  primary key (scope, key)
);

-- One-time owner enrollment links (`gatehouse owner enroll-link`). Only the SHA-256 of the token is stored.
create table enrollment_tokens (
  token_hash text primary key,
  identity_id text not null references identities (id) on delete cascade,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  used_at timestamptz
);
create index enrollment_tokens_identity on enrollment_tokens (identity_id);
