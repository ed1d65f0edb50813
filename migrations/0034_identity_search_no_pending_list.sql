-- Name search at scale (issue 26): a GIN index with fastupdate (the default) first appends new entries to a pending
-- list, merged into the index only when the list passes gin_pending_list_limit (4 MB) or when autovacuum gets to the
-- table, and every search reads the whole list. Identities change rarely (sign-ups, renames) and autovacuum waits
-- for 10-20 % of the table to change, so with many identities the list sits near full and every name search read it:
-- on a million seeded identities, 290 of the 570 pages a name search read were the pending list, and half its time.
-- Without it each insert or rename updates the trigram posting trees at once (about twenty entries per name), which
-- is the documented choice when steady response time matters more than write speed.
alter index identities_display_name_trgm set (fastupdate = off);
-- Switching it off keeps what is already pending; merge that now so no search reads it again.
select gin_clean_pending_list('identities_display_name_trgm'::regclass);
