-- Refresh tokens issued from now on carry their grant id and a MAC (src/oauth/refresh-token-value.ts), so a rotated
-- token is known as a replay without its row, and rotation deletes the family's spent rows. Rows of tokens issued
-- before keep false: those tokens are the secret alone, only their row recognises them, so they age out as before.
-- A constant default is stored in the catalogue only: no table rewrite.
alter table oauth_refresh_tokens add column names_grant boolean not null default false;
