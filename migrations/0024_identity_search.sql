-- Administration search over many identities (issue 26): each way the console finds an identity gets an index, so a
-- search costs about the same with a million identities as with ten.
-- pg_trgm is a trusted extension (PostgreSQL 13+): the database owner may create it without being a superuser.
create extension if not exists pg_trgm;

-- "name contains": display_name ilike '%text%' (three characters or more use the trigrams).
create index identities_display_name_trgm on identities using gin (display_name gin_trgm_ops);

-- "email starts with": a LIKE prefix can use a btree only with pattern operators under a non-C collation.
create index emails_normalized_prefix on emails (normalized text_pattern_ops);

-- The console's order (newest first, in milliseconds, as the paging cursor carries them). UTC makes the expression
-- immutable, hence indexable; truncating an instant to milliseconds gives the same order in every time zone.
create index identities_listing on identities ((date_trunc('milliseconds', created_at at time zone 'UTC')) desc, id desc);
