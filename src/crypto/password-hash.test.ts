import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { hashPassword, verifyPassword } from './password-hash.ts';

describe('argon2id password hashing', () => {
  const pepper = randomBytes(32);
  const params = { memoryKib: 19_456, passes: 2, parallelism: 1 };

  it('stores a PHC string with its parameters and verifies the password', async () => {
    const phc = await hashPassword('correct horse battery staple', pepper, params);
    assert.match(phc, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    assert.deepEqual(await verifyPassword('correct horse battery staple', phc, pepper, params), {
      ok: true,
      needsRehash: false,
    });
    assert.equal((await verifyPassword('correct horse battery stapler', phc, pepper, params)).ok, false);
  });

  it('salts every hash', async () => {
    assert.notEqual(
      await hashPassword('same password', pepper, params),
      await hashPassword('same password', pepper, params),
    );
  });

  it('needs the pepper: the same hash fails under another one', async () => {
    const phc = await hashPassword('correct horse battery staple', pepper, params);
    assert.equal((await verifyPassword('correct horse battery staple', phc, randomBytes(32), params)).ok, false);
  });

  it('verifies with the stored parameters and asks for a rehash when the configured ones changed', async () => {
    const phc = await hashPassword('correct horse battery staple', pepper, { ...params, memoryKib: 8192, passes: 1 });
    assert.deepEqual(await verifyPassword('correct horse battery staple', phc, pepper, params), {
      ok: true,
      needsRehash: true,
    });
  });

  it('refuses a stored value that is not an argon2id PHC string', async () => {
    await assert.rejects(verifyPassword('x', '$2b$10$abcdefghijklmnopqrstuv', pepper, params), /argon2id PHC/);
  });
});
