// Per-node cache of the token state introspection and userinfo read from PostgreSQL (docs/decisions.md "Token state
// cache"): a grant is live (and whose it is), an access token's jti is not revoked, a client exists, an identity is
// active (and its profile claims). Only facts that let a token through are cached; a refusal always reads through.
//
// Keys are the NOTIFY payloads of migration 0009 (`grant:<id>`, `jti:<jti>`, `client:<id>`, `identity:<sub>`), so an
// invalidation deletes exactly its key. The cache is used only while the LISTEN connection is up: before it first
// listens, and from the moment its socket closes until it listens again, every read goes to the database, and
// (re)listening clears everything, since notifications sent meanwhile are lost. Entries also expire after
// `maxAgeSeconds`, which bounds staleness if a notification is delayed or a dead connection goes unnoticed.
import { BoundedMap } from './bounded-map.ts';

/** Four kinds of fact, about 10k tokens' worth each. */
const ENTRIES = 40_000;

export type TokenStateEvent = { type: 'invalidated'; key: string } | { type: 'listening' } | { type: 'lost' };

interface Entry {
  value: unknown;
  storedAt: number;
}

export interface TokenStateCacheOptions {
  /** 0 disables the cache: every read goes to the database. */
  maxAgeSeconds: number;
  clock: () => Date;
}

export class TokenStateCache {
  readonly #entries = new BoundedMap<string, Entry>(ENTRIES);
  readonly #maxAgeMs: number;
  readonly #clock: () => Date;
  readonly #observers = new Set<(event: TokenStateEvent) => void>();
  #listening = false;
  /** Bumped by every invalidation: a read that started before one must not store what it read. */
  #epoch = 0;

  constructor(options: TokenStateCacheOptions) {
    this.#maxAgeMs = options.maxAgeSeconds * 1000;
    this.#clock = options.clock;
  }

  get enabled(): boolean {
    return this.#maxAgeMs > 0;
  }

  /** True while invalidations are being received, so cached facts may be used. */
  get listening(): boolean {
    return this.#listening;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): unknown {
    if (!this.#listening) return undefined;
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    // A clock that went back counts as expired, so a wall-clock step can never stretch an entry's life.
    const age = this.#clock().getTime() - entry.storedAt;
    if (age >= 0 && age < this.#maxAgeMs) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }

  /**
   * Call before reading from the database; pass the result to store(). Null when nothing read now may be cached.
   * A notification can arrive before the query's answer although the query saw the state before the change: the
   * epoch then differs and the answer is not stored.
   */
  beginRead(): number | null {
    return this.#listening && this.enabled ? this.#epoch : null;
  }

  store(readEpoch: number | null, key: string, value: unknown): void {
    if (readEpoch === null || readEpoch !== this.#epoch || !this.#listening) return;
    this.#entries.set(key, { value, storedAt: this.#clock().getTime() });
  }

  /** A NOTIFY from migration 0009's triggers: the payload is the key. */
  invalidate(key: string): void {
    this.forget(key);
    this.#emit({ type: 'invalidated', key });
  }

  /**
   * A change this node has just committed (a revocation): forgotten at once, not when its NOTIFY comes back, so the
   * client that revoked a token and asks this node about it next is never told it is still active.
   */
  forget(key: string): void {
    this.#epoch++;
    this.#entries.delete(key);
  }

  /** A change this node committed whose keys are too many to name: every fact is read again. */
  forgetAll(): void {
    this.#epoch++;
    this.#entries.clear();
  }

  /** The LISTEN connection is (again) listening: anything cached before may have missed a notification. */
  listened(): void {
    this.#epoch++;
    this.#entries.clear();
    this.#listening = true;
    this.#emit({ type: 'listening' });
  }

  /** The LISTEN connection is gone: stop using the cache until listened() runs again. */
  lost(): void {
    this.#epoch++;
    this.#listening = false;
    this.#entries.clear();
    this.#emit({ type: 'lost' });
  }

  /** Observes invalidations and connection changes (tests wait on them instead of sleeping); returns unsubscribe. */
  observe(observer: (event: TokenStateEvent) => void): () => void {
    this.#observers.add(observer);
    return () => this.#observers.delete(observer);
  }

  #emit(event: TokenStateEvent): void {
    for (const observer of this.#observers) observer(event);
  }
}
