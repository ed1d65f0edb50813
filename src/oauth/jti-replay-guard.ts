// Single use of JWT ids (DPoP proofs, client assertions) for one process, in front of the replay store every node
// shares (used-jti-store.ts). PostgreSQL stays the only judge of a first use: a key is accepted only once its INSERT
// has returned it, so a proof replayed to another worker or node is refused there as before. What this adds is cost:
// the keys of requests that arrive while a statement is out go together into the next one (one round trip and one
// statement for many requests, like a group commit), and a process refuses a key it has already seen by itself,
// without asking the database. What a process remembers can only refuse, never accept (docs/decisions.md "DPoP
// replay checks in batches").
import type { Executor } from '../db/pool.ts';
import { BoundedMap } from './bounded-map.ts';
import { insertUsedJtis } from './used-jti-store.ts';

export interface JtiReplayGuard {
  /** True when `key` was never used on any node (and now is, until `expiresAt`); false for a replay. */
  consume(key: string, expiresAt: Date): Promise<boolean>;
}

/** Keys this process has sent to the store, kept to refuse their replays locally: about 2 MB when full. */
const REMEMBERED = 10_000;
/** Keys per statement, so a burst after a slow round trip does not become one enormous statement. */
const MAX_BATCH = 512;

interface Waiting {
  expiresAt: Date;
  resolve: (fresh: boolean) => void;
  reject: (error: unknown) => void;
}

export function createJtiReplayGuard(sql: Executor, clock: () => Date): JtiReplayGuard {
  const seen = new BoundedMap<string, number>(REMEMBERED);
  const queued = new Map<string, Waiting>();
  let busy = false;

  async function flush(): Promise<void> {
    busy = true;
    const batch = new Map<string, Waiting>();
    for (const [key, waiting] of queued) {
      if (batch.size === MAX_BATCH) break;
      batch.set(key, waiting);
      queued.delete(key);
    }
    try {
      const fresh = await insertUsedJtis(
        sql,
        [...batch].map(([key, { expiresAt }]) => ({ key, expiresAt })),
      );
      for (const [key, waiting] of batch) waiting.resolve(fresh.has(key));
    } catch (error) {
      // The statement failed as a whole: nothing of it was recorded (or, had the connection dropped after the
      // commit, the store refuses these keys itself), so a retry of the same request is asked of the store again.
      for (const [key, waiting] of batch) {
        seen.delete(key);
        waiting.reject(error);
      }
    } finally {
      busy = false;
      if (queued.size > 0) void flush();
    }
  }

  return {
    consume(key, expiresAt) {
      const remembered = seen.get(key);
      if (remembered !== undefined && remembered > clock().getTime()) return Promise.resolve(false);
      // Two uses of one key waiting for the same statement: the insert would return the key once for both.
      if (queued.has(key)) return Promise.resolve(false);
      seen.set(key, expiresAt.getTime());
      const answer = new Promise<boolean>((resolve, reject) => queued.set(key, { expiresAt, resolve, reject }));
      // Idle: the keys of the requests handled in this turn of the event loop go out together. Busy: the statement
      // that is out sends the queue when it returns.
      if (!busy && queued.size === 1)
        setImmediate(() => {
          if (!busy && queued.size > 0) void flush();
        });
      return answer;
    },
  };
}
