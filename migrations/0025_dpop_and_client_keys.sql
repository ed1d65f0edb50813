-- Sender-constrained tokens (RFC 9449 DPoP) and asymmetric client authentication (RFC 7523 private_key_jwt).

-- Single-use JWT ids shared by every node: DPoP proofs (RFC 9449 §11.1) and client assertions (RFC 7523 §3 item 7).
-- `key` is the purpose and a hash of the jti (and, for proofs, of the key), kept until the JWT could no longer be
-- accepted anyway; housekeeping deletes the expired rows. Unlogged: one insert per DPoP request must not wait for a
-- WAL flush (docs/decisions.md "DPoP"); a crash empties the table, which reopens replay only for the proofs of the
-- minute before it.
create unlogged table oauth_used_jtis (
  key text primary key,
  expires_at timestamptz not null
);
create index oauth_used_jtis_expires on oauth_used_jtis (expires_at);

-- RFC 9449 §5.2: a client registered with dpop_bound_access_tokens must send a proof with every token request.
alter table oauth_clients add column dpop_bound_access_tokens boolean not null default false;

-- RFC 9449 §5: the JWK thumbprint a public client's refresh tokens are bound to; null for an unbound grant.
alter table oauth_grants add column dpop_jkt text;

-- RFC 7591 §2 token_endpoint_auth_method: client_secret_post (a secret), private_key_jwt (a registered JWKS,
-- inline or by URL) or none (public clients). A confidential client has either a secret or keys, never both.
alter table oauth_clients add column token_endpoint_auth_method text;
update oauth_clients set token_endpoint_auth_method = case when secret_hmac is null then 'none' else 'client_secret_post' end;
alter table oauth_clients alter column token_endpoint_auth_method set not null;
alter table oauth_clients add column jwks jsonb;
alter table oauth_clients add column jwks_uri text;
alter table oauth_clients drop constraint oauth_clients_check;
alter table oauth_clients add constraint oauth_clients_auth_method check (
  case token_endpoint_auth_method
    when 'none' then kind in ('browser', 'native') and secret_hmac is null and jwks is null and jwks_uri is null
    when 'client_secret_post' then kind in ('web', 'service') and secret_hmac is not null and jwks is null and jwks_uri is null
    when 'private_key_jwt' then kind in ('web', 'service') and secret_hmac is null and (jwks is null) <> (jwks_uri is null)
    else false
  end
);
