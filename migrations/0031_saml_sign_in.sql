-- SAML 2.0 sign-in (login/saml). saml_requests: one row per AuthnRequest sent, keyed by its ID (the InResponseTo a
-- response must carry), bound to the browser that started it by the hash of a short-lived cookie and to the
-- connection it went to, taken (deleted) once at the assertion consumer service. A request started to link the
-- connection to a signed-in identity records who asked (null: a sign-in).
create table saml_requests (
  id text primary key,
  connection text not null,
  cookie_hash text not null,
  identity_id text references identities (id) on delete cascade,
  return_to text not null,
  created_at timestamptz not null,
  expires_at timestamptz not null
);
create index saml_requests_expiry on saml_requests (expires_at);

-- The replay cache: each accepted assertion ID, per connection, until the assertion could no longer be accepted
-- anyway (its NotOnOrAfter plus the allowed clock skew). In PostgreSQL so every node refuses a replay seen by another.
create table saml_assertion_ids (
  connection text not null,
  assertion_id text not null,
  expires_at timestamptz not null,
  primary key (connection, assertion_id)
);
create index saml_assertion_ids_expiry on saml_assertion_ids (expires_at);
