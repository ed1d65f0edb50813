// Signing keys (DESIGN.md "Signing keys"): the initial RSA key from the secrets directory plus keys added by
// `gatehouse keys rotate`, stored sealed in PostgreSQL so every node sees the same set. The newest active key
// signs; retired keys verify and stay in the JWKS until every token they signed has expired, then disappear.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import { open, seal } from '../crypto/seal.ts';
import type { Sql } from '../db/pool.ts';
import { insertRotatedSigningKey, listSigningKeys } from './key-store.ts';

export interface KeyringDeps {
  sql: Sql;
  initialPem: string;
  /** Seals rotated private keys at rest (the `signing` secret). */
  sealKey: Buffer;
  clock: () => Date;
  /** The longest a signed token lives: a retired key stays published this long plus KEY_RELOAD_SECONDS. */
  maxTokenLifetimeSeconds: number;
}

/**
 * How long a node uses the key set it read. A node that read it just before another retired its signing key goes
 * on signing with that key for up to this long, so a retired key stays published for a token lifetime plus this.
 */
export const KEY_RELOAD_SECONDS = 30;

export interface LoadedKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: JWK;
  createdAt: Date;
  retiredAt: Date | null;
}

const purpose = (kid: string) => `oidc-signing-key:${kid}`;

export async function describeKey(
  privateKey: KeyObject,
): Promise<{ kid: string; publicJwk: JWK; publicKey: KeyObject }> {
  const publicKey = createPublicKey(privateKey);
  // node:crypto rather than jose's exportJWK/calculateJwkThumbprint: the server then never loads jose at runtime
  // (about 10 MB resident), and these two calls are all it used it for.
  const jwk = publicKey.export({ format: 'jwk' }) as { kty: string; n: string; e: string };
  // RFC 7638 thumbprint as kid: SHA-256 of the required members in lexicographic order, no whitespace. Stable,
  // derived from the key, the same on every node.
  const kid = createHash('sha256')
    .update(JSON.stringify({ e: jwk.e, kty: jwk.kty, n: jwk.n }))
    .digest('base64url');
  return { kid, publicKey, publicJwk: { kty: jwk.kty, n: jwk.n, e: jwk.e, kid, use: 'sig', alg: 'RS256' } };
}

export class Keyring {
  readonly #deps: KeyringDeps;
  #keys: LoadedKey[] = [];
  #loadedAt = Number.NEGATIVE_INFINITY;
  #loading: Promise<void> | null = null;

  constructor(deps: KeyringDeps) {
    this.#deps = deps;
  }

  /** The key that signs new tokens: the newest active one. */
  async signingKey(): Promise<LoadedKey> {
    await this.#fresh();
    const active = this.#keys.filter((k) => k.retiredAt === null);
    const newest = active.at(-1);
    if (!newest) throw new Error('No active signing key');
    return newest;
  }

  /** How long after its retirement a key may still have signed tokens that have not expired. */
  get #retiredKeyLifetimeMs(): number {
    return (this.#deps.maxTokenLifetimeSeconds + KEY_RELOAD_SECONDS) * 1000;
  }

  /**
   * Keys that may still verify a token (and are published): active, or retired so recently that a token one of them
   * signed may still be unexpired.
   */
  async verificationKeys(): Promise<LoadedKey[]> {
    await this.#fresh();
    const cutoff = this.#deps.clock().getTime() - this.#retiredKeyLifetimeMs;
    return this.#keys.filter((k) => k.retiredAt === null || k.retiredAt.getTime() > cutoff);
  }

  async findVerificationKey(kid: string | undefined): Promise<KeyObject | null> {
    let found = (await this.verificationKeys()).find((k) => k.kid === kid);
    if (!found && this.#deps.clock().getTime() - this.#loadedAt > 1000) {
      // Another node may have rotated moments ago.
      await this.refresh();
      found = (await this.verificationKeys()).find((k) => k.kid === kid);
    }
    return found?.publicKey ?? null;
  }

  async jwks(): Promise<{ keys: JWK[] }> {
    return { keys: (await this.verificationKeys()).map((k) => k.publicJwk) };
  }

  /** Adds a new RSA-2048 key that signs from now on; the current ones are retired. */
  async rotate(): Promise<string> {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const added = await describeKey(privateKey);
    const initial = await describeKey(createPrivateKey(this.#deps.initialPem));
    const now = this.#deps.clock();
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    await insertRotatedSigningKey(
      this.#deps.sql,
      {
        kid: added.kid,
        publicJwk: added.publicJwk,
        privateKeySealed: seal(this.#deps.sealKey, pem, purpose(added.kid)),
      },
      initial,
      now,
      new Date(now.getTime() - this.#retiredKeyLifetimeMs),
    );
    await this.refresh();
    return added.kid;
  }

  async refresh(): Promise<void> {
    const initialPrivate = createPrivateKey(this.#deps.initialPem);
    const initial = await describeKey(initialPrivate);
    const stored = await listSigningKeys(this.#deps.sql);
    const keys: LoadedKey[] = [];
    if (!stored.some((k) => k.kid === initial.kid))
      keys.push({
        ...initial,
        privateKey: initialPrivate,
        createdAt: new Date(0),
        retiredAt: null,
      });
    for (const row of stored) {
      const privateKey =
        row.privateKeySealed === null
          ? initialPrivate
          : createPrivateKey(open(this.#deps.sealKey, row.privateKeySealed, purpose(row.kid)).toString('utf8'));
      const publicKey = createPublicKey(privateKey);
      keys.push({
        kid: row.kid,
        privateKey,
        publicKey,
        publicJwk: row.publicJwk,
        createdAt: row.createdAt,
        retiredAt: row.retiredAt,
      });
    }
    keys.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    this.#keys = keys;
    this.#loadedAt = this.#deps.clock().getTime();
  }

  async #fresh(): Promise<void> {
    const ageMs = this.#deps.clock().getTime() - this.#loadedAt;
    if (ageMs >= 0 && ageMs < KEY_RELOAD_SECONDS * 1000) return;
    this.#loading ??= this.refresh().finally(() => {
      this.#loading = null;
    });
    await this.#loading;
  }
}
