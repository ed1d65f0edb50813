// The LISTEN side of the token state cache: one dedicated connection per node on channel gatehouse_token_state.
// postgres.js re-listens by itself after the connection drops and then calls onlisten (which clears the cache), but
// it has no event for the drop itself. Its documented `socket` option gives one: the listen connection's socket is
// created here, and its `close` event marks the cache unusable at once. If postgres.js cannot re-listen (the
// database is down at that moment) it does not try again, so while the cache is not listening a fresh connection is
// tried every `retryMs`: until one listens the node reads through, slower but never stale.
import { connect, type Socket } from 'node:net';
import postgres from 'postgres';
import type { Sql } from '../db/pool.ts';
import type { TokenStateCache } from './token-state-cache.ts';

export const TOKEN_STATE_CHANNEL = 'gatehouse_token_state';

interface SocketTarget {
  host: string[];
  port: number[];
  path: string | false;
  connect_timeout: number;
}

/** A TCP (or Unix) socket to the first configured host that reports its closing to `onClose`. */
const trackedSocket = (onClose: () => void) => (target: SocketTarget) =>
  new Promise<Socket>((resolve, reject) => {
    const socket = target.path ? connect(target.path) : connect(target.port[0] ?? 5432, target.host[0] ?? 'localhost');
    socket.setTimeout(target.connect_timeout * 1000, () => socket.destroy(new Error('connect timeout')));
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.setTimeout(0);
      socket.off('error', reject);
      socket.once('close', onClose);
      resolve(socket);
    });
  });

export interface TokenStateListener {
  close(): Promise<void>;
}

export interface ListenOptions {
  onError: (error: unknown) => void;
  /** How often a node that is not listening tries a fresh connection. */
  retryMs?: number;
}

/**
 * Starts listening with a connection configured like `sql`; resolves after the first attempt, whether or not it
 * listened (the cache stays bypassed until one does).
 */
export async function listenForTokenState(
  sql: Sql,
  cache: TokenStateCache,
  options: ListenOptions,
): Promise<TokenStateListener> {
  const retryMs = options.retryMs ?? 5000;
  let generation = 0;
  let closed = false;
  let current: Sql | null = null;
  let retry: NodeJS.Timeout | null = null;

  const scheduleRetry = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = null;
      if (!closed && !cache.listening) void start();
    }, retryMs);
    retry.unref();
  };

  // Only the newest connection speaks for the cache: an older one closing (or re-listening late) must not.
  async function start(): Promise<void> {
    const mine = ++generation;
    const previous = current;
    // The pool's parsed options (postgres.js builds its own listen connection the same way), on a tracked socket.
    const instance = postgres({
      ...sql.options,
      max: 1,
      idle_timeout: null,
      max_lifetime: null,
      socket: trackedSocket(() => {
        if (mine !== generation) return;
        cache.lost();
        scheduleRetry();
      }),
    } as unknown as postgres.Options<Record<string, never>>);
    current = instance;
    void previous?.end({ timeout: 0 }).catch(() => {});
    try {
      await instance.listen(
        TOKEN_STATE_CHANNEL,
        (key) => cache.invalidate(key),
        () => {
          if (mine === generation && !closed) cache.listened();
        },
      );
    } catch (error) {
      if (mine !== generation) return;
      options.onError(error);
      scheduleRetry();
    }
  }

  await start();
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await current?.end({ timeout: 1 });
    },
  };
}
