// `npm run seed -- --identities 1000000 [--database-url URL]`: fills a migrated database with identities as a
// production installation has them after a few years: each with a name and a primary email (seed-people.ts), a password sign-in method and
// credential, one grant to a seeded client and that grant's refresh token family (a rotated token and its live
// successor). Rows go in with COPY, a few thousand per chunk, so a million identities take minutes, not hours.
// For benchmarks and capacity tests only: the seeded passwords verify nothing (one unusable hash for all).
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { newApplicationId, newClientId } from '../src/clients/ids.ts';
import { insertApplication, insertClient } from '../src/clients/store.ts';
import { migrate } from '../src/db/migrate.ts';
import { PASSWORD_PROVIDER } from '../src/login/local/credential-store.ts';
import { emailOf, nameOf } from './seed-people.ts';

const { values } = parseArgs({
  options: {
    identities: { type: 'string', default: '10000' },
    'database-url': { type: 'string', default: process.env.DATABASE_URL ?? '' },
  },
});
const total = Number(values.identities);
const url = values['database-url'] ?? '';
if (!Number.isInteger(total) || total < 1 || url === '') {
  process.stderr.write('Usage: npm run seed -- --identities N [--database-url URL] (or DATABASE_URL)\n');
  process.exit(64);
}

const CHUNK_ROWS = 5000;
/** Identities were created over two years up to now. */
const SPAN_MS = 2 * 365 * 24 * 3600 * 1000;
const now = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();
/** A hash that parses as argon2id but no password matches: seeded accounts cannot be signed in to. */
const UNUSABLE_PHC = `$argon2id$v=19$m=19456,t=2,p=1$${randomBytes(16).toString('base64').replace(/=+$/, '')}$${randomBytes(32).toString('base64').replace(/=+$/, '')}`;

const ids: string[] = [];
const pool = randomBytes(total * 16);
for (let i = 0; i < total; i += 1) ids.push(`usr_${pool.subarray(i * 16, i * 16 + 16).toString('base64url')}`);
const createdAt = (i: number) => now - SPAN_MS + Math.floor((i / total) * SPAN_MS);

/** COPY ... FROM STDIN of `count` text-format rows made by `row` (values never hold tabs, newlines or backslashes). */
async function copy(sql: postgres.Sql, table: string, columns: string[], row: (i: number) => string[]) {
  const started = Date.now();
  function* chunks() {
    let lines: string[] = [];
    for (let i = 0; i < total; i += 1) {
      lines.push(`${row(i).join('\t')}\n`);
      if (lines.length === CHUNK_ROWS) {
        yield lines.join('');
        lines = [];
      }
    }
    if (lines.length > 0) yield lines.join('');
  }
  const writable = await sql.unsafe(`copy ${table} (${columns.join(', ')}) from stdin`).writable();
  await pipeline(Readable.from(chunks()), writable);
  process.stderr.write(`  ${table}: ${total} rows in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

const sql = postgres(url, { max: 2, onnotice: () => {} });
try {
  const started = Date.now();
  await migrate(sql);
  process.stderr.write(`Seeding ${total} identities into ${new URL(url).pathname.slice(1)}\n`);
  const application = await insertApplication(sql, {
    id: newApplicationId(),
    identifier: `seed-${randomBytes(4).toString('hex')}`,
    name: 'Seeded application',
    environment: 'production',
    createdAt: new Date(),
  });
  const client = await insertClient(sql, {
    id: newClientId(),
    applicationId: application.id,
    name: 'Seeded client',
    kind: 'web',
    secretHmac: randomBytes(32).toString('base64url'),
    tokenEndpointAuthMethod: 'client_secret_post',
    jwks: null,
    jwksUri: null,
    dpopBoundAccessTokens: false,
    requirePushedAuthorizationRequests: false,
    backchannelLogoutUri: null,
    backchannelLogoutSessionRequired: false,
    redirectUris: ['https://seed.example/callback'],
    postLogoutRedirectUris: [],
    scopes: ['openid', 'profile', 'email', 'offline_access'],
    audiences: [],
    tokenExchangeAudiences: [],
    deviceAuthorizationGrant: false,
    firstParty: true,
    createdAt: new Date(),
  });

  // A bulk load adds names through the trigram index's pending list, as restoring a dump would, and then merges it
  // and leaves the index as migration 0034 keeps it (no pending list, so searches never read one). The trigger of
  // migration 0037 adds each name's words as it goes (about two minutes of the load for a million).
  await sql`alter index identities_display_name_trgm set (fastupdate = on)`;
  await copy(sql, 'identities', ['id', 'state', 'display_name', 'assurance', 'created_at', 'updated_at'], (i) => [
    ids[i] as string,
    'active',
    nameOf(i),
    'ial1',
    iso(createdAt(i)),
    iso(createdAt(i)),
  ]);
  await sql`select gin_clean_pending_list('identities_display_name_trgm'::regclass)`;
  await sql`alter index identities_display_name_trgm set (fastupdate = off)`;
  await copy(
    sql,
    'emails',
    ['identity_id', 'address', 'normalized', 'is_primary', 'verified_at', 'created_at'],
    (i) => [ids[i] as string, emailOf(i), emailOf(i), 't', iso(createdAt(i)), iso(createdAt(i))],
  );
  await copy(sql, 'sign_in_methods', ['identity_id', 'kind', 'provider', 'external_subject', 'created_at'], (i) => [
    ids[i] as string,
    'password',
    PASSWORD_PROVIDER,
    emailOf(i),
    iso(createdAt(i)),
  ]);
  const credentials = Date.now();
  await sql`
    insert into password_credentials (method_id, identity_id, phc)
    select m.id, m.identity_id, ${UNUSABLE_PHC} from sign_in_methods m
    where m.kind = 'password' and m.external_subject like '%@seed.example'
      and not exists (select 1 from password_credentials p where p.method_id = m.id)`;
  process.stderr.write(`  password_credentials: in ${((Date.now() - credentials) / 1000).toFixed(1)} s\n`);

  const grantIds = ids.map((id) => `grt_${id.slice(4)}`);
  const day = 24 * 3600 * 1000;
  await copy(
    sql,
    'oauth_grants',
    ['id', 'client_id', 'identity_id', 'session_id', 'scope', 'auth_time', 'acr', 'amr', 'created_at', 'expires_at'],
    (i) => [
      grantIds[i] as string,
      client.id,
      ids[i] as string,
      `ses_${(ids[i] as string).slice(4)}`,
      'openid profile email offline_access',
      iso(now - (i % 80) * day),
      'aal2',
      '{pwd,otp}',
      iso(now - (i % 80) * day),
      iso(now + (90 - (i % 80)) * day),
    ],
  );
  // Each family: the token issued at sign-in, rotated, and its live successor.
  const tokens = randomBytes(total * 64);
  const hashAt = (i: number, half: number) =>
    tokens.subarray(i * 64 + half * 32, i * 64 + half * 32 + 32).toString('base64url');
  const refreshColumns = ['token_hash', 'grant_id', 'client_id', 'created_at', 'expires_at', 'rotated_at'];
  await copy(sql, 'oauth_refresh_tokens', refreshColumns, (i) => [
    hashAt(i, 0),
    grantIds[i] as string,
    client.id,
    iso(now - (i % 80) * day),
    iso(now + 30 * day),
    iso(now - (i % 80) * day + 600_000),
  ]);
  await copy(sql, 'oauth_refresh_tokens', refreshColumns, (i) => [
    hashAt(i, 1),
    grantIds[i] as string,
    client.id,
    iso(now - (i % 80) * day + 600_000),
    iso(now + 30 * day),
    '\\N',
  ]);
  await sql`analyze`;
  process.stderr.write(`Done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
} finally {
  await sql.end({ timeout: 5 });
}
