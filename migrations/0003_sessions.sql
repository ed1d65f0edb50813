-- Server-side browser sessions (DESIGN.md "Session cookie"). The cookie holds a 256-bit secret; only its SHA-256 is
-- stored, so a database read does not yield usable cookies. `id` is the public handle (listing, revoking, OIDC sid).
create table sessions (
  id text primary key check (id like 'ses\_%'),
  token_hash text not null unique,
  identity_id text not null references identities (id) on delete cascade,
  aal text not null check (aal in ('aal1', 'aal2')),
  amr text[] not null default '{}',
  auth_time timestamptz not null,
  -- A session from a password-only sign-in of an account without a second factor: it may only enroll TOTP.
  enrollment_only boolean not null default false,
  client_ip text,
  user_agent text,
  created_at timestamptz not null,
  last_seen_at timestamptz not null,
  idle_expires_at timestamptz not null,
  absolute_expires_at timestamptz not null,
  revoked_at timestamptz
);
create index sessions_identity on sessions (identity_id) where revoked_at is null;
