// A transaction whose connection is lost (a failover kills the primary's backends, a proxy or HAProxy cuts the
// connection) must fail its request with a 503, not end the process. postgres.js 3.4.9 (porsager/postgres#1208,
// open) fails the query in flight and then, from sql.begin's own catch, writes ROLLBACK (ROLLBACK TO for a savepoint)
// on the connection it has just closed: the write is queued for a setImmediate that dereferences the closed socket,
// "Cannot read properties of null (reading 'write')" is thrown outside any promise, and the node dies with every
// request it held (test/failover/patroni.test.ts saw it at each failover under load).
//
// So the transaction's callback is wrapped: when it fails because the connection is gone, the wrapper does not pass
// the failure on to the driver, which would write the ROLLBACK; it waits instead. The driver's begin rejects by
// itself when the connection closes (CONNECTION_CLOSED, a 503), and the server has rolled the transaction back with
// the session. Should the connection somehow stay open, the failure is passed on after a second, and the
// driver's ROLLBACK then goes to a live connection.
import type postgres from 'postgres';
import { committed, enlist, openQueue } from './after-commit.ts';

/** postgres.js's and Node's codes for a connection that is closed or failing. */
const LOST_CODES = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
  'CONNECT_TIMEOUT',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
]);

/** SQLSTATEs the server sends as FATAL before it closes the session: shutdown, crash, cannot connect now. */
const FATAL_SQLSTATES = new Set(['57P01', '57P02', '57P03']);

/**
 * How long a transaction whose connection reported a fatal error waits for the driver to see the close (it takes
 * milliseconds); short, so that a connection that stays open after all fails its request well within the bound
 * docs/scaling.md gives for a 503 during a failover.
 */
const CLOSE_WAIT_MS = 1000;

export function connectionGone(error: unknown): boolean {
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
  if (typeof code !== 'string') return false;
  if (name === 'PostgresError') return code.startsWith('08') || FATAL_SQLSTATES.has(code);
  return LOST_CODES.has(code);
}

type Callback = (sql: postgres.TransactionSql) => unknown;

/** `queue`: the transaction's after-commit tasks (after-commit.ts), which its savepoints add to as well. */
function guarded(callback: Callback, ended: () => boolean, queue: ReturnType<typeof openQueue>): Callback {
  return async (tx) => {
    enlist(tx, queue);
    guardSavepoints(tx, ended, queue);
    try {
      return await callback(tx);
    } catch (error) {
      if (!connectionGone(error)) throw error;
      // Never settles once the driver has ended the transaction: settling would make it write on the dead socket.
      return await new Promise((_, reject) => {
        setTimeout(() => {
          if (!ended()) reject(error);
        }, CLOSE_WAIT_MS).unref();
      });
    }
  };
}

/** A savepoint's callback gets the same guard: its failure makes the driver write ROLLBACK TO SAVEPOINT. */
function guardSavepoints(tx: postgres.TransactionSql, ended: () => boolean, queue: ReturnType<typeof openQueue>): void {
  const savepoint = tx.savepoint.bind(tx) as (...args: unknown[]) => unknown;
  Object.assign(tx, {
    savepoint: (...args: unknown[]) => {
      const last = args.length - 1;
      if (typeof args[last] === 'function') args[last] = guarded(args[last] as Callback, ended, queue);
      return savepoint(...args);
    },
  });
}

/**
 * Wraps the pool's begin, how requests open their transactions, with the guard above; a committed transaction's
 * after-commit tasks run before its caller sees the result.
 */
export function guardTransactions(sql: postgres.Sql): postgres.Sql {
  const begin = sql.begin.bind(sql) as (...args: unknown[]) => Promise<unknown>;
  Object.assign(sql, {
    begin: (...args: unknown[]) => {
      let done = false;
      const queue = openQueue(sql);
      const last = args.length - 1;
      if (typeof args[last] === 'function') args[last] = guarded(args[last] as Callback, () => done, queue);
      return begin(...args).then(
        (result) => {
          done = true;
          committed(queue);
          return result;
        },
        (error: unknown) => {
          done = true;
          throw error;
        },
      );
    },
  });
  return sql;
}
