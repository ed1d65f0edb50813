import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { tokenHash } from '../crypto/primitives.ts';
import { newGrantId } from './ids.ts';
import { newRefreshSecret, readRefreshToken, refreshTokenValue } from './refresh-token-value.ts';

const key = randomBytes(32);

describe('refresh token values', () => {
  it('name their grant and are looked up by their secret’s hash', () => {
    const { secret, hash } = newRefreshSecret();
    const grantId = newGrantId();
    const value = refreshTokenValue(key, secret, grantId);
    assert.match(value, /^[A-Za-z0-9_-]{43}~grt_[A-Za-z0-9_-]{22}~[A-Za-z0-9_-]{22}$/);
    assert.deepEqual(readRefreshToken(key, value), { hash, grantId });
    assert.equal(hash, tokenHash(secret));
  });

  it('read a token of the earlier format (the secret alone) by its hash, naming no grant', () => {
    const { secret, hash } = newRefreshSecret();
    assert.deepEqual(readRefreshToken(key, secret), { hash, grantId: null });
  });

  it('refuse a value made under another key, and anything longer than a value can be', () => {
    const value = refreshTokenValue(key, newRefreshSecret().secret, newGrantId());
    assert.equal(readRefreshToken(randomBytes(32), value), null);
    assert.equal(readRefreshToken(key, `${value}${'A'.repeat(100)}`), null);
    assert.equal(readRefreshToken(key, 'A'.repeat(129)), null);
  });

  it('fuzz: a mutated value never names a grant unless it is exactly what the key makes for that grant', () => {
    let seed = 36;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const alphabet = 'AZaz09-_~.é\u0000 ';
    const { secret } = newRefreshSecret();
    const grantId = newGrantId();
    const value = refreshTokenValue(key, secret, grantId);
    let named = 0;
    for (let i = 0; i < 3000; i += 1) {
      const chars = [...value];
      for (let edits = 1 + random(3); edits > 0; edits -= 1) {
        const at = random(chars.length + 1);
        const c = alphabet[random(alphabet.length)] as string;
        const kind = random(3);
        if (kind === 0) chars.splice(at, 1, c);
        else if (kind === 1) chars.splice(at, 0, c);
        else chars.splice(at, 1);
      }
      const mutated = chars.join('');
      const read = readRefreshToken(key, mutated);
      if (read === null) continue;
      if (read.grantId === null) {
        assert.ok(!mutated.includes('~'), 'only a value without ~ is read as the earlier format');
        assert.equal(read.hash, tokenHash(mutated));
        continue;
      }
      named += 1;
      const [part, grant] = mutated.split('~') as [string, string];
      assert.equal(mutated, refreshTokenValue(key, part, grant));
    }
    // Only a mutation that gave back the value itself (a character replaced by itself) can name the grant.
    assert.ok(named < 30, `${named} mutated values named a grant`);
  });
});
