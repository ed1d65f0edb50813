-- HTTP-01 challenge responses (RFC 8555 §8.3) of the ACME order in progress. Kept in PostgreSQL so whichever node
-- the certificate authority's request reaches can answer it. A row lives only while its order runs.
create table acme_challenges (
  token text primary key check (token ~ '^[A-Za-z0-9_-]+$' and length(token) <= 256),
  key_authorization text not null check (length(key_authorization) <= 1024),
  expires_at timestamptz not null
);
