// Reads of identities for the administration console: search, one identity's emails and memberships, and an
// organization's members. SQL for the identity tables lives in this module only (store.ts writes, this reads).
import type postgres from 'postgres';
import type { Executor } from '../db/pool.ts';
import { normalizeEmail, type Sub } from './ids.ts';
import type { IdentityAssurance, IdentityState } from './store.ts';

export interface IdentitySummary {
  id: Sub;
  state: IdentityState;
  assurance: IdentityAssurance;
  displayName: string;
  email: string | null;
  createdAt: Date;
  /** Active but with no way to sign in yet: invited (or set up as owner) and the link not used (invitedColumn). */
  invited: boolean;
}

/**
 * Keyset position of the last row a page showed, ties broken by id. Stored times have microseconds but a position
 * carries a JavaScript Date, so the queries order and compare at millisecond precision.
 */
export interface Position {
  createdAt: Date;
  id: string;
}

interface SummaryRow {
  id: string;
  state: IdentityState;
  assurance: IdentityAssurance;
  display_name: string;
  address: string | null;
  created_at: Date;
  invited: boolean;
}

const toSummary = (r: SummaryRow): IdentitySummary => ({
  id: r.id as Sub,
  state: r.state,
  assurance: r.assurance,
  displayName: r.display_name,
  email: r.address,
  createdAt: r.created_at,
  invited: r.invited,
});

/** `like` pattern text with its wildcards taken literally. */
const literal = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The console's order, as migration 0024's identities_listing index holds it. */
const listingOrder = (sql: Executor, alias: 'i' | 'n' | 'h' | 'hits') =>
  sql`date_trunc('milliseconds', ${sql(alias)}.created_at at time zone 'UTC')`;

/**
 * Whether a query reads as an email address or the start of one: it has an @, or it is one word with a dot in it
 * ("ada.lovelace.1000"). Such a query is looked up among addresses first; see searchIdentities.
 */
const looksLikeAddress = (query: string) => query.includes('@') || (!/\s/.test(query) && query.includes('.'));

/** A piece of SQL for a query to embed. */
type Fragment = postgres.PendingQuery<postgres.Row[]>;

/**
 * Ids of the first `limit` identities (alias `n`) that `match` accepts, newest first, after `position`. Each kind of
 * match is its own ordered, limited branch, so the planner chooses per branch between its index (primary key,
 * emails_normalized_prefix, the display name trigrams) followed by a sort of what it found, and walking
 * identities_listing newest first until `limit` rows pass: a name part that half the directory has ("Hopper")
 * stops after a page instead of sorting every match (migration 0024).
 */
const newest = (sql: Executor, match: Fragment, position: Fragment, limit: number) => sql`(
  select n.id from identities n where ${match} and ${position}
  order by ${listingOrder(sql, 'n')} desc, n.id desc limit ${limit})`;

/** Each identity's primary address, as a column of a query whose identities have the alias `alias`. */
const primaryAddress = (sql: Executor, alias: 'n' | 'h' = 'n') =>
  sql`(select e.address from emails e where e.identity_id = ${sql(alias)}.id and e.is_primary) as address`;

/** Name words (migration 0037) a typed word may name before a search gives that word to the trigram index instead. */
const WORDS_PER_TYPED_WORD = 64;

/** Matches a name-only search collects in one statement before it leaves ordering them to the planner instead. */
const NAME_HITS_SORTED_AT_ONCE = 1000;

/** Typed words pg_trgm can index (three letters or digits in a row), each once. */
const typedWords = (q: string) => [...new Set(q.split(/\s+/).filter((word) => /[\p{L}\p{N}]{3}/u.test(word)))];

/**
 * Whether the identity (alias `alias`) is still an invitation: active, and no sign-in method yet. The enrollment link
 * adds the password method, so the person counts as having accepted from then on. One index probe per listed row
 * (sign_in_methods_identity).
 */
const invitedColumn = (sql: Executor, alias: 'n' | 'h' = 'n') =>
  sql`(${sql(alias)}.state = 'active' and not exists (
    select 1 from sign_in_methods m where m.identity_id = ${sql(alias)}.id)) as invited`;

/**
 * A number of ours written into a statement's text rather than sent as a value. PostgreSQL keeps one plan for a
 * statement only while a plan for unknown values costs no more than the plans it made for the values it was given;
 * a limit or a row count it cannot see made it plan the name search again at every request (0.3 ms).
 */
const constant = (sql: Executor, n: number) => sql.unsafe(String(Math.trunc(n)));

/**
 * The rows of a table expression `(i, words)`: for the i-th typed word (from 0), up to WORDS_PER_TYPED_WORD + 1 name
 * words containing it, from identity_name_words (a few thousand rows for a million people) and its trigram index.
 * A row per typed word in the text, not an unnest of an array, so the planner knows how many there are.
 */
function wordsOfTyped(sql: Executor, typed: string[]): Fragment {
  const rows = typed
    .map((word, i) => sql`(${constant(sql, i)}, ${`%${literal(word)}%`}::text)`)
    .reduce((all, row) => sql`${all}, ${row}`);
  return sql`
    select t.i, array(select w.word from identity_name_words w where w.word like lower(t.pattern)
                      limit ${constant(sql, WORDS_PER_TYPED_WORD + 1)}) as words
    from (values ${rows}) as t(i, pattern)`;
}

/**
 * The display name (alias `n`) contains `q`, case-insensitive, given each typed word's name words (`words[i]` for
 * `typed[i]`): one condition, or none when no name can (a typed word is in no name). A list, because a query
 * fragment must not be awaited: that would run it.
 *
 * A typed word in up to WORDS_PER_TYPED_WORD name words becomes "the name has one of these words", which the
 * identities_name_words index answers from short posting lists; pg_trgm alone would intersect the lists of every
 * trigram of the word, and "een" or "ton" are in a tenth of all names (2-4 ms against under 0.1 ms on a million
 * identities). A word in more of them ("son") is common enough for the trigram index, or for walking the listing
 * until a page is full, so it stays `ilike '%word%'`. The whole text is then checked as `lower(…) like lower(…)`:
 * what ilike does in a multibyte database, in a form no index takes, so it stays a filter. Typed words are split at
 * every white space and name words only at ASCII white space, so a typed word always lies within one name word.
 */
function nameConditions(sql: Executor, q: string, typed: string[], words: string[][]): Fragment[] {
  const whole = `%${literal(q)}%`;
  if (typed.length === 0) return [sql`n.display_name ilike ${whole}`];
  if (words.some((found) => found.length === 0)) return [];
  const each = typed.map((word, i) =>
    (words[i]?.length ?? 0) > WORDS_PER_TYPED_WORD
      ? sql`n.display_name ilike ${`%${literal(word)}%`}`
      : sql`identity_name_words(n.display_name) && ${words[i] ?? []}::text[]`,
  );
  return [sql`${each.reduce((all, one) => sql`${all} and ${one}`)} and lower(n.display_name) like lower(${whole})`];
}

/** nameConditions after looking the typed words up: a statement of its own. */
async function nameContains(sql: Executor, q: string): Promise<Fragment[]> {
  const typed = typedWords(q);
  if (typed.length === 0) return nameConditions(sql, q, typed, []);
  const rows = await sql<{ i: number; words: string[] }[]>`${wordsOfTyped(sql, typed)}`;
  return nameConditions(
    sql,
    q,
    typed,
    typed.map((_, i) => rows.find((row) => row.i === i)?.words ?? []),
  );
}

/**
 * One page of identities whose display name contains `q`, when names are the only kind of match. Looking the typed
 * words up and then searching took two statements, each planned again for its values: on a million identities that
 * was most of a search (a full name: 0.26 ms for the words, 0.52 ms for the search, of which 0.06 ms running). So this
 * first assumes every typed word is rare, as a person's name usually is, in one statement whose plan PostgreSQL
 * keeps (only the text's values are sent, see `constant`): it looks the words up, collects up to
 * NAME_HITS_SORTED_AT_ONCE + 1 identities having one of each typed word's name words, and sorts those. They are
 * collected without an order so that no plan walks the listing newest first, as a planner that cannot see the words
 * might choose for a rare one. When a typed word is in more than WORDS_PER_TYPED_WORD name words, or more identities
 * match than were collected, the page is not known yet, and the search is made again from the words the statement
 * returned (nameConditions).
 */
async function namesOnly(sql: Executor, q: string, position: Fragment, limit: number): Promise<IdentitySummary[]> {
  const typed = typedWords(q);
  if (typed.length === 0) return page(sql, nameConditions(sql, q, typed, []), position, limit);
  const has = typed.map(
    (_, i) => sql`identity_name_words(n.display_name) &&
      (select words from typed where i = ${constant(sql, i)} and cardinality(words) <= ${constant(sql, WORDS_PER_TYPED_WORD)})`,
  );
  const rows = await sql<(Partial<SummaryRow> & { i: number; words: string[]; found: number })[]>`
    with typed as materialized (${wordsOfTyped(sql, typed)}),
    hits as materialized (
      select n.id, n.state, n.assurance, n.display_name, n.created_at from identities n
      where ${has.reduce((all, one) => sql`${all} and ${one}`)}
        and lower(n.display_name) like lower(${`%${literal(q)}%`}) and ${position}
      limit ${constant(sql, NAME_HITS_SORTED_AT_ONCE + 1)})
    select t.i, t.words, (select count(*)::int from hits) as found, h.*, ${primaryAddress(sql, 'h')},
      ${invitedColumn(sql, 'h')}
    from typed t left join lateral (
      select * from hits order by ${listingOrder(sql, 'hits')} desc, hits.id desc limit ${limit}) h on t.i = 0
    order by t.i, ${listingOrder(sql, 'h')} desc, h.id desc`;
  const words = typed.map((_, i) => rows.find((row) => row.i === i)?.words ?? []);
  const settled =
    words.every((found) => found.length <= WORDS_PER_TYPED_WORD) && (rows[0]?.found ?? 0) <= NAME_HITS_SORTED_AT_ONCE;
  if (!settled) return page(sql, nameConditions(sql, q, typed, words), position, limit);
  return rows.filter((row): row is typeof row & SummaryRow => row.i === 0 && row.id != null).map(toSummary);
}

/**
 * One page of identities that one of `matches` accepts, newest first, with each one's primary address. One kind of
 * match is one statement over identities: the statement is planned on every search (its text decides the index), and
 * on a million identities each join, union and sort the planner weighs costs more, as statistics come into play,
 * than the search itself (bench data-at-scale: planning 0.45 ms with the union's shape, 0.2 ms with this one).
 */
async function page(sql: Executor, matches: Fragment[], position: Fragment, limit: number): Promise<IdentitySummary[]> {
  const [only] = matches;
  if (!only) return [];
  if (matches.length === 1)
    return (
      await sql<SummaryRow[]>`
        select n.id, n.state, n.assurance, n.display_name, n.created_at, ${primaryAddress(sql)}, ${invitedColumn(sql)}
        from identities n where ${only} and ${position}
        order by ${listingOrder(sql, 'n')} desc, n.id desc limit ${limit}`
    ).map(toSummary);
  const union = matches
    .map((match) => newest(sql, match, position, limit))
    .reduce((all, branch) => sql`${all} union all ${branch}`);
  return (
    await sql<SummaryRow[]>`
      select n.id, n.state, n.assurance, n.display_name, n.created_at, ${primaryAddress(sql)}, ${invitedColumn(sql)}
      from identities n where n.id in (${union})
      order by ${listingOrder(sql, 'n')} desc, n.id desc
      limit ${limit}`
  ).map(toSummary);
}

/**
 * Identities whose sub equals `query`, one of whose addresses starts with it (normalized), or whose display name
 * contains it (case-insensitive); every identity when `query` is empty. Newest first, at most `limit`, after `after`.
 *
 * A query that looks like an address (looksLikeAddress) is the sub or addresses only, and names are searched only
 * when no address (and no sub) matches at all, whatever the page: "dr.house" still finds the display name
 * "Dr.House". Skipping the names matters because the trigrams of "ada.lovelace.1000" are the words of many names,
 * so the trigram index walks long posting lists to find nothing, while the address prefix is a short btree range.
 */
export async function searchIdentities(
  sql: Executor,
  query: string,
  limit: number,
  after: Position | null,
): Promise<IdentitySummary[]> {
  const q = query.trim();
  const position =
    after === null
      ? sql`true`
      : sql`(${listingOrder(sql, 'n')}, n.id) < (${after.createdAt}::timestamptz at time zone 'UTC', ${after.id}::text)`;
  if (q === '') return page(sql, [sql`true`], position, limit);
  const emailPrefix = `${literal(normalizeEmail(q))}%`;
  const bySub = sql`n.id = ${q}`;
  const byAddress = sql`exists (select 1 from emails x where x.identity_id = n.id and x.normalized like ${emailPrefix})`;
  const byName = () => nameContains(sql, q);
  const namesAlone = () => namesOnly(sql, q, position, limit);
  // Only the kinds of match the text could make: every sub starts usr_ and no address has a space (account/address.ts
  // refuses them), and each branch left out is planning time saved.
  const addressOrSub = [...(q.startsWith('usr_') ? [bySub] : []), ...(/\s/.test(q) ? [] : [byAddress])];
  if (addressOrSub.length === 0) return namesAlone();
  if (!looksLikeAddress(q)) return page(sql, [...addressOrSub, ...(await byName())], position, limit);

  const found = await page(sql, addressOrSub, position, limit);
  if (found.length > 0) return found;
  // An empty later page is the end of the addresses if any address matched on the first one.
  if (after !== null) {
    const [any] = await sql`
      select 1 from identities where id = ${q}
      union all (select 1 from emails where normalized like ${emailPrefix} limit 1)`;
    if (any) return [];
  }
  return namesAlone();
}

export interface EmailRecord {
  address: string;
  primary: boolean;
  verifiedAt: Date | null;
  createdAt: Date;
}

export async function listEmails(sql: Executor, sub: Sub): Promise<EmailRecord[]> {
  const rows = await sql<{ address: string; is_primary: boolean; verified_at: Date | null; created_at: Date }[]>`
    select address, is_primary, verified_at, created_at from emails where identity_id = ${sub}
    order by is_primary desc, id`;
  return rows.map((r) => ({
    address: r.address,
    primary: r.is_primary,
    verifiedAt: r.verified_at,
    createdAt: r.created_at,
  }));
}

export interface Membership {
  organizationId: string;
  organizationName: string;
  roles: string[];
  createdAt: Date;
}

export async function listMemberships(sql: Executor, sub: Sub): Promise<Membership[]> {
  const rows = await sql<{ organization_id: string; name: string; roles: string[]; created_at: Date }[]>`
    select m.organization_id, o.name, m.roles, m.created_at
    from memberships m join organizations o on o.id = m.organization_id
    where m.identity_id = ${sub} order by m.organization_id`;
  return rows.map((r) => ({
    organizationId: r.organization_id,
    organizationName: r.name,
    roles: r.roles,
    createdAt: r.created_at,
  }));
}

export interface Organization {
  id: string;
  name: string;
}

/** Every organization; there are few (the operator creates them), so this is not paged. */
export async function listOrganizations(sql: Executor): Promise<Organization[]> {
  return [...(await sql<Organization[]>`select id, name from organizations order by id`)];
}

export async function findOrganization(sql: Executor, id: string): Promise<Organization | null> {
  const [row] = await sql<Organization[]>`select id, name from organizations where id = ${id}`;
  return row ?? null;
}

export interface Member extends IdentitySummary {
  roles: string[];
  joinedAt: Date;
}

/** Members of an organization in the order they joined, at most `limit`, after `after` (joined_at, sub). */
export async function listMembers(
  sql: Executor,
  organizationId: string,
  limit: number,
  after: Position | null,
): Promise<Member[]> {
  const rows = await sql<(SummaryRow & { roles: string[]; joined_at: Date })[]>`
    select i.id, i.state, i.assurance, i.display_name, i.created_at, e.address, m.roles, m.created_at as joined_at
    from memberships m join identities i on i.id = m.identity_id
      left join emails e on e.identity_id = i.id and e.is_primary
    where m.organization_id = ${organizationId}
      and (${after === null} or (date_trunc('milliseconds', m.created_at), i.id) > (${after?.createdAt ?? null}::timestamptz, ${after?.id ?? null}::text))
    order by date_trunc('milliseconds', m.created_at), i.id
    limit ${limit}`;
  return rows.map((r) => ({ ...toSummary(r), roles: r.roles, joinedAt: r.joined_at }));
}
