// The keyring's key set: loads it shares on unknown kids, objects it keeps across reloads, and the answers it gives
// from memory.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { rotateSigningKey } from '../../src/cli/keys.ts';
import type { Sql } from '../../src/db/pool.ts';
import { KEY_RELOAD_SECONDS } from '../../src/oauth/keyring.ts';
import { startTestApp } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { assertEnvelope, userTokens } from '../helpers/oauth-flow.ts';

/** The test database's pool, counting the statements that read the key set (one per keyring load). */
async function countingKeyLoads(): Promise<{ sql: Sql; loads: () => number }> {
  const { sql } = await createTestDatabase();
  let loads = 0;
  const counted = new Proxy(sql, {
    apply(target, thisArg, args: unknown[]) {
      const strings = args[0];
      if (Array.isArray(strings) && String(strings[0]).includes('from oauth_signing_keys')) loads += 1;
      return Reflect.apply(target, thisArg, args);
    },
  });
  return { sql: counted, loads: () => loads };
}

const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** A JWT-shaped bearer token naming a key nobody has; anyone can send one without signing in. */
const unknownKidToken = () =>
  `${encode({ alg: 'RS256', typ: 'at+jwt', kid: randomBytes(16).toString('base64url') })}.${encode({ sub: 'x' })}.AAAA`;

describe('key set reloads on an unknown kid: GET /oauth/userinfo', async () => {
  const { sql, loads } = await countingKeyLoads();
  const t = await startTestApp({ sql });
  const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret);
  const { cookie } = await makeSession(t, await makeIdentity(t.sql));

  const userinfo = async (token: string) => {
    const r = await t.app.inject({
      method: 'GET',
      url: '/oauth/userinfo',
      headers: { authorization: `Bearer ${token}` },
    });
    return { status: r.statusCode, headers: r.headers, json: JSON.parse(r.body) as Record<string, unknown> };
  };
  const burst = async (count: number) => {
    const answers = await Promise.all(Array.from({ length: count }, () => userinfo(unknownKidToken())));
    for (const r of answers) assertEnvelope(r, 401, 'invalid_token', 'The access token is invalid, expired or revoked');
  };

  test('50 concurrent requests with random kids load the key set once, and not again within a second', async () => {
    await t.services.keyring.refresh();
    t.clock.advance(2);
    const before = loads();
    await burst(50);
    assert.equal(loads() - before, 1);
    await burst(50);
    assert.equal(loads() - before, 1, 'a second burst within the second reuses the load');
    t.clock.advance(2);
    await burst(50);
    assert.equal(loads() - before, 2);
  });

  test('a reload that finds the same keys keeps their key objects, so cached verifications stay valid', async () => {
    const { access_token } = await userTokens(t, { client, secret, cookie, scope: 'openid' });
    const kid = JSON.parse(Buffer.from(access_token.split('.')[0] as string, 'base64url').toString()).kid as string;
    const key = await t.services.keyring.findVerificationKey(kid);
    assert.ok(key);
    t.clock.advance(2);
    await burst(10);
    assert.equal(await t.services.keyring.findVerificationKey(kid), key);
    // A rotation elsewhere retires the key; it keeps verifying with the same object while it is published.
    await rotateSigningKey(t.sql, t.secrets, t.config, t.clock.now);
    await t.services.keyring.refresh();
    assert.equal(await t.services.keyring.findVerificationKey(kid), key);
    assert.equal((await userinfo(access_token)).status, 200);
    // The rotated-in key is stored sealed: reloads that find its row unchanged keep its objects too, even when they
    // overlap.
    const rotated = (await t.services.keyring.jwks()).keys.at(-1)?.kid as string;
    const sealedKey = await t.services.keyring.findVerificationKey(rotated);
    assert.ok(sealedKey);
    await Promise.all([t.services.keyring.refresh(), t.services.keyring.refresh()]);
    assert.equal(await t.services.keyring.findVerificationKey(rotated), sealedKey);
  });
});

describe('the key set in memory without a promise: Keyring.verificationKeyNow', async () => {
  const { sql, loads } = await countingKeyLoads();
  const t = await startTestApp({ sql });
  const keyring = t.services.keyring;
  const firstKid = async () => (await keyring.jwks()).keys[0]?.kid as string;

  test('answers what findVerificationKey answers while the key set is fresh, and nothing for an unknown kid', async () => {
    await keyring.refresh();
    const kid = await firstKid();
    const key = (await keyring.verificationKeys()).find((k) => k.kid === kid)?.publicKey;
    assert.ok(key);
    assert.equal(keyring.verificationKeyNow(kid), key);
    assert.equal(await keyring.findVerificationKey(kid), key);
    assert.equal(keyring.verificationKeyNow('no-such-kid'), undefined);
    assert.equal(keyring.verificationKeyNow(undefined), undefined);
  });

  test('trusts no key set due for a reload, nor one read in the future of a clock that went back', async () => {
    await keyring.refresh();
    const kid = await firstKid();
    t.clock.advance(KEY_RELOAD_SECONDS);
    assert.equal(keyring.verificationKeyNow(kid), undefined, 'due for a reload');
    const before = loads();
    const key = await keyring.findVerificationKey(kid);
    assert.equal(loads() - before, 1, 'findVerificationKey reloads it');
    assert.equal(keyring.verificationKeyNow(kid), key);
    t.clock.advance(-1);
    assert.equal(keyring.verificationKeyNow(kid), undefined, 'the clock went back');
    t.clock.advance(1);
    assert.equal(keyring.verificationKeyNow(kid), key);
  });

  test('answers for a retired key while it is published, and not after', async () => {
    await keyring.refresh();
    const kid = await firstKid();
    const key = await keyring.findVerificationKey(kid);
    await rotateSigningKey(t.sql, t.secrets, t.config, t.clock.now);
    await keyring.refresh();
    assert.equal(keyring.verificationKeyNow(kid), key, 'retired, still published');
    const lifetime = Math.max(t.config.tokens.access_token_ttl_seconds, t.config.tokens.id_token_ttl_seconds);
    t.clock.advance(lifetime + KEY_RELOAD_SECONDS + 1);
    await keyring.refresh();
    assert.equal(keyring.verificationKeyNow(kid), undefined);
    assert.equal(await keyring.findVerificationKey(kid), null);
  });
});
