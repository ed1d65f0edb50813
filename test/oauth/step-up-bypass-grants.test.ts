// Migration 0043: what the old second-factor bypass was issued does not outlive the fix. Before migration 0038 a
// single-factor session of a person with TOTP or a passkey was complete, and /oauth/authorize gave it codes; 0038
// made such sessions wait for the second step, and 0043 revokes the aal1 grants (and unused codes) issued to a
// person after their second factor existed. A database is built with every migration but 0043 (the running code
// needs the later ones' columns), grants are issued through the real endpoints from such sessions, then 0043 runs
// and the tokens are presented again.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { migrate, readMigrations } from '../../src/db/migrate.ts';
import type { Sub } from '../../src/identity/ids.ts';
import { insertSignInMethod } from '../../src/identity/store.ts';
import { insertPasskeyCredential } from '../../src/login/passkey/store.ts';
import { enrollTotp } from '../helpers/accounts.ts';
import { startTestApp } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { assertTokensDead, assertTokensLive } from '../helpers/grants.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { authorizedCode, userTokens } from '../helpers/oauth-flow.ts';

describe('migration 0043: aal1 grants issued after the second factor existed are revoked', async () => {
  const { sql } = await createTestDatabase({ migrated: false });
  const migrations = readMigrations();
  await migrate(
    sql,
    migrations.filter((m) => m.version !== 43),
  );
  const t = await startTestApp({ sql });
  const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret);
  const seconds = (s: number) => new Date(t.clock.now().getTime() + s * 1000);

  /** Tokens of the code flow from a session the old rules left complete at `aal`. */
  const tokensOf = async (sub: Sub, aal: 'aal1' | 'aal2') => {
    const amr = aal === 'aal1' ? ['fed'] : ['fed', 'otp'];
    const { cookie } = await makeSession(t, sub, { aal, amr });
    return { client, secret: secret as string, ...(await userTokens(t, { client, secret, cookie })) };
  };
  const confirmTotpAt = async (sub: Sub, at: Date) => {
    await enrollTotp(t.sql, t.secrets, sub);
    await t.sql`update totp_credentials set confirmed_at = ${at} where identity_id = ${sub}`;
  };

  // A person with TOTP: one aal1 grant from before the authenticator, then the bypass's, an aal2 one, a pending code.
  const withTotp = await makeIdentity(t.sql);
  const beforeFactor = await tokensOf(withTotp, 'aal1');
  t.clock.advance(60);
  await confirmTotpAt(withTotp, t.clock.now());
  t.clock.advance(60);
  const bypass = await tokensOf(withTotp, 'aal1');
  const stepped = await tokensOf(withTotp, 'aal2');
  const pendingCode = await authorizedCode(t, {
    client,
    secret,
    cookie: (await makeSession(t, withTotp, { aal: 'aal1', amr: ['fed'] })).cookie,
  });
  // A person whose second factor is a passkey (a UV-less assertion or a redirect provider gave aal1).
  const withPasskey = await makeIdentity(t.sql);
  const { method } = await insertSignInMethod(t.sql, {
    identityId: withPasskey,
    kind: 'passkey',
    provider: 'webauthn',
    externalSubject: 'credential-0043',
  });
  await insertPasskeyCredential(
    t.sql,
    {
      methodId: method.id,
      identityId: withPasskey,
      credentialId: 'credential-0043',
      publicKey: new Uint8Array([1, 2, 3]),
      signCount: 0,
      transports: [],
      backupEligible: false,
      backupState: false,
      aaguid: '00000000-0000-0000-0000-000000000000',
    },
    seconds(-1),
  );
  const passkeyBypass = await tokensOf(withPasskey, 'aal1');
  // A person with no second factor at all: one factor is all there is.
  const singleFactor = await tokensOf(await makeIdentity(t.sql), 'aal1');

  await migrate(sql, migrations);

  test('the bypass grants are revoked: introspection, userinfo and refresh all refuse their tokens', async () => {
    await assertTokensDead(t, bypass);
    await assertTokensDead(t, passkeyBypass);
  });

  test('an unexchanged aal1 code of the bypass is refused with invalid_grant', async () => {
    const exchanged = await pendingCode.exchange();
    assert.equal(exchanged.status, 400, JSON.stringify(exchanged.json));
    assert.equal(exchanged.json.error, 'invalid_grant');
  });

  test('aal2 grants, grants from before the factor and grants of people without one keep working', async () => {
    await assertTokensLive(t, stepped);
    await assertTokensLive(t, beforeFactor);
    await assertTokensLive(t, singleFactor);
  });

  test('each revocation is audited as oauth.grant_revoked with reason second_factor_bypass', async () => {
    const rows = await t.sql<{ actor: string; details: { reason: string } }[]>`
      select actor, details from audit_pending where event = 'oauth.grant_revoked'
      union all
      select actor, details from audit_events where event = 'oauth.grant_revoked'`;
    const bypassed = rows.filter((r) => r.details.reason === 'second_factor_bypass');
    assert.equal(bypassed.length, 2);
    assert.ok(bypassed.every((r) => r.actor === client.id));
  });
});
