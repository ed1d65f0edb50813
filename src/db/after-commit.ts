// Work that must wait until the caller's transaction has committed. The node's token state cache is the reason: a
// node that revokes something forgets its cached state at once (other nodes learn by NOTIFY), and a forget done
// before the commit could be undone by a request that reads the old row in between. guardTransactions (transaction-
// loss.ts) gives every transaction it opens a queue, shared by its savepoints, and runs the queue once the
// transaction has committed, before its caller goes on; a transaction that rolls back drops it (a savepoint rolled
// back inside a transaction that commits does not: its tasks run with the rest, which for forgetting cache entries
// only forgets more). An executor that is not such a transaction is taken to be the pool, whose statement has
// already committed, so the task runs at once: a connection from `sql.reserve()` inside an explicit BEGIN would be
// mistaken for one, and must not be given tasks. A task must be added while its transaction is open (awaited inside
// the callback): one added after the queue has run is never run.
import type postgres from 'postgres';

// pool.ts's Sql and Executor, named here from postgres.js itself: pool.ts imports this module's caller.
type Sql = postgres.Sql;
type Executor = postgres.Sql | postgres.TransactionSql;

/** A task is told the pool it ran against, which is how a node finds what of its own to update (one per app). */
export type CommitTask = (pool: Sql) => void;

interface Queue {
  pool: Sql;
  tasks: CommitTask[];
}

const queues = new WeakMap<object, Queue>();

/** Runs `task` once the transaction `executor` belongs to has committed, or now when it is not in one. */
export function afterCommit(executor: Executor, task: CommitTask): void {
  const queue = queues.get(executor);
  if (queue) queue.tasks.push(task);
  else task(executor as Sql);
}

/** A new transaction's queue (transaction-loss.ts), to be run by `committed`. */
export const openQueue = (pool: Sql): Queue => ({ pool, tasks: [] });

/** Ties a transaction (or one of its savepoints) to its queue. */
export function enlist(tx: postgres.TransactionSql, queue: Queue): void {
  queues.set(tx, queue);
}

/**
 * Runs a committed transaction's tasks. They only update this process's caches; one that throws must not turn a
 * commit into an error for the request, so it is reported as a warning and the rest still run.
 */
export function committed(queue: Queue): void {
  for (const task of queue.tasks.splice(0))
    try {
      task(queue.pool);
    } catch (error) {
      process.emitWarning(error instanceof Error ? error.message : String(error), {
        type: 'AfterCommitTaskFailed',
        detail: error instanceof Error ? error.stack : undefined,
      });
    }
}
