-- The authentication request's nonce, kept on the grant so that the ID token of every refresh repeats it: OIDC Core
-- §12.2 applies the sign-in's rules to a refreshed ID token, and a relying party that checks the nonce against its
-- login transaction (SPEC.md Authentication 2) then accepts it. Grants created before this migration have none.
alter table oauth_grants add column nonce text;
