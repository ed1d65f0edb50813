import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { untilBlocked } from '../../test/helpers/lock-waits.ts';
import { migrate, readMigrations } from '../db/migrate.ts';
import { createJtiReplayGuard } from './jti-replay-guard.ts';
import { insertUsedJtis, storedKey } from './used-jti-store.ts';

describe('single use of jtis: batched inserts into the shared store, refusals remembered per process', async () => {
  const { sql } = await createTestDatabase();
  const now = () => new Date();
  const soon = () => new Date(Date.now() + 70_000);
  // Counts the INSERT statements the store runs, as PostgreSQL sees them (a statement-level trigger).
  await sql`create table test_statements (n int not null)`;
  await sql`insert into test_statements values (0)`;
  await sql.unsafe(`
    create function count_statement() returns trigger language plpgsql as
      $$ begin update test_statements set n = n + 1; return null; end $$;
    create trigger count_statements after insert on oauth_used_jtis
      for each statement execute function count_statement();`);
  const statements = async () => ((await sql`select n from test_statements`)[0] as { n: number }).n;
  const keys = (n: number) => Array.from({ length: n }, () => `test:${randomUUID()}`);

  it('the keys of concurrent requests go out in one statement, each answered for itself', async () => {
    const fresh = keys(17);
    const usedElsewhere = keys(3);
    await insertUsedJtis(
      sql,
      usedElsewhere.map((key) => ({ key, expiresAt: soon() })),
    );
    const guard = createJtiReplayGuard(sql, now);
    const before = await statements();
    const answers = await Promise.all([...fresh, ...usedElsewhere].map((key) => guard.consume(key, soon())));
    assert.deepEqual(answers, [...fresh.map(() => true), ...usedElsewhere.map(() => false)]);
    assert.equal((await statements()) - before, 1);
    const stored = await sql`
      select 1 from oauth_used_jtis where encode(key, 'hex') in ${sql(fresh.map(storedKey))}`;
    assert.equal(stored.length, fresh.length);
  });

  it('requests arriving while a statement is out wait for the next one, and are answered', async () => {
    const guard = createJtiReplayGuard(sql, now);
    const [first, ...later] = keys(10);
    const before = await statements();
    const firstAnswer = guard.consume(first as string, soon());
    // The first statement leaves on the next turn of the event loop; these come after it.
    await new Promise((resolve) => setImmediate(resolve));
    const laterAnswers = later.map((key) => guard.consume(key, soon()));
    assert.deepEqual(await Promise.all([firstAnswer, ...laterAnswers]), [true, ...later.map(() => true)]);
    assert.equal((await statements()) - before, 2);
  });

  it('one key twice in the same statement is accepted once', async () => {
    const guard = createJtiReplayGuard(sql, now);
    const [key] = keys(1) as [string];
    assert.deepEqual(await Promise.all([guard.consume(key, soon()), guard.consume(key, soon())]), [true, false]);
  });

  it('a key used by another process is refused by the store; a replay to this process is refused without it', async () => {
    const thisProcess = createJtiReplayGuard(sql, now);
    const otherProcess = createJtiReplayGuard(sql, now);
    const [key] = keys(1) as [string];
    assert.equal(await otherProcess.consume(key, soon()), true);
    const before = await statements();
    assert.equal(await thisProcess.consume(key, soon()), false);
    assert.equal((await statements()) - before, 1, 'the store was asked');
    assert.equal(await otherProcess.consume(key, soon()), false);
    assert.equal(await thisProcess.consume(key, soon()), false);
    assert.equal((await statements()) - before, 1, 'both replays were refused from memory');
  });

  it('a key remembered past its expiry is asked of the store again, which still decides', async () => {
    let clock = Date.now();
    const guard = createJtiReplayGuard(sql, () => new Date(clock));
    const [key] = keys(1) as [string];
    assert.equal(await guard.consume(key, new Date(clock + 1000)), true);
    clock += 2000;
    const before = await statements();
    assert.equal(await guard.consume(key, new Date(clock + 1000)), false);
    assert.equal((await statements()) - before, 1);
  });

  it('a statement that fails fails every request in it, and their keys may be tried again', async () => {
    const guard = createJtiReplayGuard(sql, now);
    const [key] = keys(1) as [string];
    // A key the database refuses (a trigger stands in for any failure of the statement: a dropped connection, a
    // read-only database); the statement fails as a whole.
    const poisoned = `test:${randomUUID()}`;
    await sql.unsafe(`
      create function refuse_poisoned() returns trigger language plpgsql as $$ begin
        if new.key = decode('${storedKey(poisoned)}', 'hex') then raise exception 'poisoned key refused'; end if;
        return new; end $$;
      create trigger refuse_poisoned before insert on oauth_used_jtis
        for each row execute function refuse_poisoned();`);
    let answers: PromiseSettledResult<boolean>[];
    try {
      answers = await Promise.allSettled([guard.consume(key, soon()), guard.consume(poisoned, soon())]);
    } finally {
      await sql.unsafe('drop trigger refuse_poisoned on oauth_used_jtis; drop function refuse_poisoned();');
    }
    for (const answer of answers) {
      assert.equal(answer.status, 'rejected');
      assert.match(String(answer.reason), /poisoned key refused/);
    }
    assert.equal((await sql`select 1 from oauth_used_jtis where encode(key, 'hex') = ${storedKey(key)}`).length, 0);
    assert.equal(await guard.consume(key, soon()), true);
    assert.equal(await guard.consume(key, soon()), false);
  });

  it('two statements with overlapping keys in opposite orders both finish, each key won once (no deadlock)', async () => {
    const shared = keys(40);
    const middle = shared[20] as string;
    // A third transaction holds the middle key, so both statements stop there with the keys before it inserted
    // (uncommitted); in opposite orders, each would then wait for the other's keys.
    const holder = await sql.reserve();
    try {
      await holder`begin`;
      await insertUsedJtis(holder, [{ key: middle, expiresAt: soon() }]);
      const rows = (order: string[]) => order.map((key) => ({ key, expiresAt: soon() }));
      const forward = insertUsedJtis(sql, rows(shared));
      const backward = insertUsedJtis(sql, rows([...shared].reverse()));
      await untilBlocked(sql, Promise.all([forward, backward]), 2);
      await holder`rollback`;
      const [a, b] = await Promise.all([forward, backward]);
      for (const key of shared) assert.equal(Number(a.has(key)) + Number(b.has(key)), 1, key);
    } finally {
      holder.release();
    }
  });

  it('keys stored before digests (migration 0035) still refuse their replays', async () => {
    const { sql: older } = await createTestDatabase({ migrated: false });
    const migrations = readMigrations();
    await migrate(
      older,
      migrations.filter((m) => m.version < 35),
    );
    const [spent] = keys(1) as [string];
    await older`insert into oauth_used_jtis (key, expires_at) values (${spent}, ${soon()})`;
    await migrate(older, migrations);
    const guard = createJtiReplayGuard(older, now);
    const [fresh] = keys(1) as [string];
    assert.deepEqual(await Promise.all([guard.consume(spent, soon()), guard.consume(fresh, soon())]), [false, true]);
  });
});
