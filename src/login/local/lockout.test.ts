import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JSON_HEADERS, makeAccount, signIn, totpCode } from '../../../test/helpers/accounts.ts';
import { startTestApp, TestClock } from '../../../test/helpers/app.ts';
import { createTestDatabase } from '../../../test/helpers/database.ts';

describe('POST /auth/mfa/verify throttling', async () => {
  const { sql } = await createTestDatabase();
  const clock = new TestClock();
  // Two nodes on one database, as behind a load balancer.
  const nodeA = await startTestApp({ sql, clock });
  const nodeB = await startTestApp({ sql, clock });

  it('locks an account after 5 failures spread over two nodes, with 429 rate_limited and Retry-After', async () => {
    const a = await makeAccount(sql, nodeA.secrets, nodeA.config);
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const node = attempt % 2 === 0 ? nodeB : nodeA;
      const { response } = await signIn(node.app, a.email, { password: `wrong password ${attempt}`, totp: '000000' });
      assert.equal(response.statusCode, 401, `attempt ${attempt}`);
    }
    const right = { password: a.password, totp: totpCode(a.totpSeed as string, clock.now()) };
    const locked = await signIn(nodeB.app, a.email, right);
    assert.equal(locked.response.statusCode, 429);
    assert.equal(locked.response.headers['retry-after'], '30');
    assert.deepEqual(locked.response.json(), {
      error: 'rate_limited',
      error_description: 'Too many sign-in attempts; retry later.',
      request_id: locked.response.headers['x-request-id'],
    });
    assert.equal(locked.session, '');

    // A restarted node (a new app on the same database) still sees the lock.
    const restarted = await startTestApp({ sql, clock });
    const afterRestart = await signIn(restarted.app, a.email, right);
    assert.equal(afterRestart.response.statusCode, 429);
    assert.equal(afterRestart.response.headers['retry-after'], '30');

    clock.advance(31);
    const ok = await signIn(restarted.app, a.email, {
      password: a.password,
      totp: totpCode(a.totpSeed as string, clock.now()),
    });
    assert.equal(ok.response.statusCode, 200, 'the lock ends after Retry-After');

    // The success reset the account counter: the next failure is an ordinary 401, not a lock.
    const again = await signIn(nodeA.app, a.email, { password: 'wrong password 9', totp: '000000' });
    assert.equal(again.response.statusCode, 401);

    const events = await sql<{ event: string; subject: string | null; client_ip: string }[]>`
      select event, subject, client_ip from audit_events where event in ('signin.locked', 'signin.throttled') order by id`;
    assert.deepEqual(
      events.map((e) => [e.event, e.subject, e.client_ip]),
      [
        ['signin.locked', a.sub, '127.0.0.1'],
        ['signin.throttled', null, '127.0.0.1'],
        ['signin.throttled', null, '127.0.0.1'],
      ],
    );
  });

  it('doubles the lock with each further failure', async () => {
    const a = await makeAccount(sql, nodeA.secrets, nodeA.config);
    for (let attempt = 1; attempt <= 5; attempt += 1)
      await signIn(nodeA.app, a.email, { password: `wrong password ${attempt}` });
    clock.advance(31);
    const sixth = await signIn(nodeB.app, a.email, { password: 'wrong password 6' });
    assert.equal(sixth.response.statusCode, 401);
    const locked = await signIn(nodeB.app, a.email, { password: 'wrong password 7' });
    assert.equal(locked.response.statusCode, 429);
    assert.equal(locked.response.headers['retry-after'], '60');
  });

  it('throttles unknown subjects exactly like known ones', async () => {
    for (let attempt = 1; attempt <= 5; attempt += 1)
      await signIn(nodeA.app, 'ghost@acme.test', { password: `wrong password ${attempt}` });
    const locked = await signIn(nodeA.app, 'ghost@acme.test', { password: 'wrong password 6' });
    assert.equal(locked.response.statusCode, 429);
    assert.equal(locked.response.headers['retry-after'], '30');
  });

  it('locks a client IP after 50 failures across many accounts, and not other IPs', async () => {
    const ip = { remoteAddress: '203.0.113.7' };
    for (let attempt = 1; attempt <= 50; attempt += 1) {
      const { response } = await signIn(nodeA.app, `spray${attempt}@acme.test`, { password: 'Winter2024!!' }, ip);
      assert.equal(response.statusCode, 401, `attempt ${attempt}`);
    }
    const a = await makeAccount(sql, nodeA.secrets, nodeA.config);
    const right = { password: a.password, totp: totpCode(a.totpSeed as string, clock.now()) };
    const locked = await signIn(nodeB.app, a.email, right, ip);
    assert.equal(locked.response.statusCode, 429);
    assert.equal(locked.response.headers['retry-after'], '30');
    const elsewhere = await signIn(nodeB.app, a.email, right, { remoteAddress: '198.51.100.9' });
    assert.equal(elsewhere.response.statusCode, 200);
  });

  it('a success that was the attempt reaching the IP threshold leaves the address unlocked', async () => {
    const ip = { remoteAddress: '203.0.113.20' };
    // 49 failures already counted for this address: the next attempt is the 50th and sets the IP lock.
    await sql`insert into login_throttle (scope, key, failures, updated_at) values ('ip', ${ip.remoteAddress}, 49, ${clock.now()})`;
    const a = await makeAccount(sql, nodeA.secrets, nodeA.config);
    const ok = await signIn(
      nodeA.app,
      a.email,
      { password: a.password, totp: totpCode(a.totpSeed as string, clock.now()) },
      ip,
    );
    assert.equal(ok.response.statusCode, 200);
    const [row] =
      await sql`select failures, locked_until from login_throttle where scope = 'ip' and key = ${ip.remoteAddress}`;
    assert.deepEqual({ ...row }, { failures: 49, locked_until: null });
    const next = await signIn(nodeB.app, a.email, { password: 'wrong password 1', totp: '000000' }, ip);
    assert.equal(next.response.statusCode, 401, 'the address is not locked by a successful attempt');
  });

  it('a success keeps an IP lock that an earlier failure set', async () => {
    const ip = { remoteAddress: '203.0.113.21' };
    await sql`insert into login_throttle (scope, key, failures, updated_at) values ('ip', ${ip.remoteAddress}, 49, ${clock.now()})`;
    const failed = await signIn(nodeA.app, 'spray@acme.test', { password: 'Winter2024!!' }, ip);
    assert.equal(failed.response.statusCode, 401);
    const a = await makeAccount(sql, nodeA.secrets, nodeA.config);
    const right = { password: a.password, totp: totpCode(a.totpSeed as string, clock.now()) };
    const locked = await signIn(nodeA.app, a.email, right, ip);
    assert.equal(locked.response.statusCode, 429);
  });
});

describe('POST /auth/login per-IP start limit', async () => {
  const { sql } = await createTestDatabase();
  const clock = new TestClock();
  const nodeA = await startTestApp({ sql, clock });
  const nodeB = await startTestApp({ sql, clock });
  const start = (app: typeof nodeA.app, remoteAddress: string) =>
    app.inject({
      method: 'POST',
      url: '/auth/login',
      headers: JSON_HEADERS,
      remoteAddress,
      payload: { subject: 'someone@acme.test' },
    });

  it('admits 60 starts a minute from one address across nodes, then answers 429 rate_limited with Retry-After', async () => {
    for (let i = 1; i <= 60; i += 1) {
      const response = await start(i % 2 === 0 ? nodeA.app : nodeB.app, '198.51.100.40');
      assert.equal(response.statusCode, 200, `start ${i}`);
    }
    clock.advance(20);
    const refused = await start(nodeA.app, '198.51.100.40');
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.headers['retry-after'], '40');
    assert.deepEqual(refused.json(), {
      error: 'rate_limited',
      error_description: 'Too many sign-in starts from this address; retry later.',
      request_id: refused.headers['x-request-id'],
    });
    const [row] = await sql`select count(*)::int as n from login_transactions`;
    assert.equal(row?.n, 60, 'a refused start stores no transaction');

    assert.equal((await start(nodeB.app, '198.51.100.41')).statusCode, 200, 'another address is not limited');
    clock.advance(40);
    assert.equal((await start(nodeB.app, '198.51.100.40')).statusCode, 200, 'a new window admits again');
  });
});
