import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { randomToken, tokenHash } from '../crypto/primitives.ts';
import { grantIdOfCode } from './ids.ts';
import { grantNamedBy, newRefreshToken } from './refresh-token-value.ts';

const key = randomBytes(32);
const aGrant = () => grantIdOfCode(randomToken());

describe('refresh token values', () => {
  it('name their grant, proven by the MAC, and are stored as the hash of the whole value', () => {
    const grantId = aGrant();
    const { value, hash } = newRefreshToken(key, grantId);
    assert.match(value, /^[A-Za-z0-9_-]{43}~grt_[A-Za-z0-9_-]{22}~[A-Za-z0-9_-]{22}$/);
    assert.equal(hash, tokenHash(value));
    assert.equal(grantNamedBy(key, value), grantId);
  });

  it('name no grant for a token of the earlier format (the secret alone)', () => {
    assert.equal(grantNamedBy(key, randomToken()), null);
  });

  it('name no grant when the MAC was made under another key, or when longer than a token can be', () => {
    const { value } = newRefreshToken(key, aGrant());
    assert.equal(grantNamedBy(randomBytes(32), value), null);
    assert.equal(grantNamedBy(key, `${value}${'A'.repeat(100)}`), null);
  });

  it('fuzz: a mutated value never names a grant unless it is the value itself', () => {
    let seed = 36;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const alphabet = 'AZaz09-_~.é\u0000 ';
    const { value } = newRefreshToken(key, aGrant());
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
      if (grantNamedBy(key, mutated) === null) continue;
      named += 1;
      assert.equal(mutated, value, 'only the value itself names its grant');
    }
    // A character replaced by itself gives the value back; nothing else may name the grant.
    assert.ok(named < 30, `${named} mutated values named a grant`);
  });
});
