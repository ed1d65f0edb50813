-- Name search at a million identities (issue 26). The trigram index answers "name contains Preetjeendin" by
-- intersecting the posting lists of all ten of the word's trigrams, and trigrams such as "een" or "ton" are in a good
-- part of every directory: 80-170 index pages and 2-4 ms for a search that finds one person. Names are made of far
-- fewer distinct words than there are people (12 000 words for a million seeded names), so a search first finds the
-- words that contain what was typed, in a trigram index over the words alone, and then the people whose name has one
-- of those words, in an index over each name's words: a few pages either way. directory-store.ts decides per typed
-- word, and keeps the trigram index for words found in so many names that walking the listing is cheaper.

-- The words of a display name as the search compares them: lower case, split at ASCII white space. The search splits
-- what was typed at every Unicode space, so each typed word lies inside one of these words.
create function identity_name_words(display_name text) returns text[]
  language sql immutable strict parallel safe
  as $$ select regexp_split_to_array(lower(display_name), '[ \t\n\r\f\v]+') $$;

create index identities_name_words on identities using gin (identity_name_words(display_name)) with (fastupdate = off);

-- Every word some display name has, and no other: a word goes when its last holder is renamed or removed, so a name
-- leaves nothing behind (the seed of a million names keeps 12 000 rows here).
create table identity_name_words (word text primary key);
create index identity_name_words_trgm on identity_name_words using gin (word gin_trgm_ops) with (fastupdate = off);

insert into identity_name_words (word)
select distinct w from identities, unnest(identity_name_words(display_name)) as w where w <> '';

-- Kept in step with identities by this trigger, in the same transaction as the change, whatever writes it. Two
-- transactions may race on one word: one adds a holder while the other removes the last one it saw. A holder takes
-- the word's row FOR KEY SHARE (or inserts it), a remover takes it FOR UPDATE and only then, in a statement with a
-- fresh snapshot, looks for other holders; so the remover waits for an adding transaction to commit and then sees
-- its holder, or removes the word first and the adder's insert puts it back. Words are taken in sorted order, so two
-- renames cannot wait for each other. Every lookup here is by key, and the function forbids sequential scans: plpgsql
-- keeps the plan it made while the table was small, and a bulk load then scanned the whole table once per name
-- (10 000 new names in one statement took 11 s instead of 0.9 s).
create function keep_identity_name_words() returns trigger language plpgsql set enable_seqscan = off as $$
declare
  held text[] := case when tg_op = 'DELETE' then '{}' else coalesce(identity_name_words(new.display_name), '{}') end;
  released text[] := case when tg_op = 'INSERT' then '{}' else coalesce(identity_name_words(old.display_name), '{}') end;
  w text;
begin
  for w in
    select distinct x from unnest(held || released) as x where x <> '' and (x = any(held)) <> (x = any(released)) order by x
  loop
    if w = any(held) then
      loop
        perform from identity_name_words where word = w for key share;
        exit when found;
        insert into identity_name_words (word) values (w) on conflict do nothing;
        exit when found;
      end loop;
    else
      perform from identity_name_words where word = w for update;
      if not exists (select from identities where identity_name_words(display_name) @> array[w]) then
        delete from identity_name_words where word = w;
      end if;
    end if;
  end loop;
  return null;
end
$$;

create trigger identity_name_words after insert or delete or update of display_name on identities
  for each row execute function keep_identity_name_words();

analyze identities;
analyze identity_name_words;
