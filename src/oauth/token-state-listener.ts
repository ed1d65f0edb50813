// The LISTEN side of the token state cache: one dedicated connection per node on channel gatehouse_token_state.
// postgres.js re-listens by itself after the connection drops and then calls onlisten (which clears the cache), but
// it has no event for the drop itself. Its documented `socket` option does: the listen connection's socket is created
// here, and its `close` event marks the cache unusable at once, before any notification could have been missed
// unseen. If re-listening fails (the database is down at that moment) postgres.js does not try again: the cache then
// stays bypassed, which costs speed, never correctness.
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

/**
 * Starts listening with a connection configured like `sql`. Resolves once listening; if the first LISTEN fails the
 * cache stays bypassed and the error goes to `onError`.
 */
export async function listenForTokenState(
  sql: Sql,
  cache: TokenStateCache,
  onError: (error: unknown) => void,
): Promise<TokenStateListener> {
  // The pool's parsed options (postgres.js builds its own listen connection the same way), on one tracked socket.
  const options = {
    ...sql.options,
    max: 1,
    idle_timeout: null,
    max_lifetime: null,
    socket: trackedSocket(() => cache.lost()),
  };
  const listener = postgres(options as unknown as postgres.Options<Record<string, never>>);
  try {
    await listener.listen(
      TOKEN_STATE_CHANNEL,
      (key) => cache.invalidate(key),
      () => cache.listened(),
    );
  } catch (error) {
    onError(error);
  }
  return { close: () => listener.end({ timeout: 1 }) };
}
