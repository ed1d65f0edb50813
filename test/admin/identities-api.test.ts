import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeField } from '../../src/http/validation-messages.ts';
import * as directory from '../../src/identity/directory-store.ts';
import { type Account, JSON_HEADERS, makeAccount, signIn, totpCode } from '../helpers/accounts.ts';
import { adminCaller, assertAdminError, auditOf } from '../helpers/admin-api.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeAdmin, makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { refreshTokens, userTokens } from '../helpers/oauth-flow.ts';

const t = await startTestApp();
const admin = await makeAdmin(t);
const call = adminCaller(t, admin.cookie);
const signedIn = async (a: Account) => {
  t.clock.advance(30); // a fresh TOTP step for each sign-in
  const { response, session } = await signIn(t.app, a.email, {
    password: a.password,
    totp: totpCode(a.totpSeed as string, t.clock.now()),
  });
  assert.equal(response.statusCode, 200);
  return session;
};
// Any call that needs a live session; logout is one that every deployment serves.
const useSession = (cookie: string) =>
  t.app.inject({ method: 'POST', url: '/auth/logout', headers: { ...JSON_HEADERS, cookie }, payload: {} });

describe('GET /admin/identities', async () => {
  const grace = await makeAccount(t.sql, t.secrets, t.config, { email: 'Grace.Hopper@Navy.test' });
  await t.sql`update identities set display_name = 'Grace Hopper' where id = ${grace.sub}`;
  const alan = await makeIdentity(t.sql, { displayName: 'Alan Turing', email: 'alan@bletchley.test' });

  test('finds a person by the start of an email address, whatever its case', async () => {
    const r = await call('GET', '/admin/identities?q=GRACE.hopper@');
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.identities, [
      {
        sub: grace.sub,
        state: 'active',
        ial: 'ial1',
        display_name: 'Grace Hopper',
        email: 'Grace.Hopper@Navy.test',
        invited: false,
        created_at: (r.json.identities as { created_at: string }[])[0]?.created_at,
      },
    ]);
    assert.equal(r.json.next_cursor, null);
  });

  test('finds a person by part of the display name or by the exact sub', async () => {
    const byName = await call('GET', '/admin/identities?q=turing');
    assert.deepEqual(
      (byName.json.identities as { sub: string }[]).map((i) => i.sub),
      [alan],
    );
    const bySub = await call('GET', `/admin/identities?q=${alan}`);
    assert.deepEqual(
      (bySub.json.identities as { sub: string }[]).map((i) => i.sub),
      [alan],
    );
  });

  test('takes % and _ in a query literally', async () => {
    const r = await call('GET', '/admin/identities?q=%25');
    assert.deepEqual(r.json.identities, []);
  });

  test('pages through everyone with limit and next_cursor, newest first, without repeats', async () => {
    const seen: string[] = [];
    let url = '/admin/identities?limit=1';
    for (;;) {
      const r = await call('GET', url);
      assert.equal(r.status, 200);
      seen.push(...(r.json.identities as { sub: string }[]).map((i) => i.sub));
      if (!r.json.next_cursor) break;
      url = `/admin/identities?limit=1&cursor=${r.json.next_cursor}`;
    }
    const [{ n }] = (await t.sql`select count(*)::int as n from identities`) as unknown as [{ n: number }];
    assert.equal(seen.length, n);
    assert.equal(new Set(seen).size, n);
  });

  test('names go straight into the trigram index, leaving no pending list for a search to read (migration 0034)', async () => {
    const [index] = await t.sql<{ reloptions: string[] }[]>`
      select reloptions from pg_class where relname = 'identities_display_name_trgm'`;
    assert.deepEqual(index?.reloptions, ['fastupdate=off']);
  });

  for (const [query, path, problem] of [
    ['limit=0', 'querystring.limit', 'Enter a whole number from 1 to 100.'],
    ['limit=101', 'querystring.limit', 'Enter a whole number from 1 to 100.'],
    ['cursor=bm9wZQ', 'querystring.cursor', 'Is not a cursor this API returned.'],
    ['colour=red', 'querystring.colour', 'This request does not accept this field; remove it.'],
  ] as const)
    test(`refuses ${query} with 400 invalid_request naming ${path}`, async () => {
      const r = await call('GET', `/admin/identities?${query}`);
      assertAdminError(r, 400, 'invalid_request', describeField({ path, problem }), [{ path, problem }]);
    });

  test('answers 401 login_required without a session and 403 admin_required for a member', async () => {
    assertAdminError(await call('GET', '/admin/identities', undefined, ''), 401, 'login_required', 'Sign in first.');
    const member = await makeIdentity(t.sql);
    const { cookie } = await makeSession(t, member);
    assertAdminError(
      await call('GET', '/admin/identities', undefined, cookie),
      403,
      'admin_required',
      'Only an owner of the organization may do this',
    );
  });
});

describe('GET /admin/identities: a query that looks like an address', async () => {
  const subs = (r: { json: Record<string, unknown> }) => (r.json.identities as { sub: string }[]).map((i) => i.sub);
  /** An identity created `minutesAgo` minutes before the others, so the newest-first order is known. */
  const person = async (displayName: string, email: string, minutesAgo: number) => {
    const sub = await makeIdentity(t.sql, { displayName, email });
    await t.sql`update identities set created_at = now() - make_interval(mins => ${minutesAgo}) where id = ${sub}`;
    return sub;
  };
  const twain = await person('Samuel Clemens', 'Mark.Twain@Books.test', 10);
  const fan = await person('mark.twain fan club', 'club@books.test', 9);
  const house = await person('Dr.House', 'gregory@princeton.test', 8);
  const cuddy = await person('Lisa Cuddy (not Dr.House)', 'lisa@princeton.test', 7);
  const ops = await person('Ops @ Princeton', 'ops@princeton.test', 7);
  await person('Clemens, Samuel', 'samuel@books.test', 7);
  const pagers = [await person('Pager One', 'pager.1@ward.test', 6), await person('Pager Two', 'pager.2@ward.test', 5)];
  await person('pager.2 collector', 'collector@ward.test', 11);

  test('finds by address only, though a display name contains the query too', async () => {
    assert.deepEqual(subs(await call('GET', '/admin/identities?q=mark.twain')), [twain]);
    assert.deepEqual(subs(await call('GET', '/admin/identities?q=MARK.TWAIN%40books')), [twain]);
  });

  test('finds display names containing it when no address starts with it', async () => {
    assert.deepEqual(subs(await call('GET', '/admin/identities?q=dr.house')), [cuddy, house]);
    assert.deepEqual(subs(await call('GET', '/admin/identities?q=twain%20fan')), [fan]);
  });

  test('a query with a space is a name, a sub is a sub', async () => {
    assert.deepEqual(subs(await call('GET', '/admin/identities?q=samuel%20CLEMENS')), [twain]);
    assert.deepEqual(subs(await call('GET', `/admin/identities?q=${house}`)), [house]);
    // An @ with a space around it cannot start an address: only names can hold it.
    assert.deepEqual(subs(await call('GET', '/admin/identities?q=ops%20%40%20princeton')), [ops]);
  });

  test('a name of several words matches as written, not word by word, short words included', async () => {
    // "Clemens, Samuel" has both words but not "samuel clemens"; the words only narrow the index scan.
    assert.deepEqual(subs(await call('GET', '/admin/identities?q=samuel%20clemens')), [twain]);
    assert.deepEqual(subs(await call('GET', '/admin/identities?q=lisa%20C')), [cuddy]);
    assert.deepEqual(subs(await call('GET', '/admin/identities?q=uel%20cle')), [twain]);
    assert.deepEqual(subs(await call('GET', '/admin/identities?q=CUDDY%20(NOT%20dr')), [cuddy]);
    assert.deepEqual(subs(await call('GET', '/admin/identities?q=samuel%20%25')), []);
  });

  test('pages through address matches and then ends, never falling back to names', async () => {
    const first = await call('GET', '/admin/identities?q=pager.&limit=1');
    assert.deepEqual(subs(first), [pagers[1]]);
    const second = await call('GET', `/admin/identities?q=pager.&limit=1&cursor=${first.json.next_cursor}`);
    assert.deepEqual(subs(second), [pagers[0]]);
    assert.equal(second.json.next_cursor, null);
    // Past the last address match the page is empty, though the display name "pager.2 collector" contains the query.
    const [oldest] = await t.sql<
      { created_at: Date }[]
    >`select created_at from identities where id = ${pagers[0] as string}`;
    const after = { createdAt: oldest?.created_at as Date, id: pagers[0] as string };
    assert.deepEqual(await directory.searchIdentities(t.sql, 'pager.', 2, after), []);
    assert.deepEqual(subs(await call('GET', '/admin/identities?q=pager.2')), [pagers[1]]);
  });

  test('pages through display names found for an address-shaped query', async () => {
    const first = await call('GET', '/admin/identities?q=dr.house&limit=1');
    assert.deepEqual(subs(first), [cuddy]);
    const second = await call('GET', `/admin/identities?q=dr.house&limit=1&cursor=${first.json.next_cursor}`);
    assert.deepEqual(subs(second), [house]);
    assert.equal(second.json.next_cursor, null);
  });
});

describe('GET /admin/identities: input the database cannot take', () => {
  const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const notACursor = [{ path: 'querystring.cursor', problem: 'Is not a cursor this API returned.' }];

  test('refuses cursors that were not ours: a year PostgreSQL has not, an id outside our alphabet', async () => {
    for (const cursor of [
      cursorOf(['+275760-09-13T00:00:00.000Z', 'usr_x']),
      cursorOf(['2026-05-01T00:00:00Z', 'usr_x']),
      cursorOf(['2026-05-01T00:00:00.000Z', 'usr_\u0000']),
    ]) {
      for (const url of ['/admin/identities', '/admin/organizations/acme/members']) {
        const r = await call('GET', `${url}?cursor=${cursor}`);
        assertAdminError(r, 400, 'invalid_request', 'Page: is not a cursor this API returned.', notACursor);
      }
    }
  });

  test('answers a NUL character in the search with 400 invalid_request, not a 500', async () => {
    assertAdminError(
      await call('GET', '/admin/identities?q=a%00b'),
      400,
      'invalid_request',
      'A value in the request is out of range or not valid text',
    );
  });
});

describe('GET /admin/identities/:sub', async () => {
  test('shows the identity, its emails, sign-in methods, memberships and live sessions, and no secret', async () => {
    const person = await makeAccount(t.sql, t.secrets, t.config, { roles: ['member', 'billing'] });
    await signedIn(person);
    const r = await call('GET', `/admin/identities/${person.sub}`);
    assert.equal(r.status, 200);
    const body = r.json as Record<string, unknown> & {
      emails: unknown[];
      sign_in_methods: Record<string, unknown>[];
      memberships: unknown[];
      sessions: Record<string, unknown>[];
    };
    assert.equal(body.sub, person.sub);
    assert.equal(body.state, 'active');
    assert.equal(body.ial, 'ial1');
    assert.equal(body.emails.length, 1);
    assert.deepEqual(Object.keys(body.emails[0] as object).sort(), ['address', 'created_at', 'primary', 'verified']);
    assert.deepEqual(
      body.sign_in_methods.map((m) => [m.kind, m.provider, typeof m.last_used_at]),
      [['password', 'local', 'string']],
    );
    assert.deepEqual(
      body.memberships.map((m) => (m as { roles: string[] }).roles),
      [['member', 'billing']],
    );
    assert.equal(body.sessions.length, 1);
    assert.match(String(body.sessions[0]?.id), /^ses_/);
    assert.equal(body.sessions[0]?.aal, 'aal2');
    assert.equal(body.sessions[0]?.client_ip, '127.0.0.1');
    const text = JSON.stringify(body);
    for (const secret of [person.password, person.totpSeed as string, ...person.recoveryCodes])
      assert.ok(!text.includes(secret), 'no credential in the answer');
    const [row] = await t.sql`select token_hash from sessions where identity_id = ${person.sub}`;
    assert.ok(!text.includes(String(row?.token_hash)));

    // A session is named by its browser and system, beside the raw User-Agent it was read from.
    const userAgent =
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
    await t.sql`update sessions set user_agent = ${userAgent} where identity_id = ${person.sub}`;
    const named = (await call('GET', `/admin/identities/${person.sub}`)).json as {
      sessions: Record<string, unknown>[];
    };
    assert.deepEqual(
      named.sessions.map((s) => [s.user_agent, s.device]),
      [[userAgent, 'Chrome 131 on Windows 10']],
    );
  });

  test('answers 404 not_found for an unknown sub and 400 for a malformed one', async () => {
    assertAdminError(await call('GET', '/admin/identities/usr_nobody'), 404, 'not_found', 'No such identity');
    const path = 'params.sub';
    const problem = 'Enter an identity id, which starts with usr_.';
    assertAdminError(
      await call('GET', '/admin/identities/cli_x'),
      400,
      'invalid_request',
      describeField({ path, problem }),
      [{ path, problem }],
    );
  });
});

describe('POST /admin/identities/:sub/suspend and /reactivate', async () => {
  const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret);

  test('suspends at once: the open session is refused, refresh tokens die, sign-in fails; reactivation restores sign-in', async () => {
    const person = await makeAccount(t.sql, t.secrets, t.config);
    const cookie = await signedIn(person);
    // The authorization request below proves the session is live before the suspension.
    const tokens = await userTokens(t, { client, secret, cookie });

    const suspended = await call('POST', `/admin/identities/${person.sub}/suspend`, {});
    assert.equal(suspended.status, 200);
    assert.deepEqual(suspended.json, { sub: person.sub, state: 'suspended', sessions_revoked: 1, grants_revoked: 1 });

    const refused = await useSession(cookie);
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.json().error, 'login_required');
    const refreshed = await refreshTokens(t, client, secret, tokens.refresh_token);
    assert.equal(refreshed.status, 400);
    assert.equal(refreshed.json.error, 'invalid_grant');
    t.clock.advance(30);
    const again = await signIn(t.app, person.email, {
      password: person.password,
      totp: totpCode(person.totpSeed as string, t.clock.now()),
    });
    assert.equal(again.response.statusCode, 401);

    const reactivated = await call('POST', `/admin/identities/${person.sub}/reactivate`, {});
    assert.deepEqual(reactivated.json, { sub: person.sub, state: 'active' });
    assert.equal((await useSession(await signedIn(person))).statusCode, 204);
    assert.deepEqual(
      (await auditOf(t, person.sub)).filter((a) => a.event.startsWith('identity.')),
      [
        {
          event: 'identity.suspended',
          actor: admin.sub,
          details: { sessions_revoked: 1, grants_revoked: 1 },
        },
        { event: 'identity.reactivated', actor: admin.sub, details: {} },
      ],
    );
  });

  test('refuses to suspend twice or reactivate an active identity with 409 invalid_identity_state', async () => {
    const person = await makeIdentity(t.sql);
    assert.equal((await call('POST', `/admin/identities/${person}/suspend`, {})).status, 200);
    assertAdminError(
      await call('POST', `/admin/identities/${person}/suspend`, {}),
      409,
      'invalid_identity_state',
      'The identity is suspended; it cannot be suspended',
    );
    assert.equal((await call('POST', `/admin/identities/${person}/reactivate`, {})).status, 200);
    assertAdminError(
      await call('POST', `/admin/identities/${person}/reactivate`, {}),
      409,
      'invalid_identity_state',
      'The identity is active; it cannot be reactivated',
    );
  });

  test('refuses suspending yourself with 409 cannot_suspend_self', async () => {
    assertAdminError(
      await call('POST', `/admin/identities/${admin.sub}/suspend`, {}),
      409,
      'cannot_suspend_self',
      'You cannot suspend your own account; ask another owner.',
    );
  });

  test('two owners suspending each other at once: one wins, the organization keeps an active ial2 owner', async () => {
    const makeOwner = async () => {
      const sub = await makeIdentity(t.sql, { assurance: 'ial2' });
      await t.sql`insert into memberships (organization_id, identity_id, roles) values ('acme', ${sub}, ${['owner']})`;
      return { sub, cookie: (await makeSession(t, sub)).cookie };
    };
    const [a, b] = [await makeOwner(), await makeOwner()];
    // The fixture owner steps aside so that a and b are the only qualifying owners.
    await t.sql`update identities set assurance = 'ial1' where id = ${admin.sub}`;
    try {
      const answers = await Promise.all([
        call('POST', `/admin/identities/${b.sub}/suspend`, {}, a.cookie),
        call('POST', `/admin/identities/${a.sub}/suspend`, {}, b.cookie),
      ]);
      assert.deepEqual(answers.map((r) => r.status).filter((s) => s === 200).length, 1, JSON.stringify(answers));
      const loser = answers.find((r) => r.status !== 200);
      assert.ok(loser && ['login_required', 'last_owner'].includes(String(loser.json.error)));
      const [row] =
        await t.sql`select count(*)::int as n from identities where id in (${a.sub}, ${b.sub}) and state = 'active'`;
      assert.equal(row?.n, 1);
    } finally {
      await t.sql`update identities set assurance = 'ial2' where id = ${admin.sub}`;
    }
  });

  test('refuses lowering the last active ial2 owner to ial1 with 409 last_owner and changes nothing', async () => {
    const others = await t.sql`
      select m.identity_id from memberships m join identities i on i.id = m.identity_id
      where m.organization_id = 'acme' and 'owner' = any(m.roles) and i.state = 'active' and i.assurance = 'ial2'
        and i.id <> ${admin.sub}`;
    await t.sql`update identities set assurance = 'ial1' where id in ${t.sql(others.map((o) => o.identity_id))}`;
    const lowered = await call('POST', `/admin/identities/${admin.sub}/assurance`, { ial: 'ial1' });
    assertAdminError(
      lowered,
      409,
      'last_owner',
      'The organization must keep at least one active IAL2 owner; make someone else an owner first.',
    );
    const [row] = await t.sql`select assurance from identities where id = ${admin.sub}`;
    assert.equal(row?.assurance, 'ial2');
  });

  test('answers 404 not_found for an unknown sub and refuses a body with fields', async () => {
    assertAdminError(
      await call('POST', '/admin/identities/usr_nobody/suspend', {}),
      404,
      'not_found',
      'No such identity',
    );
    const r = await call('POST', `/admin/identities/${admin.sub}/reactivate`, { reason: 'x' });
    assertAdminError(r, 400, 'invalid_request', 'Reason: this request does not accept this field; remove it.', [
      { path: 'body.reason', problem: 'This request does not accept this field; remove it.' },
    ]);
  });
});

describe('POST /admin/identities/:sub/sessions/revoke', async () => {
  const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret);

  test('ends every session and every OAuth grant of the identity, audited', async () => {
    const person = await makeAccount(t.sql, t.secrets, t.config);
    const cookie = await signedIn(person);
    const tokens = await userTokens(t, { client, secret, cookie });
    const r = await call('POST', `/admin/identities/${person.sub}/sessions/revoke`, {});
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, { revoked: 1, grants_revoked: 1 });
    assert.equal((await useSession(cookie)).statusCode, 401);
    const refreshed = await refreshTokens(t, client, secret, tokens.refresh_token);
    assert.equal(refreshed.status, 400);
    assert.equal(refreshed.json.error, 'invalid_grant');
    const events = await auditOf(t, person.sub);
    assert.deepEqual(
      events.filter((e) => e.event === 'session.revoked_all'),
      [{ event: 'session.revoked_all', actor: admin.sub, details: { revoked: 1, grants_revoked: 1 } }],
    );
  });

  test('the owner guard answers before the parameters are read: 401 without a session, even for a malformed sub', async () => {
    assertAdminError(
      await call('POST', '/admin/identities/cli_123/sessions/revoke', {}, ''),
      401,
      'login_required',
      'Sign in first.',
    );
    assertAdminError(
      await call('POST', '/admin/identities/usr_nobody/sessions/revoke', {}),
      404,
      'not_found',
      'No such identity',
    );
  });
});

describe('POST /admin/identities/:sub/assurance', async () => {
  test('raises an identity to ial2 and lowers it again, auditing each change once', async () => {
    const person = await makeIdentity(t.sql);
    const raised = await call('POST', `/admin/identities/${person}/assurance`, { ial: 'ial2' });
    assert.equal(raised.status, 200);
    assert.deepEqual(raised.json, { sub: person, ial: 'ial2' });
    assert.equal((await call('POST', `/admin/identities/${person}/assurance`, { ial: 'ial2' })).status, 200);
    assert.equal((await call('GET', `/admin/identities/${person}`)).json.ial, 'ial2');
    assert.equal((await call('POST', `/admin/identities/${person}/assurance`, { ial: 'ial1' })).json.ial, 'ial1');
    assert.deepEqual(await auditOf(t, person), [
      { event: 'identity.assurance_changed', actor: admin.sub, details: { from: 'ial1', to: 'ial2' } },
      { event: 'identity.assurance_changed', actor: admin.sub, details: { from: 'ial2', to: 'ial1' } },
    ]);
  });

  test('refuses an unknown level with 400 invalid_request and changes nothing', async () => {
    const person = await makeIdentity(t.sql);
    const r = await call('POST', `/admin/identities/${person}/assurance`, { ial: 'ial3' });
    assertAdminError(r, 400, 'invalid_request', 'Identity assurance: choose one of ial1, ial2.', [
      { path: 'body.ial', problem: 'Choose one of ial1, ial2.' },
    ]);
    assert.deepEqual(await auditOf(t, person), []);
  });
});
