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
 * How long a node uses the key set it read, when it missed the rotation's notification (see SIGNING_KEYS_CHANGED;
 * a node without a token state cache does not listen). A node that read it just before another retired its signing key goes
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

/**
 * The least time between two loads of the key set that an unknown `kid` may cause. Anyone can send a token naming a
 * key nobody has, so misses share one load and start another at most this often.
 */
export const KEY_MISS_RELOAD_MS = 1000;

interface InitialKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: JWK;
}

export class Keyring {
  readonly #deps: KeyringDeps;
  #keys: LoadedKey[] = [];
  /** The sealed private key each loaded kid came from, so a reload that finds it unchanged keeps its KeyObjects. */
  #sealed = new Map<string, string | null>();
  #initial: Promise<InitialKey> | null = null;
  #loadedAt = Number.NEGATIVE_INFINITY;
  #lastLoadStartedAt = Number.NEGATIVE_INFINITY;
  #loading: Promise<void> | null = null;
  #loadsStarted = 0;
  #loadApplied = 0;

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
    const now = this.#deps.clock().getTime();
    return this.#keys.filter((k) => this.#verifies(k, now));
  }

  /** Active, or retired so recently that a token it signed may still be unexpired. */
  #verifies(key: LoadedKey, now: number): boolean {
    return key.retiredAt === null || key.retiredAt.getTime() > now - this.#retiredKeyLifetimeMs;
  }

  /** The key set in memory was read less than KEY_RELOAD_SECONDS ago; a clock that went back makes it stale. */
  #isFresh(now: number): boolean {
    const ageMs = now - this.#loadedAt;
    return ageMs >= 0 && ageMs < KEY_RELOAD_SECONDS * 1000;
  }

  /**
   * The public key for `kid` from the key set in memory, while that set is fresh: what findVerificationKey would
   * return, without a promise, for the hot paths that verify a cached token. Undefined when the set is due for a
   * reload or does not publish `kid`: only findVerificationKey can tell then.
   */
  verificationKeyNow(kid: string | undefined): KeyObject | undefined {
    const now = this.#deps.clock().getTime();
    if (kid === undefined || !this.#isFresh(now)) return undefined;
    const found = this.#keys.find((k) => k.kid === kid);
    return found && this.#verifies(found, now) ? found.publicKey : undefined;
  }

  /**
   * The public key for `kid`, the same object for as long as the key is published (the verified-token cache relies
   * on that). An unknown `kid` may be a key another node added moments ago, so it reloads the key set: a miss joins
   * a load under way, or starts one if none started in the last KEY_MISS_RELOAD_MS.
   */
  async findVerificationKey(kid: string | undefined): Promise<KeyObject | null> {
    if (kid === undefined) return null;
    const known = this.verificationKeyNow(kid);
    if (known) return known;
    const found = (await this.verificationKeys()).find((k) => k.kid === kid);
    if (found) return found.publicKey;
    const sinceLastLoad = this.#deps.clock().getTime() - this.#lastLoadStartedAt;
    if (this.#loading === null && sinceLastLoad >= 0 && sinceLastLoad < KEY_MISS_RELOAD_MS) return null;
    await (this.#loading ?? this.#startLoad());
    return (await this.verificationKeys()).find((k) => k.kid === kid)?.publicKey ?? null;
  }

  async jwks(): Promise<{ keys: JWK[] }> {
    return { keys: (await this.verificationKeys()).map((k) => k.publicJwk) };
  }

  /** Adds a new RSA-2048 key that signs from now on; the current ones are retired. */
  async rotate(): Promise<string> {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const added = await describeKey(privateKey);
    const initial = await this.#initialKey();
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

  /** Loads the key set now (after a rotation, and in tests); requests arriving meanwhile share this load. */
  refresh(): Promise<void> {
    return this.#startLoad();
  }

  #startLoad(): Promise<void> {
    const loading: Promise<void> = this.#load().finally(() => {
      if (this.#loading === loading) this.#loading = null;
    });
    this.#loading = loading;
    return loading;
  }

  async #load(): Promise<void> {
    this.#lastLoadStartedAt = this.#deps.clock().getTime();
    const sequence = ++this.#loadsStarted;
    const initial = await this.#initialKey();
    const stored = await listSigningKeys(this.#deps.sql);
    // A forced refresh may overlap an older load; whichever started later wins, so old rows never come back.
    if (sequence < this.#loadApplied) return;
    const previous = new Map(this.#keys.map((k) => [k.kid, k]));
    const keys: LoadedKey[] = [];
    const sealed = new Map<string, string | null>();
    if (!stored.some((k) => k.kid === initial.kid)) {
      keys.push({ ...initial, createdAt: new Date(0), retiredAt: null });
      sealed.set(initial.kid, null);
    }
    for (const row of stored) {
      const known = previous.get(row.kid);
      // The same kid with the same sealed key is the same key: keep its objects (and skip the unsealing), so a
      // reload that finds nothing new changes nothing for the verified-token cache.
      const pair =
        row.privateKeySealed === null
          ? initial
          : known && this.#sealed.get(row.kid) === row.privateKeySealed
            ? known
            : this.#unseal(row.kid, row.privateKeySealed);
      keys.push({
        kid: row.kid,
        privateKey: pair.privateKey,
        publicKey: pair.publicKey,
        publicJwk: row.publicJwk,
        createdAt: row.createdAt,
        retiredAt: row.retiredAt,
      });
      sealed.set(row.kid, row.privateKeySealed);
    }
    keys.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    this.#keys = keys;
    this.#sealed = sealed;
    this.#loadApplied = sequence;
    this.#loadedAt = this.#deps.clock().getTime();
  }

  #unseal(kid: string, sealedKey: string): { privateKey: KeyObject; publicKey: KeyObject } {
    const privateKey = createPrivateKey(open(this.#deps.sealKey, sealedKey, purpose(kid)).toString('utf8'));
    return { privateKey, publicKey: createPublicKey(privateKey) };
  }

  /**
   * The key from the secrets directory, parsed once: its file does not change while the process runs. The promise is
   * kept, so two loads that overlap on the first one share the same objects.
   */
  #initialKey(): Promise<InitialKey> {
    this.#initial ??= (async () => {
      const privateKey = createPrivateKey(this.#deps.initialPem);
      return { ...(await describeKey(privateKey)), privateKey };
    })();
    return this.#initial;
  }

  async #fresh(): Promise<void> {
    if (this.#isFresh(this.#deps.clock().getTime())) return;
    await (this.#loading ?? this.#startLoad());
  }
}
