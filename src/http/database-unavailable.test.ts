import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isDatabaseUnavailable } from './database-unavailable.ts';

const postgresError = (code: string) => Object.assign(new Error('x'), { name: 'PostgresError', code });
const driverError = (code: string) => Object.assign(new Error('x'), { code });

describe('isDatabaseUnavailable', () => {
  test('is true for lost or refused connections, shutdowns, and writes on a standby', () => {
    for (const error of [
      driverError('ECONNREFUSED'),
      driverError('CONNECT_TIMEOUT'),
      driverError('CONNECTION_CLOSED'),
      postgresError('08006'),
      postgresError('57P01'),
      postgresError('57P03'),
      postgresError('25006'),
    ])
      assert.equal(isDatabaseUnavailable(error), true, (error as { code: string }).code);
  });

  test('is false for errors of the request itself: constraint violations, data exceptions, plain errors', () => {
    for (const error of [postgresError('23505'), postgresError('22P02'), new Error('boom'), null, 'text'])
      assert.equal(isDatabaseUnavailable(error), false);
  });
});
