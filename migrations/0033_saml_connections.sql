-- SAML connections made through the admin API (login/saml/stored-connections.ts), beside the read-only ones of
-- `[saml.<id>]`. settings: the connection's `[saml.<id>]`-shaped keys (name, email_domains, attribute names,
-- sign_up, mfa_authn_contexts). The identity provider is stored as given (entity id, SSO URL, signing certificates).
-- The service provider's key pair is generated at creation: the private key sealed with the signing secret (purpose
-- bound to the id), the certificate in the clear since the metadata publishes it anyway.
create table saml_connections (
  id text primary key,
  settings jsonb not null,
  idp_entity_id text not null,
  idp_sso_url text not null,
  idp_certificates text[] not null,
  sp_key_sealed text not null,
  sp_certificate text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
