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
}

const toSummary = (r: SummaryRow): IdentitySummary => ({
  id: r.id as Sub,
  state: r.state,
  assurance: r.assurance,
  displayName: r.display_name,
  email: r.address,
  createdAt: r.created_at,
});

/** `like` pattern text with its wildcards taken literally. */
const literal = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The console's order, as migration 0024's identities_listing index holds it. */
const listingOrder = (sql: Executor, alias: 'i' | 'n') =>
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

/** Name words (migration 0037) a typed word may name before a search gives that word to the trigram index instead. */
const WORDS_PER_TYPED_WORD = 64;

/** A typed word pg_trgm can index: three letters or digits in a row. */
const hasTrigram = (word: string) => /[\p{L}\p{N}]{3}/u.test(word);

/**
 * The display name (alias `n`) contains `q`, case-insensitive: one condition, or none when no name can (a typed word
 * is in no name). A list, because a query fragment must not be awaited: that would run it.
 *
 * Each typed word with a trigram is first looked up among the words display names have (identity_name_words, a few
 * thousand rows for a million people). A word in up to WORDS_PER_TYPED_WORD of them becomes "the name has one of
 * these words", which the identities_name_words index answers from short posting lists; pg_trgm alone would
 * intersect the lists of every trigram of the word, and "een" or "ton" are in a tenth of all names (2-4 ms against
 * 0.1 ms on a million identities). A word in more of them ("son") is common enough for the trigram index, or for
 * walking the listing until a page is full, so it stays `ilike '%word%'`. The whole text is then checked as
 * `lower(…) like lower(…)`: what ilike does in a multibyte database, in a form no index takes, so it stays a filter.
 * Typed words are split at every white space and name words only at ASCII white space, so a typed word always lies
 * within one name word.
 */
async function nameContains(sql: Executor, q: string): Promise<Fragment[]> {
  const whole = `%${literal(q)}%`;
  const typed = [...new Set(q.split(/\s+/).filter(hasTrigram))];
  if (typed.length === 0) return [sql`n.display_name ilike ${whole}`];
  const rows = await sql<{ typed: number; words: string[] }[]>`
    select t.ordinality::int - 1 as typed,
           array(select w.word from identity_name_words w where w.word like lower(t.pattern)
                 limit ${WORDS_PER_TYPED_WORD + 1}) as words
    from unnest(${typed.map((word) => `%${literal(word)}%`)}::text[]) with ordinality as t(pattern)`;
  const conditions: Fragment[] = [];
  for (const { typed: index, words } of rows) {
    if (words.length === 0) return [];
    conditions.push(
      words.length > WORDS_PER_TYPED_WORD
        ? sql`n.display_name ilike ${`%${literal(typed[index] ?? '')}%`}`
        : sql`identity_name_words(n.display_name) && ${words}::text[]`,
    );
  }
  return [
    sql`${conditions.reduce((all, one) => sql`${all} and ${one}`)} and lower(n.display_name) like lower(${whole})`,
  ];
}

/** Each identity's primary address, as a column of a query whose identities have the alias `n`. */
const primaryAddress = (sql: Executor) =>
  sql`(select e.address from emails e where e.identity_id = n.id and e.is_primary) as address`;

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
        select n.id, n.state, n.assurance, n.display_name, n.created_at, ${primaryAddress(sql)}
        from identities n where ${only} and ${position}
        order by ${listingOrder(sql, 'n')} desc, n.id desc limit ${limit}`
    ).map(toSummary);
  const union = matches
    .map((match) => newest(sql, match, position, limit))
    .reduce((all, branch) => sql`${all} union all ${branch}`);
  return (
    await sql<SummaryRow[]>`
      select n.id, n.state, n.assurance, n.display_name, n.created_at, ${primaryAddress(sql)}
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
  // Only the kinds of match the text could make: every sub starts usr_ and no address has a space (account/address.ts
  // refuses them), and each branch left out is planning time saved.
  const addressOrSub = [...(q.startsWith('usr_') ? [bySub] : []), ...(/\s/.test(q) ? [] : [byAddress])];
  if (!looksLikeAddress(q) || addressOrSub.length === 0)
    return page(sql, [...addressOrSub, ...(await byName())], position, limit);

  const found = await page(sql, addressOrSub, position, limit);
  if (found.length > 0) return found;
  // An empty later page is the end of the addresses if any address matched on the first one.
  if (after !== null) {
    const [any] = await sql`
      select 1 from identities where id = ${q}
      union all (select 1 from emails where normalized like ${emailPrefix} limit 1)`;
    if (any) return [];
  }
  return page(sql, await byName(), position, limit);
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
