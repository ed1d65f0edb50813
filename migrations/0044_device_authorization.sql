-- RFC 8628 device authorization grant (docs/oauth.md "Device authorization grant").
--
-- The per-client admin setting: off by default, so every existing client keeps refusing the grant until an
-- administrator allows it. A constant default is stored in the catalogue only: no table rewrite.
alter table oauth_clients add column device_authorization_grant boolean not null default false;

-- One row per device authorization request. Both codes are stored as SHA-256 only: the device code is a 256-bit
-- random value, the user code (normalised, src/oauth/user-code.ts) is short, so its hash is only as strong as its
-- lifetime and the guessing throttle below (RFC 8628 §5.1). A redeemed row is deleted in the statement that creates
-- its grant; the retention job removes the rest a day after they expired.
create table oauth_device_codes (
  device_code_hash text primary key,
  user_code_hash text not null unique,
  client_id text not null references oauth_clients (id) on delete cascade,
  scope text not null,
  resources text[] not null default '{}',
  -- The device-authorization request's User-Agent (bounded), shown to the person as the kind of device asking.
  user_agent text,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  -- RFC 8628 §3.5: the polling interval, grown by 5 s on every slow_down, and when the device last polled.
  interval_seconds integer not null,
  last_polled_at timestamptz,
  status text not null default 'pending' check (status in ('pending', 'approved', 'denied')),
  -- Filled when the person approves: the grant is made from these, as from an authorization code.
  identity_id text references identities (id) on delete cascade,
  session_id text,
  auth_time timestamptz,
  acr text,
  amr text[],
  decided_at timestamptz
);
create index oauth_device_codes_expires on oauth_device_codes (expires_at);
