-- Refresh tokens issued from now on carry their grant id and a MAC (src/oauth/refresh-token-value.ts), so a rotated
-- token is known as a replay without its row, and rotation deletes the family's spent rows. Rows of tokens issued
-- before keep false: those tokens are the secret alone, only their row recognises them, so they age out as before.
-- A constant default is stored in the catalogue only: no table rewrite.
alter table oauth_refresh_tokens add column names_grant boolean not null default false;

-- What a rotation's delete reads: the family's rows created before the cutoff. A row rotated before the cutoff was
-- created before it, so the rows read are the spent ones and at most the live token. Without created_at, a family
-- refreshed in a loop had each rotation read every row of the last minute. Partial: earlier-format rows are never
-- deleted early and stay out of it. Neither column changes at rotation, which stays a heap-only update (0032).
-- No row has names_grant yet, so the index is built empty, after one read of the table under a lock that blocks
-- writes. An installation with a very large table can build it beforehand with CREATE INDEX CONCURRENTLY under this
-- definition (docs/decisions.md, "Refresh tokens name their family").
create index if not exists oauth_refresh_tokens_spent on oauth_refresh_tokens (grant_id, created_at) where names_grant;
