import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactDatabaseUrl } from './pool.ts';

test('redactDatabaseUrl hides a password and leaves everything else as written', () => {
  assert.equal(
    redactDatabaseUrl('postgres://gatehouse:s3cr%40t@db.internal:5432/gatehouse?sslmode=require'),
    'postgres://gatehouse:***@db.internal:5432/gatehouse?sslmode=require',
  );
  assert.equal(
    redactDatabaseUrl('postgres://postgres@127.0.0.1:5432/postgres'),
    'postgres://postgres@127.0.0.1:5432/postgres',
  );
  assert.equal(redactDatabaseUrl('not a url with password hunter2'), '(unparseable URL)');
});
