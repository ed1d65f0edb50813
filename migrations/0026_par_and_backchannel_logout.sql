-- Pushed authorization requests (RFC 9126) and OpenID Connect Back-Channel Logout 1.0.

-- A pushed request: its parameters as a query string, reachable by the request_uri whose SHA-256 is the key. It must
-- reach the authorization endpoint before expires_at (60 s); it is spent (used_at) when it produces a code.
create table oauth_pushed_requests (
  request_uri_hash text primary key,
  client_id text not null references oauth_clients (id) on delete cascade,
  params text not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  opened_at timestamptz,
  used_at timestamptz
);
create index oauth_pushed_requests_expires on oauth_pushed_requests (expires_at);

-- RFC 9126 §6: a client registered with require_pushed_authorization_requests may only authorize through PAR.
alter table oauth_clients add column require_pushed_authorization_requests boolean not null default false;

-- OpenID Connect Back-Channel Logout 1.0 §2.2: where a client receives logout tokens, and whether they carry sid.
alter table oauth_clients add column backchannel_logout_uri text check (length(backchannel_logout_uri) <= 254);
alter table oauth_clients add column backchannel_logout_session_required boolean not null default false;
