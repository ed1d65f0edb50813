import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { makeAccount, signIn, totpCode } from '../../../test/helpers/accounts.ts';
import { auditOf } from '../../../test/helpers/admin-api.ts';
import { startTestApp } from '../../../test/helpers/app.ts';
import { makeConfig } from '../../../test/helpers/config.ts';
import { providerSecretsDir } from '../../../test/helpers/provider-secrets.ts';
import { SERVICE_DN, SERVICE_PASSWORD, SUFFIX, startSlapd } from '../../../test/helpers/slapd.ts';
import type { Config } from '../../config/schema.ts';
import type { Sub } from '../../identity/ids.ts';
import { confirmTotp, upsertPendingTotp } from '../local/credential-store.ts';
import { newTotpSeed } from '../local/totp.ts';
import { authenticate, type Directory, directoryForSubject, probeDirectory } from './directory.ts';
import { directoryChecks } from './doctor-checks.ts';

const envelope = (response: { json(): unknown; headers: Record<string, unknown> }, error: string) => {
  const body = response.json() as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description', 'request_id']);
  assert.equal(body.error, error);
  assert.equal(body.request_id, response.headers['x-request-id']);
  return body;
};

const slapd = await startSlapd();
after(() => slapd.stop());

type DirectoryConfig = Config['ldap'][string];
const corp = (overrides: Partial<DirectoryConfig> = {}): DirectoryConfig => ({
  name: 'Corp directory',
  url: slapd.ldapsUrl,
  start_tls: false,
  allow_plain_loopback: false,
  ca_file: slapd.caFile,
  bind_dn: SERVICE_DN,
  email_domains: ['corp.example'],
  user_search_base: `ou=people,${SUFFIX}`,
  user_filter: '(&(objectClass=inetOrgPerson)(mail={subject}))',
  id_attribute: 'entryUUID',
  display_name_attribute: 'cn',
  email_attribute: 'mail',
  sign_up: true,
  group_search_base: `ou=groups,${SUFFIX}`,
  group_filter: '(&(objectClass=groupOfNames)(member={dn}))',
  group_roles: [
    { group_dn: `cn=admins,ou=groups,${SUFFIX}`, roles: ['admin'] },
    { group_dn: `CN=Staff,ou=groups,${SUFFIX}`, roles: ['member'] },
  ],
  timeout_seconds: 5,
  ...overrides,
});

const directory = (overrides: Partial<DirectoryConfig> = {}): Directory => ({
  id: 'corp',
  config: corp(overrides),
  bindPassword: SERVICE_PASSWORD,
  ca: slapd.caPem,
});

async function appWith(ldap: Record<string, DirectoryConfig>) {
  const secrets = Object.fromEntries(Object.keys(ldap).map((id) => [`ldap-${id}.secret`, SERVICE_PASSWORD]));
  // Self-service on, so the account routes (the list of ways to sign in) answer.
  const config = makeConfig({
    secrets: { dir: providerSecretsDir(secrets) },
    self_service: { enabled: true },
    delivery: { kind: 'dev_mailbox' },
  });
  config.ldap = ldap;
  const t = await startTestApp({ config });
  await t.sql`insert into organizations (id, name) values (${config.organization.id}, 'Acme') on conflict do nothing`;
  return t;
}

describe('POST /auth/mfa/verify for a subject an LDAP directory serves (slapd over LDAPS)', async () => {
  const t = await appWith({ corp: corp() });
  const methodsOf = async (sub: Sub) =>
    await t.sql`select kind, provider, external_subject from sign_in_methods where identity_id = ${sub}`;
  const rolesOf = async (sub: Sub) =>
    (await t.sql<{ roles: string[] }[]>`select roles from memberships where identity_id = ${sub}`)[0]?.roles ?? null;

  it('signs a directory user in with the directory password, creating an identity keyed by entryUUID', async () => {
    const { response, session } = await signIn(t.app, 'Alice@Corp.Example', { password: 'alice-password-1' });
    assert.equal(response.statusCode, 200, response.body);
    // Like a local password without TOTP: the session can only enroll a second factor (DESIGN.md).
    assert.deepEqual(response.json(), {
      aal: 'aal1',
      amr: ['pwd'],
      enrollment_required: true,
      second_factor_required: false,
    });
    assert.notEqual(session, '');
    const [identity] = await t.sql<{ id: Sub; display_name: string }[]>`
      select i.id, i.display_name from identities i join sign_in_methods m on m.identity_id = i.id
      where m.kind = 'ldap' and m.provider = 'corp'`;
    assert.ok(identity);
    assert.equal(identity.display_name, 'Alice Liddell');
    const [method] = await methodsOf(identity.id);
    assert.match(String(method?.external_subject), /^[0-9a-f]{8}-[0-9a-f]{4}-/);
    const [email] = await t.sql`select address, verified_at from emails where identity_id = ${identity.id}`;
    assert.deepEqual({ ...email }, { address: 'alice@corp.example', verified_at: null });

    const events = await auditOf(t, identity.id);
    assert.deepEqual(
      events.map((e) => e.event),
      ['method.attached', 'signup.created', 'membership.added', 'signin.succeeded'],
    );
    assert.deepEqual(events[2]?.details, { directory: 'corp', organization_id: 'acme', roles: 'admin member' });
    assert.deepEqual(events.at(-1)?.details, { method: 'ldap', directory: 'corp', second_factor: 'none', aal: 'aal1' });

    const again = await signIn(t.app, 'alice@corp.example', { password: 'alice-password-1' });
    assert.equal(again.response.statusCode, 200);
    const count = await t.sql`select count(*)::int as n from sign_in_methods where kind = 'ldap'`;
    assert.equal(count[0]?.n, 1, 'the second sign-in found the same identity');
  });

  it('never merges with a local identity holding the same address: the directory user gets its own identity', async () => {
    const local = await makeAccount(t.sql, t.secrets, t.config, { email: 'dave@corp.example' });
    const { response } = await signIn(t.app, 'dave@corp.example', { password: 'dave-password-1' });
    assert.equal(response.statusCode, 200, response.body);
    const [method] = await t.sql<{ identity_id: Sub }[]>`
      select m.identity_id from sign_in_methods m join emails e on e.identity_id = m.identity_id
      where m.kind = 'ldap' and e.address = 'dave@corp.example'`;
    assert.ok(method);
    assert.notEqual(method.identity_id, local.sub);
    assert.deepEqual(
      (await methodsOf(local.sub)).map((m) => m.kind),
      ['password'],
      'the local identity gained no directory link',
    );
    // The local password of an address in a directory's domain no longer signs in: the directory decides.
    const viaLocal = await signIn(t.app, 'dave@corp.example', { password: local.password });
    assert.equal(viaLocal.response.statusCode, 401);
    envelope(viaLocal.response, 'invalid_credentials');
  });

  it('maps directory groups to organization roles at sign-in', async () => {
    await signIn(t.app, 'alice@corp.example', { password: 'alice-password-1' });
    await signIn(t.app, 'bob@corp.example', { password: 'bob-password-1' });
    const subs = await t.sql<{ email: string; id: Sub }[]>`
      select e.address as email, e.identity_id as id from emails e
      where e.address in ('alice@corp.example', 'bob@corp.example')`;
    const sub = (email: string) => subs.find((s) => s.email === email)?.id as Sub;
    assert.deepEqual(await rolesOf(sub('alice@corp.example')), ['admin', 'member']);
    assert.deepEqual(await rolesOf(sub('bob@corp.example')), ['member']);
  });

  it('asks for the Gatehouse TOTP code once the identity has one, and gives aal2 with it', async () => {
    const [row] = await t.sql<{ id: Sub }[]>`
      select identity_id as id from emails where address = 'bob@corp.example'`;
    const sub = row?.id as Sub;
    const seed = newTotpSeed(t.secrets.totp, sub);
    await upsertPendingTotp(t.sql, sub, seed.sealed);
    await confirmTotp(t.sql, sub, seed.sealed, 0, t.clock.now());

    const without = await signIn(t.app, 'bob@corp.example', { password: 'bob-password-1' });
    assert.equal(without.response.statusCode, 401);
    envelope(without.response, 'invalid_credentials');
    const withCode = await signIn(t.app, 'bob@corp.example', {
      password: 'bob-password-1',
      totp: totpCode(seed.base32, t.clock.now()),
    });
    assert.equal(withCode.response.statusCode, 200, withCode.response.body);
    assert.deepEqual(withCode.response.json(), {
      aal: 'aal2',
      amr: ['pwd', 'otp'],
      enrollment_required: false,
      second_factor_required: false,
    });

    // The account's list of ways to sign in names the directory as configured, not by its id.
    const listed = await t.app.inject({
      method: 'GET',
      url: '/account/connections',
      headers: { cookie: withCode.session },
    });
    assert.equal(listed.statusCode, 200, listed.body);
    const { connections } = listed.json() as { connections: Record<string, unknown>[] };
    assert.deepEqual(
      connections.map((c) => [c.kind, c.provider, c.provider_name, c.label]),
      [['ldap', 'corp', 'Corp directory', 'bob@corp.example']],
    );
  });

  it('answers a wrong password and a subject without an entry with the same invalid_credentials', async () => {
    const wrong = await signIn(t.app, 'alice@corp.example', { password: 'alice-password-2' });
    const missing = await signIn(t.app, 'nobody@corp.example', { password: 'alice-password-1' });
    // carol's entry is locked by the directory's password policy (pwdAccountLockedTime); her password is right.
    const locked = await signIn(t.app, 'carol@corp.example', { password: 'carol-password-1' });
    for (const { response, session } of [wrong, missing, locked]) {
      assert.equal(response.statusCode, 401);
      assert.equal(envelope(response, 'invalid_credentials').error_description, 'The sign-in details are not correct.');
      assert.equal(session, '');
    }
  });

  it('refuses an empty password before any bind: an unauthenticated bind is no sign-in', async () => {
    const { response } = await signIn(t.app, 'alice@corp.example', { password: '' });
    assert.equal(response.statusCode, 400);
    const body = response.json() as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description', 'fields', 'request_id']);
    assert.equal(body.error, 'invalid_request');
    // Below the route's schema too: slapd would accept a simple bind with the DN and no password (RFC 4513 §5.1.2).
    assert.equal(await authenticate(directory(), 'alice@corp.example', ''), null);
  });

  it('treats filter syntax in the subject as literal text (RFC 4515), so a wildcard finds nobody', async () => {
    // Unescaped, (mail=al*@corp.example) would match Alice's entry and her password would sign this in.
    const wildcard = await signIn(t.app, 'al*@corp.example', { password: 'alice-password-1' });
    assert.equal(wildcard.response.statusCode, 401);
    envelope(wildcard.response, 'invalid_credentials');
    const byUid = directory({ user_filter: '(uid={subject})' });
    assert.equal(await authenticate(byUid, '*)(uid=*', 'alice-password-1'), null);
    assert.equal(await authenticate(byUid, 'al*', 'alice-password-1'), null);
    assert.equal((await authenticate(byUid, 'alice', 'alice-password-1'))?.displayName, 'Alice Liddell');
  });

  it('locks the subject after five wrong directory passwords, like a local password (429)', async () => {
    for (let i = 0; i < 5; i++) {
      const { response } = await signIn(
        t.app,
        'bob@corp.example',
        { password: `guess ${i}` },
        { remoteAddress: '10.0.0.9' },
      );
      assert.equal(response.statusCode, 401);
    }
    const locked = await signIn(
      t.app,
      'bob@corp.example',
      { password: 'bob-password-1' },
      { remoteAddress: '10.0.0.9' },
    );
    assert.equal(locked.response.statusCode, 429);
    envelope(locked.response, 'rate_limited');
  });

  it('routes only its own email domains to the directory', () => {
    const directories = [directory()];
    assert.equal(directoryForSubject(directories, 'x@corp.example')?.id, 'corp');
    assert.equal(directoryForSubject(directories, 'x@corp.example.evil'), null);
    assert.equal(directoryForSubject(directories, 'corp.example'), null);
  });
});

// Every way a directory can be reached, against the same slapd: each signs a user in through POST /auth/mfa/verify
// and gatehouse doctor names the transport it actually used.
const transports = [
  { mode: 'ldaps://', settings: {}, words: 'over ldaps:// with TLS' },
  { mode: 'StartTLS', settings: { url: slapd.ldapUrl, start_tls: true }, words: 'over ldap:// with StartTLS' },
  {
    mode: 'plain ldap:// on loopback',
    settings: { url: slapd.ldapUrl, allow_plain_loopback: true, ca_file: '' },
    words: 'over plain ldap:// on loopback without TLS (allow_plain_loopback)',
  },
] satisfies { mode: string; settings: Partial<DirectoryConfig>; words: string }[];

for (const { mode, settings, words } of transports) {
  describe(`an LDAP directory reached ${mode}`, async () => {
    const t = await appWith({ corp: corp(settings) });

    it('signs a directory user in through POST /auth/mfa/verify', async () => {
      const { response } = await signIn(t.app, 'alice@corp.example', { password: 'alice-password-1' });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), {
        aal: 'aal1',
        amr: ['pwd'],
        enrollment_required: true,
        second_factor_required: false,
      });
    });

    it('is reported ok by gatehouse doctor, naming the transport', async () => {
      assert.deepEqual(await directoryChecks(t.config), [
        {
          status: 'ok',
          name: 'ldap.corp',
          detail: `connected ${words}, service account bound, user_search_base searched`,
        },
      ]);
    });
  });
}

describe('gatehouse doctor and the probe of an LDAP directory', () => {
  it('fails the doctor probe with a clear message when the service password is wrong', async () => {
    await assert.rejects(probeDirectory({ ...directory(), bindPassword: 'wrong' }), {
      name: 'DirectoryUnavailable',
      message: 'LDAP directory corp: the service account (bind_dn) was refused',
    });
  });

  it('reports each directory in gatehouse doctor: ok when reachable, fail naming a missing secret file', async () => {
    const config = makeConfig({ secrets: { dir: providerSecretsDir({ 'ldap-corp.secret': SERVICE_PASSWORD }) } });
    config.ldap = { corp: corp(), other: corp({ email_domains: ['other.example'] }) };
    assert.deepEqual(await directoryChecks(config), [
      {
        status: 'ok',
        name: 'ldap.corp',
        detail: 'connected over ldaps:// with TLS, service account bound, user_search_base searched',
      },
      {
        status: 'fail',
        name: 'ldap.other',
        detail: 'LDAP directory other needs its service account password in ldap-other.secret in secrets.dir',
      },
    ]);
  });

  it('refuses a server certificate the configured CA did not sign', async () => {
    await assert.rejects(probeDirectory({ ...directory(), ca: undefined }), { name: 'DirectoryUnavailable' });
  });
});

describe('a directory that is down', async () => {
  const down = await startSlapd();
  const t = await appWith({ corp: corp({ url: down.ldapsUrl }) });
  await down.stop();

  it('answers 503 directory_unavailable and logs the cause, while local sign-in still works', async () => {
    const { response } = await signIn(t.app, 'alice@corp.example', { password: 'alice-password-1' });
    assert.equal(response.statusCode, 503);
    assert.equal(
      envelope(response, 'directory_unavailable').error_description,
      'The company directory that checks this sign-in cannot be reached; retry later or ask its administrator.',
    );
    assert.match(t.logs.text, /LDAP directory unavailable/);
    const [line] = await directoryChecks(t.config);
    assert.equal(line?.status, 'fail');
    assert.match(String(line?.detail), /^LDAP directory corp: .+; tried over ldaps:\/\/ with TLS$/);

    const local = await makeAccount(t.sql, t.secrets, t.config);
    const signedIn = await signIn(t.app, local.email, {
      password: local.password,
      totp: totpCode(local.totpSeed as string, t.clock.now()),
    });
    assert.equal(signedIn.response.statusCode, 200);
    assert.deepEqual(signedIn.response.json(), {
      aal: 'aal2',
      amr: ['pwd', 'otp'],
      enrollment_required: false,
      second_factor_required: false,
    });
  });
});

describe('a directory with sign_up = false', async () => {
  const t = await appWith({ corp: corp({ sign_up: false, group_roles: [], group_search_base: '' }) });

  it('refuses a directory user without an identity with 403 directory_signup_closed and creates nothing', async () => {
    const { response, session } = await signIn(t.app, 'alice@corp.example', { password: 'alice-password-1' });
    assert.equal(response.statusCode, 403);
    assert.equal(
      envelope(response, 'directory_signup_closed').error_description,
      'The directory accepted these details, but no account is linked to them and new accounts cannot be created here.',
    );
    assert.equal(session, '');
    const [count] = await t.sql<{ n: number }[]>`select count(*)::int as n from identities`;
    assert.equal(count?.n, 0);
  });
});
