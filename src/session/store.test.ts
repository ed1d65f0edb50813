import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startTestApp } from '../../test/helpers/app.ts';
import { makeIdentity } from '../../test/helpers/oauth-fixtures.ts';
import { findLiveSession, insertSession } from './store.ts';

describe('findLiveSession', async () => {
  const t = await startTestApp();
  const lifetimes = { idleSeconds: 3600, absoluteSeconds: 86_400 };
  const open = async (state: string) => {
    const sub = await makeIdentity(t.sql, { state });
    const now = t.clock.now();
    const { token } = await insertSession(
      t.sql,
      {
        identityId: sub,
        aal: 'aal2',
        amr: ['pwd', 'otp'],
        authTime: now,
        pending: null,
        clientIp: null,
        userAgent: null,
      },
      lifetimes,
      now,
    );
    return { sub, token };
  };
  const find = (token: string) => findLiveSession(t.sql, token, lifetimes, t.clock.now());

  it('returns the session of an active identity', async () => {
    const { sub, token } = await open('active');
    assert.equal((await find(token))?.identityId, sub);
  });

  for (const state of ['suspended', 'deleted', 'pending_verification'])
    it(`returns nothing for a session of a ${state} identity`, async () => {
      assert.equal(await find((await open(state)).token), null);
    });

  it('stops returning a session the moment its identity is suspended, and only while it is', async () => {
    const { sub, token } = await open('active');
    await t.sql`update identities set state = 'suspended' where id = ${sub}`;
    assert.equal(await find(token), null);
    await t.sql`update identities set state = 'active' where id = ${sub}`;
    assert.equal((await find(token))?.identityId, sub);
  });
});
