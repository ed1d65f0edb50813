import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { parseDatabaseUrl, redactDatabaseUrl } from './database-url.ts';
import { databaseUrlProblem } from './validate.ts';

test('a multi-host URL, as docs/scaling.md recommends for Patroni, is accepted with each of its hosts', () => {
  const url = 'postgres://gatehouse:pw@db1.internal:5432,db2.internal:5433/gatehouse?target_session_attrs=read-write';
  const parsed = parseDatabaseUrl(url);
  assert.deepEqual(parsed?.hosts, ['db1.internal:5432', 'db2.internal:5433']);
  assert.equal(parsed?.first.pathname, '/gatehouse');
  assert.equal(parsed?.first.searchParams.get('target_session_attrs'), 'read-write');
  assert.equal(databaseUrlProblem(url), null);
  assert.equal(
    redactDatabaseUrl(url),
    'postgres://gatehouse:***@db1.internal:5432,db2.internal:5433/gatehouse?target_session_attrs=read-write',
  );
  assert.equal(redactDatabaseUrl('postgresql://a@[::1]:5432,10.0.0.2/x'), 'postgresql://a@[::1]:5432,10.0.0.2/x');
});

test('a host list with an empty or malformed member is refused', () => {
  for (const url of [
    'postgres://u@db1,/gatehouse',
    'postgres://u@,db2/gatehouse',
    'postgres://u@db1:port,db2/gatehouse',
    'postgres://u@db 1,db2/gatehouse',
    'mysql://u@db1/gatehouse',
  ])
    assert.notEqual(databaseUrlProblem(url), null, url);
  assert.equal(redactDatabaseUrl('postgres://u:hunter2@db1:x,db2/g'), '(unparseable URL)');
});

test('the parser never throws and never lets a password through redaction', () => {
  const alphabet = 'postgres:/@,.:?#[]%=&abc019 ';
  for (let i = 0; i < 5000; i += 1) {
    const bytes = randomBytes(24);
    const tail = [...bytes].map((b) => alphabet[b % alphabet.length]).join('');
    const url = `postgres://user:hunter2@${tail}`;
    parseDatabaseUrl(url);
    assert.ok(!redactDatabaseUrl(url).includes('hunter2'), url);
  }
});
