import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, test } from 'node:test';
import { importSPKI, jwtVerify } from 'jose';
import { isCompactJws, signRs256, verifyRs256 } from './jws.ts';

describe('RS256 compact JWS', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyFor = async (kid: string | undefined): Promise<KeyObject | null> => (kid === 'k1' ? publicKey : null);
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

  test('signs tokens that jose verifies, and verifies them back', async () => {
    const token = await signRs256(privateKey, { typ: 'at+jwt', kid: 'k1' }, { sub: 'usr_1', exp: 2_000_000_000 });
    const spki = publicKey.export({ type: 'spki', format: 'pem' }) as string;
    const { payload, protectedHeader } = await jwtVerify(token, await importSPKI(spki, 'RS256'));
    assert.equal(payload.sub, 'usr_1');
    assert.deepEqual(protectedHeader, { alg: 'RS256', typ: 'at+jwt', kid: 'k1' });
    assert.deepEqual((await verifyRs256(token, keyFor))?.payload, { sub: 'usr_1', exp: 2_000_000_000 });
  });

  test('refuses a tampered payload, another key, an unknown kid, alg none or HS256, and crit', async () => {
    const token = await signRs256(privateKey, { kid: 'k1' }, { sub: 'usr_1' });
    const [h, , s] = token.split('.') as [string, string, string];
    assert.equal(await verifyRs256(`${h}.${b64({ sub: 'usr_2' })}.${s}`, keyFor), null);
    assert.equal(await verifyRs256(await signRs256(other.privateKey, { kid: 'k1' }, { sub: 'x' }), keyFor), null);
    assert.equal(await verifyRs256(await signRs256(privateKey, { kid: 'k9' }, { sub: 'x' }), keyFor), null);
    const payload = b64({ sub: 'x' });
    assert.equal(await verifyRs256(`${b64({ alg: 'none', kid: 'k1' })}.${payload}.`, keyFor), null);
    assert.equal(await verifyRs256(`${b64({ alg: 'HS256', kid: 'k1' })}.${payload}.${s}`, keyFor), null);
    assert.equal(
      await verifyRs256(await signRs256(privateKey, { kid: 'k1', crit: 'exp' } as never, { sub: 'x' }), keyFor),
      null,
    );
    assert.equal(await verifyRs256('not-a-jwt', keyFor), null);
    assert.equal(await verifyRs256(`${b64([1])}.${payload}.${s}`, keyFor), null);
  });

  test('isCompactJws tells a JWT shape from anything else, whoever signed it', async () => {
    const token = await signRs256(other.privateKey, { kid: 'k9' }, { sub: 'x' });
    assert.equal(isCompactJws(token), true);
    assert.equal(await verifyRs256(token, keyFor), null);
    const [h, p] = token.split('.') as [string, string];
    for (const shape of [
      'a.b.c',
      'not-a-jwt',
      `${h}.${p}`,
      `${h}.${p}.s.x`,
      `${b64([1])}.${p}.s`,
      `${h}.${b64('x')}.s`,
    ])
      assert.equal(isCompactJws(shape), false, shape);
  });
});
