import assert from 'node:assert/strict';
import { constants, generateKeyPairSync, type KeyObject, randomBytes, randomUUID, sign } from 'node:crypto';
import { describe, it } from 'node:test';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { ProofRefused, verifyDpopProof } from './dpop-proof.ts';

const HTU = 'https://id.example/oauth/token';
const now = new Date();
const iat = Math.floor(now.getTime() / 1000);
const SIGNATURE_REFUSED =
  'The DPoP proof must be a dpop+jwt signed with ES256, EdDSA, RS256, PS256 by the public key in its jwk header';

type Alg = 'ES256' | 'EdDSA' | 'RS256' | 'PS256';
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function keyPair(alg: Alg, rsaBits = 2048) {
  if (alg === 'ES256') return generateKeyPairSync('ec', { namedCurve: 'P-256' });
  if (alg === 'EdDSA') return generateKeyPairSync('ed25519');
  return generateKeyPairSync('rsa', { modulusLength: rsaBits });
}

function signature(alg: Alg, input: string, key: KeyObject): Buffer {
  const data = Buffer.from(input);
  if (alg === 'EdDSA') return sign(null, data, key);
  if (alg === 'ES256') return sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' });
  if (alg === 'PS256') return sign('sha256', data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 });
  return sign('sha256', data, key);
}

interface Made {
  header?: Record<string, unknown>;
  claims?: Record<string, unknown>;
  /** Signs with this alg's rules, whatever the header says. */
  signAs?: Alg;
}

function prover(alg: Alg, rsaBits?: number) {
  const { privateKey, publicKey } = keyPair(alg, rsaBits);
  const jwk = publicKey.export({ format: 'jwk' });
  return {
    jwk,
    privateJwk: privateKey.export({ format: 'jwk' }),
    proof({ header = {}, claims = {}, signAs = alg }: Made = {}): string {
      const input = `${encode({ typ: 'dpop+jwt', alg, jwk, ...header })}.${encode({ htm: 'POST', htu: HTU, iat, jti: randomUUID(), ...claims })}`;
      return `${input}.${signature(signAs, input, privateKey).toString('base64url')}`;
    },
  };
}

const refusal = async (proof: string, expected = { htm: 'POST', htu: HTU, now }) => {
  try {
    await verifyDpopProof(proof, expected);
  } catch (error) {
    if (error instanceof ProofRefused) return error.message;
    throw error;
  }
  return null;
};

describe('DPoP proof signatures on node:crypto', () => {
  for (const alg of ['ES256', 'EdDSA', 'RS256', 'PS256'] as const)
    it(`accepts ${alg} and answers the key's RFC 7638 thumbprint`, async () => {
      const client = prover(alg);
      const verified = await verifyDpopProof(client.proof(), { htm: 'POST', htu: HTU, now });
      assert.equal(verified.jkt, await calculateJwkThumbprint(client.jwk as JWK, 'sha256'));
      // Twice: the second check reads the imported key from the cache.
      const again = await verifyDpopProof(client.proof(), { htm: 'POST', htu: HTU, now });
      assert.equal(again.jkt, verified.jkt);
    });

  it('refuses a signature that does not verify, for every algorithm', async () => {
    for (const alg of ['ES256', 'EdDSA', 'RS256', 'PS256'] as const) {
      const good = prover(alg).proof();
      const [h, p, s] = good.split('.') as [string, string, string];
      const flipped = Buffer.from(s, 'base64url');
      flipped[0] = (flipped[0] as number) ^ 1;
      assert.equal(await refusal(`${h}.${p}.${flipped.toString('base64url')}`), SIGNATURE_REFUSED, alg);
      // The same signature over other claims.
      const other = encode({ htm: 'POST', htu: HTU, iat, jti: randomUUID() });
      assert.equal(await refusal(`${h}.${other}.${s}`), SIGNATURE_REFUSED, alg);
    }
  });

  it('refuses a key of another kind than the algorithm names, and RSA under 2048 bits', async () => {
    const ec = prover('ES256');
    // An EC key under EdDSA, an Ed25519 key under ES256, an RSA key under ES256.
    assert.equal(await refusal(ec.proof({ header: { alg: 'EdDSA' }, signAs: 'ES256' })), SIGNATURE_REFUSED);
    const ed = prover('EdDSA');
    assert.equal(await refusal(ed.proof({ header: { alg: 'ES256' }, signAs: 'EdDSA' })), SIGNATURE_REFUSED);
    const rsa = prover('RS256');
    assert.equal(await refusal(rsa.proof({ header: { alg: 'ES256' }, signAs: 'RS256' })), SIGNATURE_REFUSED);
    // An RS256 signature presented as PS256 (and the other way round) does not verify.
    assert.equal(await refusal(rsa.proof({ header: { alg: 'PS256' }, signAs: 'RS256' })), SIGNATURE_REFUSED);
    assert.equal(await refusal(rsa.proof({ header: { alg: 'RS256' }, signAs: 'PS256' })), SIGNATURE_REFUSED);
    assert.equal(await refusal(prover('RS256', 1024).proof()), SIGNATURE_REFUSED);
  });

  it('refuses a private key in the header, a missing key, another typ, crit, none and HS256', async () => {
    const client = prover('ES256');
    const cases: [string, Made][] = [
      ['private jwk', { header: { jwk: client.privateJwk } }],
      ['no jwk', { header: { jwk: undefined } }],
      ['jwk not an object', { header: { jwk: 'key' } }],
      ['jwk of another curve', { header: { jwk: { ...client.jwk, crv: 'P-384' } } }],
      ['symmetric jwk', { header: { jwk: { kty: 'oct', k: randomBytes(32).toString('base64url') } } }],
      ['typ JWT', { header: { typ: 'JWT' } }],
      ['no typ', { header: { typ: undefined } }],
      ['crit', { header: { crit: ['exp'] } }],
      ['alg none', { header: { alg: 'none' } }],
      ['alg HS256', { header: { alg: 'HS256' } }],
      ['alg ES384', { header: { alg: 'ES384' } }],
    ];
    for (const [name, made] of cases) assert.equal(await refusal(client.proof(made)), SIGNATURE_REFUSED, name);
    // typ compares case-insensitively, with or without the media type prefix (RFC 7515 §4.1.9).
    assert.equal(await refusal(client.proof({ header: { typ: 'application/DPoP+JWT' } })), null);
  });

  it('refuses an ES256 signature in DER form', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const input = `${encode({ typ: 'dpop+jwt', alg: 'ES256', jwk: publicKey.export({ format: 'jwk' }) })}.${encode({ htm: 'POST', htu: HTU, iat, jti: randomUUID() })}`;
    const der = sign('sha256', Buffer.from(input), privateKey);
    assert.equal(await refusal(`${input}.${der.toString('base64url')}`), SIGNATURE_REFUSED);
  });

  it('refuses claims that are not an object, a proof that says it expired, and what is not a compact JWS', async () => {
    const client = prover('EdDSA');
    assert.equal(await refusal(client.proof({ claims: { exp: iat - 1 } })), 'The DPoP proof has expired (exp)');
    assert.equal(await refusal(client.proof({ claims: { exp: 'later' } })), 'The DPoP proof has expired (exp)');
    assert.equal(await refusal(client.proof({ claims: { exp: iat + 30 } })), null);
    const [h, , s] = client.proof().split('.') as [string, string, string];
    assert.equal(await refusal(`${h}.${Buffer.from('[1]').toString('base64url')}.${s}`), SIGNATURE_REFUSED);
    for (const shape of ['', 'a.b', 'a.b.c.d', 'a.b.c d', `${'a'.repeat(8200)}.b.c`])
      assert.equal(await refusal(shape), 'The DPoP proof is not a compact JWS', shape.slice(0, 20));
  });

  it('fuzz: mutated proofs are refused with ProofRefused, never another error, and never accepted', async () => {
    const clients = (['ES256', 'EdDSA', 'RS256', 'PS256'] as const).map((alg) => prover(alg));
    let seed = 26;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ';
    for (let i = 0; i < 2_000; i += 1) {
      const proof = clients[random(clients.length)]?.proof() as string;
      const chars = [...proof];
      for (let edits = 1 + random(4); edits > 0; edits -= 1) {
        const at = random(chars.length);
        const edit = random(3);
        const c = alphabet[random(alphabet.length)] as string;
        if (edit === 0) chars[at] = c;
        else if (edit === 1) chars.splice(at, 1);
        else chars.splice(at, 0, c);
      }
      const mutated = chars.join('');
      if (mutated === proof) continue;
      const message = await refusal(mutated);
      // A base64url edit can leave every decoded byte the same (the trailing bits of a segment): only then may a
      // mutated proof verify.
      if (message === null) {
        const decoded = (t: string) => t.split('.').map((part) => Buffer.from(part, 'base64url').toString('hex'));
        assert.deepEqual(decoded(mutated), decoded(proof), mutated);
      }
    }
  });
});
