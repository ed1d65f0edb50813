// The ES256 signature conversion (R || S to DER) decides exactly as node:crypto's own `dsaEncoding: 'ieee-p1363'`
// path: for signatures that verify, for each of R and S with leading zero bytes or a set high bit, and for random or
// edited 64-byte strings (zero, above the curve's order, one bit off), the two answers are the same.
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes, sign, verify } from 'node:crypto';
import { describe, it } from 'node:test';
import { p256SignatureToDer } from './dpop-signature.ts';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });

const nodeDecides = (data: Buffer, signature: Buffer) =>
  verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature);
const weDecide = (data: Buffer, signature: Buffer) => verify('sha256', data, publicKey, p256SignatureToDer(signature));

describe('ES256 signatures as DER', () => {
  it('gives back byte for byte the DER OpenSSL signed, R and S with leading zero bytes or a set high bit included', () => {
    // R || S read out of OpenSSL's DER here, each INTEGER left-padded (or stripped of its sign byte) to 32 bytes.
    const fixed = (integer: Buffer) => Buffer.concat([Buffer.alloc(32), integer]).subarray(-32);
    const seen = { leadingZero: 0, highBit: 0 };
    for (let i = 0; i < 3000; i += 1) {
      const data = Buffer.from(`message ${i}`);
      const der = sign('sha256', data, privateKey);
      const rLength = der[3] as number;
      const r = der.subarray(4, 4 + rLength);
      const s = der.subarray(6 + rLength);
      const raw = Buffer.concat([fixed(r), fixed(s)]);
      assert.deepEqual(p256SignatureToDer(raw), der, `signature ${i}`);
      assert.ok(weDecide(data, raw) && nodeDecides(data, raw), `signature ${i} verifies`);
      for (const half of [raw.subarray(0, 32), raw.subarray(32)]) {
        if (half[0] === 0) seen.leadingZero += 1;
        if ((half[0] as number) & 0x80) seen.highBit += 1;
      }
    }
    // Both edge cases occurred (each has a probability of about 1/256 and 1/2 per half).
    assert.ok(seen.leadingZero > 0 && seen.highBit > 0, JSON.stringify(seen));
  });

  it('fuzz: decides as node:crypto does on random, zero, all-ones and one-bit-off signatures', () => {
    const data = Buffer.from('fuzzed');
    const good = sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' });
    const cases: Buffer[] = [
      Buffer.alloc(64),
      Buffer.alloc(64, 0xff),
      Buffer.concat([Buffer.alloc(32), good.subarray(32)]),
    ];
    cases.push(Buffer.concat([good.subarray(0, 32), Buffer.alloc(32)]));
    for (let i = 0; i < 500; i += 1) cases.push(randomBytes(64));
    for (let bit = 0; bit < 512; bit += 7) {
      const edited = Buffer.from(good);
      edited[bit >> 3] = (edited[bit >> 3] as number) ^ (1 << (bit & 7));
      cases.push(edited);
    }
    let accepted = 0;
    for (const signature of cases) {
      const expected = nodeDecides(data, signature);
      assert.equal(weDecide(data, signature), expected, signature.toString('hex'));
      if (expected) accepted += 1;
    }
    assert.equal(accepted, 0);
    assert.ok(weDecide(data, good) && nodeDecides(data, good));
  });
});
