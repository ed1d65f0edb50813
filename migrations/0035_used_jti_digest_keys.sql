-- The replay store's keys become the SHA-256 of what they were (32 bytes instead of about 90 characters of text).
-- Every DPoP request inserts one, into a unique index the size of a few minutes of traffic: about half as large with
-- these keys, and bytea compares with memcmp where text compares through the collation
-- (docs/decisions.md "The replay store keyed by digests"). Rows already stored keep refusing their replays:
-- sha256 of the old text is exactly the new key of the same proof.
-- The rewrite holds an exclusive lock on the table: expired keys (up to an hour of them) go first.
delete from oauth_used_jtis where expires_at <= now();
alter table oauth_used_jtis alter column key type bytea using sha256(convert_to(key, 'UTF8'));
