// Tasks that wait for the caller's transaction to commit (after-commit.ts), on a real pool with the transaction guard.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import postgres from 'postgres';
import { adminUrl } from '../../test/helpers/database.ts';
import { afterCommit } from './after-commit.ts';
import { createPool, type Sql } from './pool.ts';
import { guardTransactions } from './transaction-loss.ts';

const sql = createPool(adminUrl(), { max: 2, connectTimeoutSeconds: 5 });
after(() => sql.end({ timeout: 1 }));

test('a task runs once the transaction commits, before its caller goes on, and is told the pool', async () => {
  const ran: string[] = [];
  let pool: Sql | null = null;
  const result = await sql.begin(async (tx) => {
    afterCommit(tx, (p) => {
      pool = p;
      ran.push('first');
    });
    await tx`select 1`;
    afterCommit(tx, () => ran.push('second'));
    assert.deepEqual(ran, [], 'nothing runs before the commit');
    return 'done';
  });
  assert.equal(result, 'done');
  assert.deepEqual(ran, ['first', 'second']);
  assert.equal(pool, sql);
});

test('a task runs only once COMMIT has been answered, not when the callback returns', async () => {
  // The statements the driver sends, in order: the task must come after the transaction's COMMIT.
  const events: string[] = [];
  const traced = guardTransactions(
    postgres(adminUrl(), { max: 1, onnotice: () => {}, debug: (_connection, query) => events.push(query.trim()) }),
  );
  after(() => traced.end({ timeout: 1 }));
  await traced.begin(async (tx) => {
    await tx`select 1`;
    afterCommit(tx, () => events.push('task'));
  });
  assert.deepEqual(events.slice(-2), ['commit', 'task']);
  assert.equal(events.filter((event) => event === 'task').length, 1);
});

test("a savepoint's tasks wait for the whole transaction; a rolled-back transaction runs none", async () => {
  const ran: string[] = [];
  await sql.begin(async (tx) => {
    await tx.savepoint(async (sp) => {
      afterCommit(sp, () => ran.push('savepoint'));
    });
    assert.deepEqual(ran, [], 'a released savepoint is not a commit');
  });
  assert.deepEqual(ran, ['savepoint']);

  const refused = new Error('refused');
  await assert.rejects(
    sql.begin(async (tx) => {
      afterCommit(tx, () => ran.push('rolled back'));
      throw refused;
    }),
    refused,
  );
  assert.deepEqual(ran, ['savepoint']);
});

test('outside a transaction a task runs at once; a task that throws is a warning, not a failed commit', async () => {
  const ran: string[] = [];
  afterCommit(sql, () => ran.push('now'));
  assert.deepEqual(ran, ['now']);

  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on('warning', onWarning);
  try {
    const result = await sql.begin(async (tx) => {
      afterCommit(tx, () => {
        throw new Error('cache gone');
      });
      afterCommit(tx, () => ran.push('after the failing one'));
      return 1;
    });
    assert.equal(result, 1);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(ran, ['now', 'after the failing one']);
    // Other warnings may come and go meanwhile; this one comes exactly once, with where it was thrown.
    const ours = warnings.filter((w) => w.name === 'AfterCommitTaskFailed');
    assert.deepEqual(
      ours.map((w) => w.message),
      ['cache gone'],
    );
    assert.match(String((ours[0] as Error & { detail?: string }).detail), /after-commit\.test\.ts/);
  } finally {
    process.off('warning', onWarning);
  }
});
